"""The conformance suite's results (pytest's JUnit XML) against the expected list.

    python scripts/cts_report.py JUNIT.xml tests/cts/expected.tsv [--write] [--partial]

Prints passed / failed / error / skipped per top-level module, beside wayflowcore 26.3.1's
counts on the same suite (tests/cts/suite/PROVENANCE.md). Exits 1 when a case the list says
passes did not pass, or a case that did not pass is not in the list with its cause (every
non-pass is explained). `--write` rewrites the list from these results, keeping the causes
already written; `--partial` (a run of some cases only) checks only the cases that ran.
"""

import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

# wayflowcore 26.3.1 on this suite, with the same two suite fixes, a local PostgreSQL and a
# dummy OpenAI key ("run 3"): passed, failed, error, skipped per module.
WAYFLOWCORE = {
    "agent": (20, 6, 0, 0),
    "clienttools": (31, 0, 0, 0),
    "flows": (81, 18, 0, 0),
    "llms": (10, 6, 0, 0),
    "mcp": (4, 2, 0, 0),
    "remotetools": (29, 3, 0, 0),
    "transforms": (12, 0, 0, 6),
}
OUTCOMES = ("passed", "failed", "error", "skipped")


def results(path):
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        if module.startswith("tests/"):
            module = module[len("tests/") :]
        case_id = f"{module}.py::{case.get('name')}"
        outcome = "passed"
        message = ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = "failed" if child.tag == "failure" else child.tag
                message = (child.get("message") or "").splitlines()[0][:200] if child.get("message") else ""
                break
        out[case_id] = (outcome, message)
    return out


def expected(path):
    listed = {}
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except FileNotFoundError:
        return listed
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        case_id, outcome, *cause = line.split("\t")
        listed[case_id] = (outcome, cause[0] if cause else "")
    return listed


def main():
    junit, listed_path = sys.argv[1], sys.argv[2]
    write = "--write" in sys.argv
    partial = "--partial" in sys.argv
    got = results(junit)
    listed = expected(listed_path)

    per_module = defaultdict(Counter)
    for case_id, (outcome, _) in got.items():
        per_module[case_id.split("/")[0]][outcome] += 1
    print(f"{'module':<12} {'cases':>5}   {'agentspec (p/f/e/s)':<20} {'wayflowcore 26.3.1':<20}")
    totals, wf_totals = Counter(), Counter()
    for module in sorted(per_module):
        c = per_module[module]
        totals.update(c)
        ours = "/".join(str(c[o]) for o in OUTCOMES)
        wf = WAYFLOWCORE.get(module)
        if wf:
            wf_totals.update(dict(zip(OUTCOMES, wf)))
        print(
            f"{module:<12} {sum(c.values()):>5}   {ours:<20} {'/'.join(map(str, wf)) if wf else '-':<20}"
        )
    print(
        f"{'total':<12} {sum(totals.values()):>5}   {'/'.join(str(totals[o]) for o in OUTCOMES):<20} "
        f"{'/'.join(str(wf_totals[o]) for o in OUTCOMES):<20}"
    )

    regressions, unexplained, improved = [], [], []
    for case_id, (outcome, message) in sorted(got.items()):
        was = listed.get(case_id)
        if outcome == "passed":
            if was and was[0] != "passed":
                improved.append(case_id)
            continue
        if was is None or was[0] == "passed":
            (regressions if was else unexplained).append(f"{case_id} ({outcome}: {message})")
        elif not was[1]:
            unexplained.append(f"{case_id} ({outcome}, listed without a cause)")
    missing = [] if partial else [c for c in listed if c not in got]

    if write:
        with open(listed_path, "w", encoding="utf-8") as f:
            f.write(
                "# The conformance suite's cases (scripts/cts.sh): each case, its outcome with the\n"
                "# Rust runtime, and for each case that does not pass, why. A case listed as passed\n"
                "# that fails, or a non-pass without its cause here, fails CI.\n"
            )
            for case_id, (outcome, message) in sorted(got.items()):
                cause = "" if outcome == "passed" else (listed.get(case_id, ("", ""))[1] or f"TODO: {message}")
                f.write(f"{case_id}\t{outcome}" + (f"\t{cause}" if cause else "") + "\n")
        print(f"wrote {listed_path}")
        return 0

    for title, items in (
        ("passed before and not now", regressions),
        ("did not pass, and the list does not say why", unexplained),
        ("in the list and not run", missing),
    ):
        if items:
            print(f"\n{title}:")
            for item in items:
                print(f"  {item}")
    if improved:
        print("\nnow passing (listed as not passing: update the list with CTS_WRITE=1 bash scripts/cts.sh):")
        for item in improved:
            print(f"  {item}")
    return 1 if regressions or unexplained or missing else 0


if __name__ == "__main__":
    sys.exit(main())
