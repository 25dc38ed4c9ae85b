"""Differential oracle for version gates: pyagentspec 26.3.1 and `agentspec check` must accept
and reject the same documents when a corpus document declares another version, or holds a
value that needs a newer version than it declares.

usage: version-oracle.py AGENTSPEC_BINARY FIXTURES_DIR EXPECTED

Every file of FIXTURES_DIR gets an outcome, and so does every variant made from them; EXPECTED
(scripts/expected/version-oracle.txt) lists each one, `<name>  <outcome>` a line:
- a JSON document is `moved`: a variant `<name>@<version>` at every other version of VERSIONS,
  read as it is (a plugin document: pyagentspec with the corpus's plugin components declared,
  oracle_plugins.py, and `agentspec check --keep-unknown`; a disaggregated main document:
  pyagentspec with its components file loaded as the registry, `agentspec check --components`);
  two of them also get the `mutations` variants.
- a components file (only `$referenced_components`) is `components-file`: read, as it is, with
  every variant of its main document; its components keep their own versions.
- a YAML file is `yaml-twin`: the same value as the JSON file of the same name, which is moved.
- `values-file` (`*.registry.json`: the values of a document's secrets) and `not-a-document`
  (neither `.json` nor `.yaml`) are not read.
- a variant is `both-accept` or `both-reject`; `only-pyagentspec-accepts` and
  `only-agentspec-accepts` are disagreements. pyagentspec rejects a document by raising a
  validation or deserialization error (oracle_common.pyagentspec_load); any other exception
  stops the run.

Prints one line per disagreement and a summary; exits 1 on a disagreement, or when the files,
the variants and their outcomes are not exactly the ones EXPECTED lists.
"""

import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from oracle_common import Rejected, outcome_changes, placeholder_registry, pyagentspec_load, read_expected
from oracle_plugins import has_plugin_component, reader

VERSIONS = ["25.4.1", "25.4.2", "26.1.0", "26.1.2", "26.3.1"]


class Variant:
    """One document given to both tools: its name, its value, and what reading it needs."""

    def __init__(self, name, document, plugins=False, components=None):
        self.name, self.document, self.plugins, self.components = name, document, plugins, components

    def with_document(self, name, document):
        return Variant(name, document, self.plugins, self.components)

    def our_args(self):
        if self.plugins:
            return ["--keep-unknown"]
        return ["--components", str(self.components)] if self.components else []


def mutations(sources):
    """Values that need a newer version than the document declares (or only look like it),
    set in two corpus documents (none when the folder lacks them: their variants are then
    missing from what EXPECTED lists)."""
    if "agent_simple_server_tool" not in sources or "llm_ocigenai_api_key" not in sources:
        return
    agent = sources["agent_simple_server_tool"]
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
            doc = copy.deepcopy(agent.document)
            target = doc
            for step in where:
                target = target[step]
            target[key] = value
            doc["agentspec_version"] = version
            name = f"agent_simple_server_tool+{'.'.join(map(str, where + [key]))}={json.dumps(value)}@{version}"
            yield agent.with_document(name, doc)
    oci = sources["llm_ocigenai_api_key"]
    for version in ["25.4.2", "26.1.2"]:
        doc = copy.deepcopy(oci.document)
        doc["provider"] = "XAI"
        doc["agentspec_version"] = version
        yield oci.with_document(f"llm_ocigenai_api_key+provider=XAI@{version}", doc)


def read_folder(fixtures):
    """({file: outcome} for every file of the folder, {name: Variant} of the moved documents)."""
    files, sources = {}, {}
    for path in sorted(p for p in fixtures.iterdir() if p.is_file()):
        if path.suffix not in (".json", ".yaml"):
            files[path.name] = "not-a-document"
        elif path.stem.endswith(".registry"):
            files[path.name] = "values-file"
        elif path.suffix == ".yaml":
            twin = path.with_suffix(".json")
            same = twin.exists() and yaml.safe_load(path.read_text()) == json.loads(twin.read_text())
            files[path.name] = "yaml-twin" if same else "yaml-without-an-equal-json-file"
        else:
            document = json.loads(path.read_text())
            if list(document) == ["$referenced_components"]:
                files[path.name] = "components-file"
                continue
            files[path.name] = "moved"
            components = path.with_name(path.stem.removesuffix("_main") + "_components.json")
            sources[path.stem] = Variant(
                path.stem,
                document,
                plugins=has_plugin_component(document),
                components=components if path.stem.startswith("disaggregated_") else None,
            )
    return files, sources


def variants(sources):
    for name, source in sources.items():
        for version in VERSIONS:
            if version != source.document["agentspec_version"]:
                moved = copy.deepcopy(source.document)
                moved["agentspec_version"] = version
                yield source.with_document(f"{name}@{version}", moved)
    yield from mutations(sources)


def pyagentspec_accepts(variant):
    """(True, "") or (False, pyagentspec's refusal)."""
    load = reader(variant.plugins)
    registry = placeholder_registry(variant.document)
    try:
        if variant.components:
            components = variant.components.read_text()
            registry.update(pyagentspec_load(load.from_json, components, import_only_referenced_components=True))
        pyagentspec_load(load.from_dict, variant.document, components_registry=registry or None)
        return True, ""
    except Rejected as e:
        return False, str(e)[:200]


def agentspec_errors(binary, cases):
    """{index of the case: its error diagnostics} from `agentspec check`, one run for each
    way of reading (plain, plugins kept, each components file)."""
    groups = {}
    for i, variant in enumerate(cases):
        groups.setdefault(tuple(variant.our_args()), []).append(i)
    errors = {}
    with tempfile.TemporaryDirectory() as tmp:
        for args, indices in groups.items():
            paths = []
            for i in indices:
                path = Path(tmp) / f"{i:04}.json"
                path.write_text(json.dumps(cases[i].document, indent=2))
                paths.append(str(path))
            ours = subprocess.run([binary, "check", "--format", "json", *args, *paths], capture_output=True, text=True)
            if ours.returncode not in (0, 1):
                raise SystemExit(f"agentspec check {' '.join(args)} exit {ours.returncode}: {ours.stderr.strip()}")
            for d in json.loads(ours.stdout):
                if d["severity"] == "error":
                    errors.setdefault(int(Path(d["file"]).stem), []).append(f"{d['code']} at {d['pointer']}")
    return errors


def main():
    binary, fixtures, expected_path = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    expected = read_expected(expected_path)
    found, sources = read_folder(fixtures)
    cases = list(variants(sources))
    rejected = agentspec_errors(binary, cases)
    for i, variant in enumerate(cases):
        theirs, why = pyagentspec_accepts(variant)
        errors = rejected.get(i, [])
        if theirs == (not errors):
            found[variant.name] = "both-accept" if theirs else "both-reject"
        else:
            found[variant.name] = "only-pyagentspec-accepts" if theirs else "only-agentspec-accepts"
            ours = f"rejects ({', '.join(errors[:3])})" if errors else "accepts"
            print(f"DIFF {variant.name}: pyagentspec {'accepts' if theirs else f'rejects ({why})'}; agentspec {ours}")
    changes = outcome_changes(expected, found, expected_path)
    print("\n".join(changes) if changes
          else f"the {len(found)} files and variants and their outcomes are the ones {expected_path} lists")
    outcomes = [found[v.name] for v in cases]
    agree = outcomes.count("both-accept") + outcomes.count("both-reject")
    read = [f for f, o in found.items() if o in ("moved", "components-file")]
    print(f"{len(read)} files read ({len(sources)} moved), {len(cases)} variants: {agree} agree "
          f"({outcomes.count('both-accept')} accepted by both, {outcomes.count('both-reject')} rejected by both), "
          f"{len(cases) - agree} disagree; {len(changes)} differences from {expected_path}")
    return 1 if agree != len(cases) or changes else 0


if __name__ == "__main__":
    sys.exit(main())
