"""Differential oracle for version gates: pyagentspec 26.3.1 and `agentspec check` must accept
and reject the same documents when a corpus document declares another version, or holds a
value that needs a newer version than it declares.

usage: version-oracle.py AGENTSPEC_BINARY FIXTURES_DIR
Prints one line per disagreement and closes with 'N agree (…), N disagree'.
"""

import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from oracle_common import placeholder_registry
from pyagentspec.serialization import AgentSpecDeserializer

VERSIONS = ["25.4.1", "25.4.2", "26.1.0", "26.1.2", "26.3.1"]
# Plugin documents need their plugin types; disaggregated mains their components file.
SKIP_PREFIXES = ("plugin_", "disaggregated_")


def mutations(documents):
    """Values that need a newer version than the document declares (or only look like it)."""
    agent = documents["agent_simple_server_tool"]
    llm = ["llm_config"]
    tool = ["tools", 0]
    edits = [
        (tool, "requires_confirmation", True),
        (tool, "requires_confirmation", False),
        ([], "human_in_the_loop", False),
        ([], "human_in_the_loop", True),
        ([], "toolboxes", []),
        ([], "transforms", []),
        (llm, "api_type", "responses"),
        (llm, "api_type", "chat_completions"),
        (llm, "api_key", "sk-test"),
        (llm, "api_key", None),
        (llm, "provider", "meta"),
        (llm, "retry_policy", {"max_attempts": 3}),
        (llm, "retry_policy", None),
    ]
    for where, key, value in edits:
        for version in ["25.4.1", "25.4.2"]:
            doc = copy.deepcopy(agent)
            target = doc
            for step in where:
                target = target[step]
            target[key] = value
            doc["agentspec_version"] = version
            yield f"agent_simple_server_tool+{'.'.join(map(str, where + [key]))}={json.dumps(value)}@{version}", doc
    oci = documents["llm_ocigenai_api_key"]
    for version in ["25.4.2", "26.1.2"]:
        doc = copy.deepcopy(oci)
        doc["provider"] = "XAI"
        doc["agentspec_version"] = version
        yield f"llm_ocigenai_api_key+provider=XAI@{version}", doc


def variants(fixtures):
    documents = {}
    for path in sorted(fixtures.glob("*.json")):
        if path.stem.startswith(SKIP_PREFIXES) or path.stem.endswith(".registry"):
            continue
        documents[path.stem] = json.loads(path.read_text())
    for name, doc in documents.items():
        for version in VERSIONS:
            if version != doc["agentspec_version"]:
                moved = copy.deepcopy(doc)
                moved["agentspec_version"] = version
                yield f"{name}@{version}", moved
    yield from mutations(documents)


def pyagentspec_accepts(doc):
    registry = placeholder_registry(doc)
    try:
        AgentSpecDeserializer().from_dict(doc, components_registry=registry or None)
        return True, ""
    except Exception as e:  # noqa: BLE001 - a rejection, whatever its type
        return False, " ".join(str(e).split())[:200]


def main():
    binary, fixtures = sys.argv[1], Path(sys.argv[2])
    cases = list(variants(fixtures))
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, (_, doc) in enumerate(cases):
            path = Path(tmp) / f"{i:04}.json"
            path.write_text(json.dumps(doc, indent=2))
            paths.append(str(path))
        ours = subprocess.run([binary, "check", "--format", "json", *paths], capture_output=True, text=True)
        if ours.returncode not in (0, 1):
            print(f"agentspec check failed: {ours.stderr.strip()}")
            return 2
        rejected = {}
        for d in json.loads(ours.stdout):
            if d["severity"] == "error":
                rejected.setdefault(Path(d["file"]).name, []).append(f"{d['code']} at {d['pointer']}")
    agree = disagree = both_reject = 0
    for i, (name, doc) in enumerate(cases):
        theirs, why = pyagentspec_accepts(doc)
        errors = rejected.get(f"{i:04}.json", [])
        if theirs == (not errors):
            agree += 1
            both_reject += not theirs
        else:
            disagree += 1
            print(f"DIFF {name}: pyagentspec {'accepts' if theirs else 'rejects (' + why + ')'}; agentspec {'rejects (' + ', '.join(errors[:3]) + ')' if errors else 'accepts'}")
    print(f"{agree} agree ({agree - both_reject} accepted by both, {both_reject} rejected by both), {disagree} disagree")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
