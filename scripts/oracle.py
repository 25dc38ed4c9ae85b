"""Differential oracle: pyagentspec 26.3.1 reads what `agentspec` wrote and must write back
exactly the original corpus document (same value, same key order).

usage: oracle.py AGENTSPEC_BINARY FIXTURES_DIR EXPECTED

Every file of FIXTURES_DIR gets an outcome, and EXPECTED (scripts/expected/oracle-*.txt) lists
each one, `<file>  <outcome>` a line:
- `ok`: pyagentspec read what we wrote and wrote back the original. What we write and how
  pyagentspec reads it, per kind of document:
  - a document alone: `agentspec fmt --include-secrets`; a document whose secrets are
    references gives pyagentspec a placeholder value for each (oracle_common), and is written
    back with them redacted again; one whose secrets are written out, with them.
  - a plugin document (one with `component_plugin_name`): `agentspec fmt --keep-unknown`
    (plugin components kept as read); pyagentspec gets Pydantic plugins declaring the corpus's
    two plugin components, `PluginRegexNode` and `PluginWeatherService`, with the fields the
    documents give them (oracle_plugins.py).
  - a disaggregated pair (`disaggregated_main` or `disaggregated_flow_main`, and the
    `…_components` file of the same name): the main document by `agentspec fmt --components`,
    the components file by `agentspec join` then `agentspec split` with each component under
    its key; pyagentspec loads that components file with `import_only_referenced_components=True`
    as the registry of that main document, and writes both back with the same components
    disaggregated under the same keys. The main document's line compares the main document,
    the components file's line the components file.
- `values-file` (`*.registry.json`): the values of a document's redacted secrets, not a
  document; not read.
- `not-a-document` (neither `.json` nor `.yaml`, e.g. INDEX.tsv): not read.

Prints one line per file and a summary; exits 1 when a document fails, or when the files and
their outcomes are not exactly the ones EXPECTED lists (a file appears, disappears or changes
outcome), so an empty or a partly copied folder fails too.
"""

import json
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import yaml
from oracle_common import outcome_changes, placeholder_registry, read_expected
from oracle_plugins import has_plugin_component, reader, writer
from pyagentspec.versioning import AgentSpecVersionEnum


def same_layout(a, b, ordered=True):
    if isinstance(a, dict) and isinstance(b, dict):
        if (list(a) != list(b)) if ordered else (set(a) != set(b)):
            return False
        return all(same_layout(v, b[k], k != "$referenced_components") for k, v in a.items())
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_layout(x, y) for x, y in zip(a, b))
    return a == b and type(a) is type(b)


def parse(text, suffix):
    return json.loads(text) if suffix == ".json" else yaml.safe_load(text)


def run(cmd):
    """stdout of one of our commands, or raise with its stderr."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"agentspec {cmd[1]} exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def is_components_file(document):
    return isinstance(document, dict) and list(document) == ["$referenced_components"]


def read_back_alone(binary, path, original):
    """pyagentspec's writing of what `agentspec fmt` wrote for one document."""
    plugins = has_plugin_component(original)
    written = parse(run([binary, "fmt", "--include-secrets", *(["--keep-unknown"] if plugins else []), str(path)]), path.suffix)
    registry = placeholder_registry(written)
    component = reader(plugins).from_dict(written, components_registry=registry or None)
    version = AgentSpecVersionEnum(written["agentspec_version"])
    return writer(plugins).to_dict(component, agentspec_version=version, include_sensitive_fields=not registry)


def read_back_pair(binary, main, components):
    """pyagentspec's writing, (main document, components file), of what we wrote for a
    disaggregated pair."""
    written_main = parse(run([binary, "fmt", "--include-secrets", "--components", str(components), str(main)]), main.suffix)
    keys = parse(components.read_text(), components.suffix)["$referenced_components"]
    with tempfile.TemporaryDirectory() as tmp:
        joined = Path(tmp) / ("joined" + main.suffix)
        joined.write_text(run([binary, "join", "--components", str(components), str(main)]))
        out_main, out_components = Path(tmp) / ("m" + main.suffix), Path(tmp) / ("c" + main.suffix)
        moves = [a for key, c in keys.items() for a in ("--component", f"{c['id']}={key}")]
        run([binary, "split", "--include-secrets", *moves, "--main", str(out_main),
             "--components-out", str(out_components), str(joined)])
        written_components = parse(out_components.read_text(), main.suffix)
    registry = reader(False).from_dict(written_components, import_only_referenced_components=True)
    component = reader(False).from_dict(written_main, components_registry=registry)
    return writer(False).to_dict(
        component,
        agentspec_version=AgentSpecVersionEnum(written_main["agentspec_version"]),
        disaggregated_components=[(c, key) for key, c in registry.items()],
        export_disaggregated_components=True,
    )


def check(binary, path):
    """The outcome of one file of the folder, and what to print after it."""
    if path.suffix not in (".json", ".yaml"):
        return "not-a-document", ""
    if path.stem.endswith(".registry"):
        return "values-file", ""
    original = parse(path.read_text(), path.suffix)
    try:
        if is_components_file(original):
            main = path.with_name(path.stem.removesuffix("_components") + "_main" + path.suffix)
            again = read_back_pair(binary, main, path)[1]
        elif path.stem.startswith("disaggregated_"):
            components = path.with_name(path.stem.removesuffix("_main") + "_components" + path.suffix)
            again = read_back_pair(binary, path, components)[0]
        else:
            again = read_back_alone(binary, path, original)
    except Exception as e:  # noqa: BLE001 - every failure is reported, and fails the run
        detail = "".join(traceback.format_exception_only(e)) if isinstance(e, RuntimeError) else traceback.format_exc()
        return "FAIL", " ".join(detail.split())[:600]
    if not same_layout(original, again):
        return "FAIL", "pyagentspec wrote back a different document"
    return "ok", ""


def main():
    binary, fixtures, expected_path = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    expected = read_expected(expected_path)
    found = {}
    for path in sorted(p for p in fixtures.iterdir() if p.is_file()):
        outcome, detail = check(binary, path)
        found[path.name] = outcome
        if outcome == "FAIL":
            print(f"FAIL {path.name}: {detail}")
        else:
            print(f"{'ok  ' if outcome == 'ok' else 'skip'} {path.name}" + ("" if outcome == "ok" else f" ({outcome})"))
    changes = outcome_changes(expected, found, expected_path)
    print("\n".join(changes) if changes else f"the {len(found)} files and their outcomes are the ones {expected_path} lists")
    outcomes = list(found.values())
    print(f"{outcomes.count('ok')} passed, {outcomes.count('FAIL')} failed, "
          f"{len(found) - outcomes.count('ok') - outcomes.count('FAIL')} not documents; "
          f"{len(changes)} differences from {expected_path}")
    return 1 if "FAIL" in outcomes or changes else 0


if __name__ == "__main__":
    sys.exit(main())
