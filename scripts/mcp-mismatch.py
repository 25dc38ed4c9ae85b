"""Writes a copy of the example's agent that disagrees with its MCP server in every way
`agentspec check --mcp-servers` reports: an input of a type that does not convert, an input
the server does not take, a tool it does not offer, a required input left out, and outputs
that are not the server's.

usage: mcp-mismatch.py AGENT.json OUT.json
"""

import json
import sys

doc = json.load(open(sys.argv[1]))
weather, convert, split = doc["tools"]
weather["inputs"].append({"title": "days", "type": "integer"})
convert["name"] = "convert_currency"
split["inputs"] = [p for p in split["inputs"] if p["title"] != "people"]
split["inputs"][0] = {"title": "total", "type": "array", "items": {"type": "number"}}
split["outputs"].append({"title": "rounding", "type": "number"})
json.dump(doc, open(sys.argv[2], "w"), indent=2)
