# Sourced by every script that runs Python: makes sure the project's one venv
# (scripts/.venv, not committed) holds exactly the versions scripts/requirements.txt pins,
# and sets $venv. A venv holding other versions (or missing a package) is updated, so no
# script runs against a version it was not written for.
venv=scripts/.venv
venv_ok() {
  [ -x "$venv/bin/python" ] || return 1
  "$venv/bin/python" - scripts/requirements.txt <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version
wrong = []
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, pinned = line.split("==")
    try:
        found = version(name)
    except PackageNotFoundError:
        found = None
    if found != pinned:
        wrong.append(f"{name} {found or 'missing'} (pinned {pinned})")
if wrong:
    print("scripts/.venv: " + ", ".join(wrong), file=sys.stderr)
    sys.exit(1)
PY
}
if ! venv_ok; then
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/requirements.txt
  venv_ok || { echo "scripts/.venv does not hold the pinned versions after installing them" >&2; exit 1; }
fi
