"""An MCP server over HTTP with SSE (MCP 2024-11-05), the MCP Python SDK's, for the runtime's
SSETransport test (scripts/mcp-e2e.sh): one tool, `add`, at http://127.0.0.1:PORT/sse.

usage: mcp-sse-server.py PORT
"""

import sys

from mcp.server.fastmcp import FastMCP

server = FastMCP(name="adder", host="127.0.0.1", port=int(sys.argv[1]), log_level="WARNING")


@server.tool(description="Adds two whole numbers.")
def add(a: int, b: int) -> int:
    return a + b


server.run(transport="sse")
