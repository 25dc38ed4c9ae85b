#!/usr/bin/env bash
# The MCP example server (agentspec-types/examples/mcp_server.rs) with clients no one here
# wrote: the official MCP Python SDK over stdio and streamable HTTP (scripts/mcp-client.py).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
source scripts/build.sh
example=target/debug/examples/mcp_server
"$venv/bin/python" scripts/mcp-client.py "$example"
# an Agent Spec runtime runs an agent whose tool lives in the Rust server
"$venv/bin/python" scripts/mcp-runtime.py "$example"

# `agentspec check --mcp-servers` against the running example: the document it writes agrees
# with it; a deliberately mismatched one is reported in full (scripts/mcp-mismatch.py)
tmp=$(mktemp -d)
"$example" http > "$tmp/url" &
server=$!
sse_server=
trap 'kill $server $sse_server 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url=$(cat "$tmp/url")
"$example" document "$url" > "$tmp/agent.json"
target/debug/agentspec check --mcp-servers "$tmp/agent.json"
# over stdio, the check starts the server itself, when allowed
"$example" document stdio > "$tmp/stdio-agent.json"
target/debug/agentspec check --mcp-servers --allow-stdio "$tmp/stdio-agent.json"
"$venv/bin/python" scripts/mcp-mismatch.py "$tmp/agent.json" "$tmp/mismatched.json"
set +e
target/debug/agentspec check --mcp-servers --format json "$tmp/mismatched.json" > "$tmp/found.json"
status=$?
set -e
target/debug/agentspec check --mcp-servers "$tmp/mismatched.json" || true
"$venv/bin/python" - "$tmp/found.json" "$status" <<'PY'
import json, sys
found = [(d["code"], d["pointer"]) for d in json.load(open(sys.argv[1]))]
# in the order of their lines, as check prints them
expected = [
    ("mcp-input-mismatch", "/tools/0/inputs/2"),
    ("mcp-tool-missing", "/tools/1"),
    ("mcp-input-mismatch", "/tools/2/inputs"),
    ("mcp-input-mismatch", "/tools/2/inputs/0"),
    ("mcp-output-mismatch", "/tools/2/outputs"),
]
assert sys.argv[2] == "1", f"exit {sys.argv[2]}, not 1"
assert found == expected, f"{found} != {expected}"
print(f"agentspec check --mcp-servers: {len(found)} problems in the mismatched document, as expected")
PY

# `agentspec to-mcp`: the example's agent with its tools written as ServerTools, pointed at the
# running server again, is the agent the example writes; it agrees with the server, and
# pyagentspec loads it
"$venv/bin/python" - "$tmp/agent.json" "$tmp/server-tools.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for tool in doc["tools"]:
    tool["component_type"] = "ServerTool"
    del tool["client_transport"]
del doc["$referenced_components"]
json.dump(doc, open(sys.argv[2], "w"), indent=2)
PY
target/debug/agentspec to-mcp "$tmp/server-tools.json" --http "$url" \
    --transport-id travel_tools --transport-name "travel tools" -o "$tmp/to-mcp.json"
target/debug/agentspec check --mcp-servers "$tmp/to-mcp.json"
"$venv/bin/python" - "$tmp/to-mcp.json" "$tmp/agent.json" <<'PY'
import json, sys
from pyagentspec.serialization import AgentSpecDeserializer
text = open(sys.argv[1]).read()
assert json.loads(text) == json.load(open(sys.argv[2])), "to-mcp wrote another agent than the example"
agent = AgentSpecDeserializer().from_json(text)
kinds = sorted({type(t).__name__ for t in agent.tools})
assert kinds == ["MCPTool"], kinds
print(f"agentspec to-mcp: the {len(agent.tools)} ServerTools are the example's MCPTools; pyagentspec loads them")
PY

# the runtime's client over HTTP with SSE (MCP 2024-11-05), against the MCP Python SDK's
# server: an MCPTool and an MCPToolBox, and a URL with no event stream
"$venv/bin/python" scripts/mcp-sse-server.py 5010 > "$tmp/sse-server.log" 2>&1 &
sse_server=$!
"$venv/bin/python" - <<'PY' || { cat "$tmp/sse-server.log"; exit 1; }
import socket, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", 5010), timeout=0.2).close()
        break
    except OSError:
        time.sleep(0.1)
else:
    raise SystemExit("the MCP server over SSE did not listen on 127.0.0.1:5010")
PY
AGENTSPEC_MCP_SSE_URL=http://127.0.0.1:5010/sse cargo test --workspace --locked --quiet --test suite \
  -- --ignored --exact mcp_sse::mcp_tools_are_listed_and_called_over_sse
