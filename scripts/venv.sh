# Sourced by the scripts that use pyagentspec 26.3.1 as an oracle: makes sure it is
# installed in the project's own venv (scripts/.venv, not committed) and sets $venv.
venv=scripts/.venv
if ! "$venv/bin/python" -c 'import pyagentspec' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet 'pyagentspec==26.3.1'
fi
