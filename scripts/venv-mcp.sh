# Sourced by the MCP end-to-end scripts: the official MCP Python SDK and an Agent Spec
# runtime (wayflowcore 26.3.1, with pyagentspec 26.3.1) in their own venv
# (scripts/.venv-mcp, not committed: wayflowcore pins an older `mcp` than the newest), and
# sets $venv_mcp.
venv_mcp=scripts/.venv-mcp
if ! "$venv_mcp/bin/python" -c 'import mcp, wayflowcore, pyagentspec' 2>/dev/null; then
  python3 -m venv "$venv_mcp"
  "$venv_mcp/bin/pip" install --quiet 'wayflowcore==26.3.1' 'pyagentspec==26.3.1' 'mcp==1.30.0'
fi
