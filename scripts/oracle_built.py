"""Oracle for documents built in code: pyagentspec 26.3.1 loads each JSON file given and writes
it back at its version with the same content and key order. The one difference allowed: an
`inputs` or `outputs` left unset in code is written as null, where pyagentspec's constructors
infer a list (it infers the same list when it loads the null).

usage: oracle_built.py FILE.json...
"""

import json
import sys

from oracle import same_layout
from pyagentspec.serialization import AgentSpecDeserializer, AgentSpecSerializer
from pyagentspec.versioning import AgentSpecVersionEnum


def infer_unset(ours, theirs):
    """`ours` with each null `inputs`/`outputs` replaced by what pyagentspec inferred."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return {
            k: (theirs.get(k) if v is None and k in ("inputs", "outputs") else infer_unset(v, theirs.get(k)))
            for k, v in ours.items()
        }
    if isinstance(ours, list) and isinstance(theirs, list):
        return [infer_unset(x, y) for x, y in zip(ours, theirs)] + ours[len(theirs):]
    return ours


def main():
    failed = 0
    for path in sys.argv[1:]:
        written = json.loads(open(path).read())
        try:
            component = AgentSpecDeserializer().from_dict(written)
            version = AgentSpecVersionEnum(written["agentspec_version"])
            again = AgentSpecSerializer().to_dict(component, agentspec_version=version)
            if not same_layout(infer_unset(written, again), again):
                raise RuntimeError("pyagentspec wrote back a different document")
            print(f"ok   {path} (built in code: {written['component_type']})")
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failed += 1
            print(f"FAIL {path}: {' '.join(str(e).split())[:300]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
