#!/usr/bin/env bash
# The MCP example server (agentspec-types/examples/mcp_server.rs) with clients no one here
# wrote: the official MCP Python SDK over stdio and streamable HTTP (scripts/mcp-client.py).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv-mcp.sh
cargo build --locked --quiet -p agentspec-types --features macros,mcp --example mcp_server
example=target/debug/examples/mcp_server
"$venv_mcp/bin/python" scripts/mcp-client.py "$example"
# an Agent Spec runtime runs an agent whose tool lives in the Rust server
"$venv_mcp/bin/python" scripts/mcp-runtime.py "$example"
