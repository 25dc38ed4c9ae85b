#!/usr/bin/env bash
# Upstream oracle (issue 14): every configuration copied from oracle/agent-spec
# (tests/fixtures/upstream) that pyagentspec 26.3.1 loads must pass `agentspec check` and be
# written back by `agentspec fmt` as pyagentspec writes it (a document without
# `agentspec_version` at our newest version, 26.4.0, where pyagentspec writes its own, 26.3.1:
# that one difference, nothing else). Installs pyagentspec in the project's venv (scripts/.venv)
# and builds `agentspec`. Every file's outcome (loaded or rejected by each tool) is listed in
# scripts/expected/upstream-oracle.txt; any change fails. Takes no arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 0 ]; then
  echo "usage: bash scripts/upstream-oracle.sh (no arguments: the outcomes expected are scripts/expected/upstream-oracle.txt)" >&2
  exit 2
fi

source scripts/venv.sh
source scripts/build.sh
"$venv/bin/python" scripts/upstream-oracle.py target/debug/agentspec tests/fixtures/upstream \
  scripts/expected/upstream-oracle.txt
