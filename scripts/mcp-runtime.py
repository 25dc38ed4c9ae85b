"""An Agent Spec runtime (wayflowcore 26.3.1) runs an agent whose tools live in the Rust MCP
example server, over streamable HTTP. The agent's LLM is a scripted OpenAI-compatible
chat-completions endpoint on 127.0.0.1: it answers the first request with a call of
`get_weather`, and the second with a message that quotes the tool's result.

Checks that the Rust function ran with the arguments of the scripted call, and that its
result reached the agent's final message.

usage: mcp-runtime.py EXAMPLE_BINARY
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EXAMPLE = os.path.abspath(sys.argv[1])
SCRIPTED_CALL = {"city": "Zurich", "unit": "fahrenheit"}
requests = []


def completion(message):
    return {
        "id": f"chatcmpl-{len(requests)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def chunks(message):
    """The same answer as a stream of chat-completion chunks."""
    base = {"id": f"chatcmpl-{len(requests)}", "object": "chat.completion.chunk", "created": int(time.time()), "model": "scripted"}
    delta = {"role": "assistant"}
    if "tool_calls" in message:
        delta["tool_calls"] = [dict(call, index=i) for i, call in enumerate(message["tool_calls"])]
        finish = "tool_calls"
    else:
        delta["content"] = message["content"]
        finish = "stop"
    yield dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}])
    yield dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}])


class ScriptedLlm(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        requests.append({"path": self.path, "body": body})
        tool_results = [m for m in body.get("messages", []) if m.get("role") == "tool"]
        if not tool_results:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": json.dumps(SCRIPTED_CALL)},
                }],
            }
        else:
            content = tool_results[-1]["content"]
            if isinstance(content, list):
                content = "".join(part.get("text", "") for part in content)
            message = {"role": "assistant", "content": f"The tool says: {content}"}
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for chunk in chunks(message):
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
        else:
            payload = json.dumps(completion(message)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)


def main():
    llm = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedLlm)
    threading.Thread(target=llm.serve_forever, daemon=True).start()
    llm_url = f"http://127.0.0.1:{llm.server_address[1]}"

    with tempfile.TemporaryDirectory() as tmp:
        calls = os.path.join(tmp, "calls.jsonl")
        server = subprocess.Popen([EXAMPLE, "http"], stdout=subprocess.PIPE, text=True, env={**os.environ, "MCP_EXAMPLE_CALLS": calls})
        try:
            url = server.stdout.readline().strip()
            document = subprocess.run([EXAMPLE, "document", url, llm_url], check=True, capture_output=True, text=True).stdout
            print(f"the Rust MCP server at {url}; the scripted LLM at {llm_url}")

            from wayflowcore.agentspec import AgentSpecLoader
            from wayflowcore.mcp import authless_mcp_enabled

            os.environ.setdefault("OPENAI_API_KEY", "scripted")
            # wayflowcore refuses MCP without authentication unless asked: this is a test on loopback
            with authless_mcp_enabled():
                agent = AgentSpecLoader().load_json(document)
                conversation = agent.start_conversation()
                conversation.append_user_message("What is the weather in Zurich, in Fahrenheit?")
                conversation.execute()

            print("transcript:")
            for message in conversation.get_messages():
                role = getattr(message.role, "value", message.role)
                text = message.content
                extra = ""
                if message.tool_requests:
                    extra = " " + ", ".join(f"{r.name}({json.dumps(r.args)})" for r in message.tool_requests)
                if message.tool_result is not None:
                    extra = f" result of {message.tool_result.tool_request_id}: {message.tool_result.content!r}"
                print(f"  [{role}] {text!r}{extra}")
            final = conversation.get_last_message().content
        finally:
            server.terminate()
            server.wait(timeout=10)

        ran = [json.loads(line) for line in open(calls)] if os.path.exists(calls) else []
    failures = []
    if ran != [{"tool": "get_weather", "arguments": SCRIPTED_CALL}]:
        failures.append(f"the Rust function ran with {ran}, not once with {SCRIPTED_CALL}")
    if "69.8" not in final:
        failures.append(f"the final message does not quote the tool's result: {final!r}")
    if len(requests) != 2:
        failures.append(f"the LLM was asked {len(requests)} times, not twice")
    print(f"the LLM endpoint was asked {len(requests)} times; the Rust function ran: {ran}")
    if failures:
        for f in failures:
            print(f"FAIL {f}")
        sys.exit(1)
    print("runtime: wayflowcore ran the agent's tool in the Rust MCP server")


main()
