"""Oracle for documents built in code: pyagentspec 26.3.1 loads each JSON file given and writes
it back at its version with the same content and key order.

usage: oracle_built.py FILE.json...
       oracle_built.py --cases CASES.jsonl   (the output of `agentspec-built`)

With --cases, each line's document must equal what pyagentspec writes for the same components
built with pyagentspec (scripts/oracle_built_cases.py), inferred inputs, outputs and branches
included. pyagentspec gathers placeholders and the children of a component in Python sets, so
the order of inferred placeholder properties and of `$referenced_components` entries changes
from one of its runs to the next: those compare as sets.
"""

import json
import sys

from pyagentspec.serialization import AgentSpecDeserializer, AgentSpecSerializer
from pyagentspec.versioning import AgentSpecVersionEnum


def same_up_to_placeholder_order(ours, theirs, ordered=True):
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if (list(ours) != list(theirs)) if ordered else (set(ours) != set(theirs)):
            return False
        return all(
            same_up_to_placeholder_order(v, theirs[k], k != "$referenced_components")
            for k, v in ours.items()
        )
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return False
        if all(isinstance(p, dict) and set(p) == {"title", "type"} for p in ours + theirs):
            key = lambda p: p["title"]  # noqa: E731 - properties of placeholders
            ours, theirs = sorted(ours, key=key), sorted(theirs, key=key)
        return all(same_up_to_placeholder_order(x, y) for x, y in zip(ours, theirs))
    return ours == theirs and type(ours) is type(theirs)


def cases(path):
    from oracle_built_cases import CASES

    failed = 0
    for line in open(path):
        case = json.loads(line)
        name, ours = case["case"], case["document"]
        theirs = AgentSpecSerializer().to_dict(CASES[name]())
        if same_up_to_placeholder_order(ours, theirs):
            print(f"ok   {name} (pyagentspec builds and writes the same)")
        else:
            failed += 1
            print(f"FAIL {name}:\n  ours:   {json.dumps(ours)[:2000]}\n  theirs: {json.dumps(theirs)[:2000]}")
    return 1 if failed else 0


def main():
    if sys.argv[1] == "--cases":
        return cases(sys.argv[2])
    failed = 0
    for path in sys.argv[1:]:
        written = json.loads(open(path).read())
        try:
            component = AgentSpecDeserializer().from_dict(written)
            version = AgentSpecVersionEnum(written["agentspec_version"])
            again = AgentSpecSerializer().to_dict(component, agentspec_version=version)
            if not same_up_to_placeholder_order(written, again):
                raise RuntimeError("pyagentspec wrote back a different document")
            print(f"ok   {path} (built in code: {written['component_type']})")
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failed += 1
            print(f"FAIL {path}: {' '.join(str(e).split())[:300]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
