"""Upstream oracle (issue 14, "everything pyagentspec reads, we read"): for every configuration
copied from oracle/agent-spec (tests/fixtures/upstream, see its PROVENANCE.md), pyagentspec
26.3.1 decides whether it loads; for each one it loads, `agentspec check` must exit 0 (warnings
allowed) and `agentspec fmt` must write what pyagentspec writes for the component it loaded
(same value, same key order). For each one it rejects, whether we reject it too is shown.

usage: upstream-oracle.py AGENTSPEC_BINARY FIXTURES_DIR EXPECTED

Every file gets an outcome, and EXPECTED (scripts/expected/upstream-oracle.txt) lists each one,
`<path under FIXTURES_DIR>  <outcome>` a line:
- `loaded`: pyagentspec loads it; `agentspec check` exits 0; `agentspec fmt` (and, for YAML,
  `fmt --to json`) writes what pyagentspec writes.
- `loaded-unversioned`: the same, for a document without `agentspec_version`, except that
  version: pyagentspec reads and writes such a document at its own version, 26.3.1
  (AgentSpecVersionEnum.current_version); we read and write it at the newest version we know,
  26.4.0 (AGENTSPEC_NEWEST; the conformance table: "the newest supported version is
  assumed"). Exactly that one difference, at `/agentspec_version`, is accepted, and only for
  such a document; every other place is compared as for `loaded`.
- `rejected`: pyagentspec rejects it, and `agentspec check` exits 1.
- `rejected-we-load`: pyagentspec rejects it, and `agentspec check` exits 0.
pyagentspec rejects a file when its deserializer raises a validation or deserialization error
(oracle_common.pyagentspec_load); any other exception (an ImportError, a bug in this script) is
an `error`, as is an `agentspec check` that exits with neither 0 nor 1.

Prints one line per file (a failing file: every difference) and a summary; exits 1 when a file
pyagentspec loads fails a check, when a file has an `error`, or when the files and their
outcomes are not exactly the ones EXPECTED lists (a file appears, disappears or changes
outcome).

How each file is given to pyagentspec (the decisions, one per kind of file):
- `.json`, `.yaml`: `AgentSpecDeserializer().from_json` / `from_yaml` on the text as is.
  A document without `agentspec_version` is read by pyagentspec as its current version,
  26.3.1 (with a warning), and written at that version.
- `.json5`: pyagentspec has no JSON5 reader (`from_json` is `json.loads`; upstream's docs only
  show these files with a JSON5 highlighter). They are JSON with `//` comments and trailing
  commas, so both tools get the text with those removed (`strip_json5`), we through a
  temporary `.json` file.
- Redacted secrets (`{"$component_ref": "<id>.<field>"}`): pyagentspec needs their values in
  a components registry; it gets a non-empty placeholder for each (oracle_common), which it
  redacts again on write, as `agentspec fmt` does by default. `agentspec check` runs without
  values (a `missing-secret` warning each).
- Disaggregated configurations (`DISAGGREGATED`): the components file is loaded with
  `import_only_referenced_components=True` and given as the registry of its main document; we
  get it as `--components`. The main document is compared as pyagentspec writes it with the
  same components disaggregated under the same keys; the components file as pyagentspec
  exports them, against `agentspec join` then `agentspec split --component ID=KEY`.
- Plugin components (`PLUGINS`): upstream's plugin example needs `PluginRegexNode`, defined
  in its docs' code, not in pyagentspec. pyagentspec gets a Pydantic plugin declaring a node
  with the file's one extra field, named and versioned as the file names it; we load with
  `--keep-unknown` (plugin components kept as read).
Nothing else is supplied: a file pyagentspec still rejects is "rejected by pyagentspec".

Comparison: values and types must be equal and mappings in the same key order, except the
entries of `$referenced_components` and lists of placeholder properties (`{title, type}`
only), which pyagentspec orders by Python set iteration and which compare as sets (the rule
of oracle_built.py). Every difference is reported, each by its JSON pointer.
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

import yaml
from oracle_common import Rejected, outcome_changes, placeholder_registry, pyagentspec_load, read_expected
from pyagentspec.flows.node import Node
from pyagentspec.serialization import AgentSpecDeserializer, AgentSpecSerializer
from pyagentspec.serialization.pydanticdeserializationplugin import (
    PydanticComponentDeserializationPlugin,
)
from pyagentspec.serialization.pydanticserializationplugin import (
    PydanticComponentSerializationPlugin,
)
from pyagentspec.versioning import AgentSpecVersionEnum

# main document -> its components file (same folder)
DISAGGREGATED = {
    "examples/howto_disaggregated_main_config.json": "examples/howto_disaggregated_component_config.json",
    "examples/howto_disaggregated_main_config.yaml": "examples/howto_disaggregated_component_config.yaml",
}
COMPONENTS_FILES = {c: m for m, c in DISAGGREGATED.items()}

# The version each tool reads a document without `agentspec_version` at, and writes it at.
PYAGENTSPEC_CURRENT = AgentSpecVersionEnum.current_version.value
AGENTSPEC_NEWEST = "26.4.0"


class PluginRegexNode(Node):
    """The node of upstream's plugin example, as the file describes it: one extra field."""

    regex_pattern: str


class DeclaredVersionPlugin(PydanticComponentSerializationPlugin):
    """pyagentspec's Pydantic plugin, writing the plugin version the document declares."""

    def __init__(self, models, version):
        super().__init__(models)
        self.declared_version = version

    @property
    def plugin_version(self):
        return self.declared_version


PLUGINS = {
    "examples/plugin_assistant.json": {"PluginRegexNode": PluginRegexNode},
    "examples/plugin_assistant.yaml": {"PluginRegexNode": PluginRegexNode},
}


def strip_json5(text):
    """JSON5 as upstream writes it -> JSON: `//` and `/* */` comments and commas before a
    closing bracket removed, outside strings."""
    parts, i, n = [], 0, len(text)  # (inside a string?, text)
    while i < n:
        if text[i] == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            parts.append((True, text[i : j + 1]))
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        else:
            parts.append((False, text[i]))
            i += 1
    out, plain = [], []
    for quoted, piece in parts + [(True, "")]:
        if quoted:
            out.append(re.sub(r",(\s*[}\]])", r"\1", "".join(plain)))
            out.append(piece)
            plain = []
        else:
            plain.append(piece)
    return "".join(out)


def parse(text, fmt):
    return json.loads(text) if fmt == "json" else yaml.safe_load(text)


def short(e, width=220):
    return " ".join(str(e).split())[:width]


def plugin_version_of(document):
    """The first `component_plugin_version` a document declares."""
    found = []

    def walk(v):
        if isinstance(v, dict):
            if "component_plugin_version" in v:
                found.append(v["component_plugin_version"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(document)
    return found[0]


def document_version(document):
    """The version pyagentspec reads a document at (deserializationcontext.load_config_dict)."""
    declared = document.get("agentspec_version", document.get("air_version"))
    if declared is None:
        return AgentSpecVersionEnum.current_version
    return AgentSpecVersionEnum("25.4.1" if declared == "25.4.0" else declared)


class Case:
    """One fixture file: how both tools read it, and what each writes back."""

    def __init__(self, root, rel, tmp):
        self.root, self.rel, self.path = root, rel, root / rel
        self.fmt = "yaml" if self.path.suffix == ".yaml" else "json"
        text = self.path.read_text()
        if self.path.suffix == ".json5":
            text = strip_json5(text)
            self.ours_path = Path(tmp) / (self.path.stem + ".json")
            self.ours_path.write_text(text)
        else:
            self.ours_path = self.path
        self.text = text
        self.our_args = []
        self.notes = []
        if rel in DISAGGREGATED:
            self.our_args = ["--components", str(root / DISAGGREGATED[rel])]
        if rel in PLUGINS:
            self.our_args = ["--keep-unknown"]

    # pyagentspec -------------------------------------------------------------------------

    def unversioned(self):
        """Whether the file is a document that declares no version (a components file aside)."""
        document = parse(self.text, self.fmt)
        return (self.rel not in COMPONENTS_FILES and isinstance(document, dict)
                and "agentspec_version" not in document and "air_version" not in document)

    def theirs(self):
        """What pyagentspec writes for what it loaded (raises `Rejected` when it rejects the
        file, anything else when something else goes wrong)."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = self._theirs()
        for w in caught:
            if "Sensitive field" not in str(w.message):
                self.notes.append("pyagentspec warns: " + short(str(w.message).split(". ")[0], 90))
        return result

    def _theirs(self):
        document = parse(self.text, self.fmt)
        if self.rel in COMPONENTS_FILES:
            main = Case(self.root, COMPONENTS_FILES[self.rel], None)
            return main.pyagentspec_disaggregated()[1]
        if self.rel in DISAGGREGATED:
            return self.pyagentspec_disaggregated()[0]
        registry = placeholder_registry(document) or None
        if self.rel in PLUGINS:
            models = PLUGINS[self.rel]
            reader = AgentSpecDeserializer(plugins=[PydanticComponentDeserializationPlugin(models)])
            writer = AgentSpecSerializer(plugins=[DeclaredVersionPlugin(models, plugin_version_of(document))])
        else:
            reader, writer = AgentSpecDeserializer(), AgentSpecSerializer()
        load = reader.from_json if self.fmt == "json" else reader.from_yaml
        component = pyagentspec_load(load, self.text, components_registry=registry)
        return writer.to_dict(component, agentspec_version=document_version(document))

    def pyagentspec_disaggregated(self):
        """(main, components file) as pyagentspec writes them, for a main document."""
        components_path = self.root / DISAGGREGATED[self.rel]
        reader = AgentSpecDeserializer()
        load = reader.from_json if self.fmt == "json" else reader.from_yaml
        registry = pyagentspec_load(load, components_path.read_text(), import_only_referenced_components=True)
        component = pyagentspec_load(load, self.text, components_registry=registry)
        version = document_version(parse(self.text, self.fmt))
        return AgentSpecSerializer().to_dict(
            component,
            agentspec_version=version,
            disaggregated_components=[(c, key) for key, c in registry.items()],
            export_disaggregated_components=True,
        )

    # agentspec ---------------------------------------------------------------------------

    def check(self, binary):
        """(exit code, error diagnostics, warning codes) of `agentspec check`; raises when it
        exits with neither 0 nor 1 or writes no diagnostics (a crash, a usage error)."""
        if self.rel in COMPONENTS_FILES:
            main = self.root / COMPONENTS_FILES[self.rel]
            target, args = main, ["--components", str(self.path)]
        else:
            target, args = self.ours_path, self.our_args
        run = subprocess.run([binary, "check", "--format", "json", *args, str(target)], capture_output=True, text=True)
        if run.returncode not in (0, 1):
            raise RuntimeError(f"agentspec check exit {run.returncode}: {short(run.stderr, 300)}")
        diagnostics = json.loads(run.stdout)
        errors = [f"{d['code']} at {d['pointer'] or '/'}" for d in diagnostics if d["severity"] == "error"]
        warned = sorted({d["code"] for d in diagnostics if d["severity"] != "error"})
        return run.returncode, errors, warned

    def written(self, binary, to=None):
        """What we write back (parsed), or raise with the command's diagnostics."""
        if self.rel in COMPONENTS_FILES:
            return self._written_components_file(binary)
        # pyagentspec drops the keys a component does not define; we keep them by default (a
        # documented choice that loses nothing) and drop them on request, as compared here
        extra = ["--drop-unknown"] + (["--to", to] if to else [])
        run = subprocess.run([binary, "fmt", *self.our_args, *extra, str(self.ours_path)], capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"fmt exit {run.returncode}: {codes(run.stderr)}")
        return parse(run.stdout, to or self.fmt)

    def _written_components_file(self, binary):
        main = self.root / COMPONENTS_FILES[self.rel]
        keys = parse(self.text, self.fmt)["$referenced_components"]
        with tempfile.TemporaryDirectory() as tmp:
            joined = Path(tmp) / ("joined." + self.fmt)
            run = subprocess.run([binary, "join", "--components", str(self.path), str(main)], capture_output=True, text=True)
            if run.returncode != 0:
                raise RuntimeError(f"join exit {run.returncode}: {codes(run.stderr)}")
            joined.write_text(run.stdout)
            moves = [a for key, c in keys.items() for a in ("--component", f"{c['id']}={key}")]
            out_main, out_components = Path(tmp) / ("m." + self.fmt), Path(tmp) / ("c." + self.fmt)
            cmd = [binary, "split", *moves, "--main", str(out_main), "--components-out", str(out_components), str(joined)]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                raise RuntimeError(f"split exit {run.returncode}: {codes(run.stderr)}")
            return parse(out_components.read_text(), self.fmt)


def codes(stderr):
    """The error codes and pointers in the human output of a failed command."""
    found = re.findall(r"error\[([a-z0-9-]+)\][^\n]*?\(at ([^)\n]*)\)", stderr)
    if not found:
        return short(stderr, 160)
    return ", ".join(f"{code} at {at}" for code, at in found[:4])


def placeholder_properties(items):
    return all(isinstance(p, dict) and set(p) == {"title", "type"} for p in items)


def step(pointer, key):
    return f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"


def differences(ours, theirs, pointer="", ordered=True):
    """Every place the two differ, as (JSON pointer, ours, theirs): a key one side lacks, a
    mapping's key order (its keys from the first out of place), a list's length, a value or a
    type; a reference on one side and a component on the other is one difference."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if set(ours) != set(theirs) and ("$component_ref" in ours or "$component_ref" in theirs):
            yield pointer or "/", ours, theirs
            return
        for key in theirs:
            if key not in ours:
                yield step(pointer, key), "<absent>", theirs[key]
        for key in ours:
            if key not in theirs:
                yield step(pointer, key), ours[key], "<absent>"
        common_ours = [k for k in ours if k in theirs]
        common_theirs = [k for k in theirs if k in ours]
        if ordered and common_ours != common_theirs:
            i = next(i for i, (a, b) in enumerate(zip(common_ours, common_theirs)) if a != b)
            yield f"{pointer or '/'} (key order)", common_ours[i:i + 3], common_theirs[i:i + 3]
        for key in common_theirs:
            yield from differences(ours[key], theirs[key], step(pointer, key), key != "$referenced_components")
        return
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            yield f"{pointer} (length)", len(ours), len(theirs)
        if placeholder_properties(ours + theirs):
            ours, theirs = sorted(ours, key=lambda p: p["title"]), sorted(theirs, key=lambda p: p["title"])
        for i, (a, b) in enumerate(zip(ours, theirs)):
            yield from differences(a, b, step(pointer, i))
        return
    if not (ours == theirs and type(ours) is type(theirs)):
        yield pointer or "/", ours, theirs


def show(value):
    return short(json.dumps(value), 100)


def compare(case, binary, theirs):
    """For a file pyagentspec loads: (every way our check and write-back of it fail, empty when
    none; the codes of our warnings; whether every write-back differs at the version, as a
    document without one may, and nowhere else)."""
    reasons = []
    code, errors, warned = case.check(binary)
    if code != 0:
        reasons.append(f"check exit {code}: {', '.join(errors) or 'no error reported'}")
    unversioned = case.unversioned()
    versions = []  # per write-back: whether it had the one version difference accepted
    outputs = [None, "json"] if case.fmt == "yaml" and case.rel not in COMPONENTS_FILES else [None]
    for to in outputs:
        label = "fmt --to json" if to else "fmt"
        try:
            ours = case.written(binary, to)
        except RuntimeError as e:
            reasons.append(f"{label}: {e}")
            continue
        versions.append(False)
        for where, a, b in differences(ours, theirs):
            if unversioned and where == "/agentspec_version" and (a, b) == (AGENTSPEC_NEWEST, PYAGENTSPEC_CURRENT):
                versions[-1] = True
            else:
                reasons.append(f"{label} differs at {where}: ours {show(a)}, pyagentspec {show(b)}")
    if any(versions) and not all(versions):
        reasons.append("the version differs in one write-back only")
    return reasons, warned, bool(versions) and all(versions)


def run_case(case, binary, counts):
    """The outcome of one file, and the lines to print for it."""
    try:
        theirs = case.theirs()
    except Rejected as e:
        code, errors, _ = case.check(binary)
        counts["rejected"] += 1
        counts["we_load_rejected"] += code == 0
        ours = f"agentspec rejects too ({', '.join(errors[:2])})" if code else "agentspec LOADS it"
        return ("rejected" if code else "rejected-we-load"), f"--   {case.rel}: pyagentspec rejects ({short(e, 140)}); {ours}"
    counts["theirs"] += 1
    reasons, warned, version_differs = compare(case, binary, theirs)
    counts["ours"] += not any(r.startswith("check") for r in reasons)
    written_alike = not any(r.startswith(("fmt", "join", "split", "the version")) for r in reasons)
    counts["identical"] += written_alike and not version_differs
    counts["identical_but_version"] += written_alike and version_differs
    extra = "".join(f" [{n}]" for n in dict.fromkeys(case.notes))
    extra += f" [agentspec warns: {', '.join(warned)}]" if warned else ""
    if reasons:
        return "FAIL", f"FAIL {case.rel}:{extra}" + "".join(f"\n       {r}" for r in reasons)
    if version_differs:
        return "loaded-unversioned", (f"ok   {case.rel} [no agentspec_version: we write {AGENTSPEC_NEWEST}, "
                                      f"pyagentspec {PYAGENTSPEC_CURRENT}]{extra}")
    return "loaded", f"ok   {case.rel}{extra}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("fixtures", type=Path)
    parser.add_argument("expected", help="every file and its outcome, `<path>  <outcome>` a line")
    args = parser.parse_args()
    expected = read_expected(args.expected)
    files = sorted(p.relative_to(args.fixtures).as_posix() for p in args.fixtures.rglob("*")
                   if p.suffix in (".json", ".json5", ".yaml"))
    counts = {"theirs": 0, "ours": 0, "identical": 0, "identical_but_version": 0, "rejected": 0, "we_load_rejected": 0}
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rel in files:
            try:
                found[rel], line = run_case(Case(args.fixtures, rel, tmp), args.binary, counts)
            except Exception:  # noqa: BLE001 - not a rejection: reported, and fails the run
                found[rel], line = "error", f"ERROR {rel}: {traceback.format_exc().strip()}"
            print(line)
    changes = outcome_changes(expected, found, args.expected)
    print("\n".join(changes) if changes else f"the {len(found)} files and their outcomes are the ones {args.expected} lists")
    outcomes = list(found.values())
    print(f"{len(files)} files; pyagentspec loads {counts['theirs']}: agentspec check exits 0 on "
          f"{counts['ours']} of them, agentspec fmt writes {counts['identical']} of them as pyagentspec "
          f"writes them and {counts['identical_but_version']} more but for the version of a document "
          f"without one; pyagentspec rejects {counts['rejected']}: agentspec rejects "
          f"{counts['rejected'] - counts['we_load_rejected']} of them, loads {counts['we_load_rejected']}")
    print(f"{outcomes.count('FAIL')} failed, {outcomes.count('error')} errors, "
          f"{len(changes)} differences from {args.expected}")
    return 1 if "FAIL" in outcomes or "error" in outcomes or changes else 0


if __name__ == "__main__":
    sys.exit(main())
