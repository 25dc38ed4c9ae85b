"""An MCP server of the MCP Python SDK for the runtime's tests of its remote transports
(scripts/mcp-e2e.sh): one tool, `add`, on 127.0.0.1:PORT, over HTTP with SSE (`sse`, at
/sse: MCP 2024-11-05's transport) or streamable HTTP (`http`, at /mcp). With TLS_DIR, over
https with the certificate TLS_DIR/server.crt, and only for clients whose certificate
TLS_DIR/ca.crt signs (mTLS).

usage: mcp-test-server.py PORT sse|http [TLS_DIR]
"""

import ssl
import sys

import uvicorn
from mcp.server.fastmcp import FastMCP

port, transport = int(sys.argv[1]), sys.argv[2]
tls = sys.argv[3] if len(sys.argv) > 3 else None

server = FastMCP(name="adder", log_level="WARNING")


@server.tool(description="Adds two whole numbers.")
def add(a: int, b: int) -> int:
    return a + b


app = server.sse_app() if transport == "sse" else server.streamable_http_app()
options = {}
if tls:
    options = {
        "ssl_certfile": f"{tls}/server.crt",
        "ssl_keyfile": f"{tls}/server.key",
        "ssl_ca_certs": f"{tls}/ca.crt",
        "ssl_cert_reqs": ssl.CERT_REQUIRED,
    }
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", **options)
