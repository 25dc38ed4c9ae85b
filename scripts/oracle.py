"""Differential oracle: pyagentspec 26.3.1 reads what `agentspec fmt` wrote and must write
back exactly the original corpus document (same value, same key order).

usage: oracle.py AGENTSPEC_BINARY FIXTURES_DIR
Prints one line per document and closes with 'N passed, N failed'.
"""

import json
import subprocess
import sys
from pathlib import Path

import yaml
from oracle_common import placeholder_registry
from pyagentspec.serialization import AgentSpecDeserializer, AgentSpecSerializer
from pyagentspec.versioning import AgentSpecVersionEnum

# Plugin documents and disaggregated pairs need what later issues bring.
SKIP_PREFIXES = ("plugin_", "disaggregated_")
SKIP_SUFFIXES = (".registry",)


def same_layout(a, b, ordered=True):
    if isinstance(a, dict) and isinstance(b, dict):
        if (list(a) != list(b)) if ordered else (set(a) != set(b)):
            return False
        return all(same_layout(v, b[k], k != "$referenced_components") for k, v in a.items())
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_layout(x, y) for x, y in zip(a, b))
    return a == b and type(a) is type(b)


def main():
    binary, fixtures = sys.argv[1], Path(sys.argv[2])
    passed = failed = 0
    for path in sorted(fixtures.glob("*.json")) + sorted(fixtures.glob("*.yaml")):
        if path.stem.startswith(SKIP_PREFIXES) or path.stem.endswith(SKIP_SUFFIXES):
            continue
        original = json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())
        ours = subprocess.run([binary, "fmt", "--include-secrets", str(path)], capture_output=True, text=True)
        try:
            if ours.returncode != 0:
                raise RuntimeError(f"agentspec fmt failed: {ours.stderr.strip()}")
            written = json.loads(ours.stdout) if path.suffix == ".json" else yaml.safe_load(ours.stdout)
            registry = placeholder_registry(written)
            component = AgentSpecDeserializer().from_dict(written, components_registry=registry or None)
            version = AgentSpecVersionEnum(written["agentspec_version"])
            again = AgentSpecSerializer().to_dict(component, agentspec_version=version,
                                                  include_sensitive_fields=not registry)
            if not same_layout(original, again):
                raise RuntimeError("pyagentspec wrote back a different document")
            passed += 1
            print(f"ok   {path.name}")
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failed += 1
            print(f"FAIL {path.name}: {' '.join(str(e).split())[:300]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
