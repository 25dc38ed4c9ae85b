"""The Rust MCP example server (agentspec-types/examples/mcp_server.rs), driven by the
official MCP Python SDK over stdio and over streamable HTTP: list the tools, check that
each one's MCP description agrees with the Agent Spec document the example writes, call
each tool with good and with bad arguments, and check how the server ends.

usage: mcp-client.py EXAMPLE_BINARY
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

EXAMPLE = os.path.abspath(sys.argv[1])
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"  FAIL {what}")


def text_of(result):
    return "".join(c.text for c in result.content if c.type == "text")


def agent_spec_tools(url):
    """The MCPTools of the document the example writes, by name."""
    out = subprocess.run([EXAMPLE, "document", url], check=True, capture_output=True, text=True)
    doc = json.loads(out.stdout)
    return {t["name"]: t for t in doc["tools"]}


# name -> (good arguments, expected structured result, bad arguments, pointers named)
CALLS = {
    "get_weather": (
        {"city": "Zurich", "unit": "fahrenheit"},
        {"temperature": 69.80000000000001, "unit": "fahrenheit"},
        {"unit": "kelvin", "extra": 1},
        ["/city", "/unit", "/extra"],
    ),
    "convert": ({"amount": 10.0, "rate": 0.5}, {"result": 5.0}, {"amount": "ten"}, ["/amount", "/rate"]),
    "split_bill": ({"total": 90, "people": 3}, {"result": 30.0}, {"total": 90, "people": -1}, ["/people"]),
}


async def exercise(session, transport, url_in_doc):
    listed = await session.list_tools()
    names = [t.name for t in listed.tools]
    print(f"[{transport}] listed: {', '.join(names)}")
    check(names == list(CALLS), f"{transport}: tools listed {names}")
    spec = agent_spec_tools(url_in_doc)
    for tool in listed.tools:
        component = spec[tool.name]
        check(tool.description == component["description"], f"{transport}: {tool.name} description")
        inputs = {p["title"]: p for p in component["inputs"]}
        check(tool.inputSchema["properties"] == inputs, f"{transport}: {tool.name} inputSchema properties")
        required = [t for t, p in inputs.items() if "default" not in p]
        check(tool.inputSchema.get("required") == required, f"{transport}: {tool.name} required inputs")
        outputs = component["outputs"]
        if len(outputs) == 1 and outputs[0].get("type") == "object":
            check(tool.outputSchema == outputs[0], f"{transport}: {tool.name} outputSchema")
        else:
            check(tool.outputSchema["properties"]["result"] == outputs[0], f"{transport}: {tool.name} outputSchema")

    for name, (good, expected, bad, pointers) in CALLS.items():
        result = await session.call_tool(name, good)
        print(f"[{transport}] {name}({json.dumps(good)}) -> {json.dumps(result.structuredContent)} / {text_of(result)!r}")
        check(not result.isError, f"{transport}: {name} good call is not an error")
        check(result.structuredContent == expected, f"{transport}: {name} structured result {result.structuredContent}")

        result = await session.call_tool(name, bad)
        text = text_of(result)
        print(f"[{transport}] {name}({json.dumps(bad)}) -> error: {text!r}")
        check(result.isError, f"{transport}: {name} bad call is a tool error")
        for pointer in pointers:
            check(f"\n{pointer}:" in text, f"{transport}: {name} error names {pointer}")

    # the function's own error is a tool error too, and the server goes on serving
    result = await session.call_tool("split_bill", {"total": 90, "people": 0})
    print(f"[{transport}] split_bill(people=0) -> error: {text_of(result)!r}")
    check(result.isError and "nobody to split the bill with" in text_of(result), f"{transport}: tool error text")
    try:
        result = await session.call_tool("no_such_tool", {})
        check(result.isError, f"{transport}: unknown tool is an error")
        print(f"[{transport}] no_such_tool -> error: {text_of(result)!r}")
    except Exception as e:  # a protocol error (-32602), as MCP asks
        print(f"[{transport}] no_such_tool -> protocol error: {e}")
        check("no tool named `no_such_tool`" in str(e), f"{transport}: unknown tool message")
    result = await session.call_tool("convert", {"amount": 2, "rate": 2})
    check(result.structuredContent == {"result": 4.0}, f"{transport}: still serving after errors")


async def over_stdio(calls):
    params = StdioServerParameters(command=EXAMPLE, args=["stdio"], env={**os.environ, "MCP_EXAMPLE_CALLS": calls})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            print(f"[stdio] server {init.serverInfo.name} {init.serverInfo.version}, protocol {init.protocolVersion}")
            await exercise(session, "stdio", "stdio")


async def over_http(calls):
    process = subprocess.Popen(
        [EXAMPLE, "http"], stdout=subprocess.PIPE, text=True, env={**os.environ, "MCP_EXAMPLE_CALLS": calls}
    )
    try:
        url = process.stdout.readline().strip()
        print(f"[http] serving at {url}")
        check(url.startswith("http://127.0.0.1:"), "http: binds to loopback by default")
        async with streamablehttp_client(url) as (read, write, _):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                print(f"[http] server {init.serverInfo.name}, protocol {init.protocolVersion}")
                await exercise(session, "http", url)
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=10)
        print(f"[http] SIGTERM -> exit {code}")
        check(code == 0, f"http: exits 0 on SIGTERM, got {code}")
    finally:
        if process.poll() is None:
            process.kill()


def end_of_input():
    """Closing stdin ends the stdio server cleanly, before and after a session began."""
    done = subprocess.run([EXAMPLE, "stdio"], input="", capture_output=True, text=True, timeout=10)
    check(done.returncode == 0 and done.stdout == "", f"stdio: end of input before a session: {done.returncode}")
    hello = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    })
    done = subprocess.run([EXAMPLE, "stdio"], input=hello + "\n", capture_output=True, text=True, timeout=10)
    check(done.returncode == 0 and '"serverInfo"' in done.stdout, f"stdio: end of input in a session: {done.returncode}")
    print("[stdio] end of input -> exit 0, before and during a session")
    # a signal ends it cleanly too, input still open
    process = subprocess.Popen([EXAMPLE, "stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    process.stdin.write(hello + "\n")
    process.stdin.flush()
    answer = process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=10)
    check('"serverInfo"' in answer and code == 0, f"stdio: SIGTERM in a session: exit {code}")
    print(f"[stdio] SIGTERM in a session -> exit {code}")


def pyagentspec_loads_the_documents():
    """pyagentspec 26.3.1 loads the agent with MCPTools and the one with an MCPToolBox."""
    from pyagentspec.serialization import AgentSpecDeserializer

    for which, url in [("document", "stdio"), ("document", "http://127.0.0.1:8808/mcp"), ("toolbox-document", "http://127.0.0.1:8808/mcp")]:
        text = subprocess.run([EXAMPLE, which, url], check=True, capture_output=True, text=True).stdout
        agent = AgentSpecDeserializer().from_json(text)
        tools = [type(t).__name__ for t in agent.tools] + [type(t).__name__ for t in agent.toolboxes]
        transports = {type(t.client_transport).__name__ for t in list(agent.tools) + list(agent.toolboxes)}
        print(f"pyagentspec loads the {which} for {url}: {', '.join(tools)} over {', '.join(transports)}")
        check(tools and set(tools) <= {"MCPTool", "MCPToolBox"}, f"pyagentspec: {which} {url}")


def main():
    pyagentspec_loads_the_documents()
    with tempfile.TemporaryDirectory() as tmp:
        calls = os.path.join(tmp, "calls.jsonl")
        asyncio.run(over_stdio(calls))
        asyncio.run(over_http(calls))
        end_of_input()
        ran = [json.loads(line) for line in open(calls)]
        # per transport: the three good calls, split_bill with 0 people, convert again
        expected = ["get_weather", "convert", "split_bill", "split_bill", "convert"] * 2
        check([c["tool"] for c in ran] == expected, f"the Rust functions that ran: {[c['tool'] for c in ran]}")
        print(f"the Rust functions ran {len(ran)} times; bad arguments never reached them")
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("mcp client: every check passed")


main()
