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
trap 'kill $server 2>/dev/null || true; rm -rf "$tmp"' EXIT
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

# the runtime's client over its remote transports, against the MCP Python SDK's servers
# (scripts/mcp-test-server.py): HTTP with SSE (MCP 2024-11-05), then SSE and streamable HTTP
# over mTLS, with certificates made here (scripts/certs.sh): the server's, made out to
# `localhost`, and the client's, signed by `ca`; a second authority signs a client the
# servers refuse
tls=$tmp/tls
mkdir "$tls"
source scripts/certs.sh
certs_for_localhost agentspec
servers=()
serve() {
  "$venv/bin/python" scripts/mcp-test-server.py "$@" > "$tmp/mcp-server-$1.log" 2>&1 &
  servers+=($!)
}
serve 5010 sse
serve 5011 sse "$tls"
serve 5012 http "$tls"
trap 'kill $server ${servers[*]} 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$venv/bin/python" - <<'PY' || { cat "$tmp"/mcp-server-*.log; exit 1; }
import socket, time
for port in (5010, 5011, 5012):
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        raise SystemExit(f"the MCP test server did not listen on 127.0.0.1:{port}")
PY
AGENTSPEC_MCP_SSE_URL=http://127.0.0.1:5010/sse AGENTSPEC_MCP_TLS=$tls \
  AGENTSPEC_MCP_MTLS_SSE_URL=https://localhost:5011/sse \
  AGENTSPEC_MCP_MTLS_HTTP_URL=https://localhost:5012/mcp \
  cargo test --workspace --locked --quiet --test suite -- --ignored mcp_remote::
