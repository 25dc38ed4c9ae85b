#!/usr/bin/env bash
# Differential oracle for version gates: installs pyagentspec 26.3.1 in the project's venv
# (scripts/.venv), builds `agentspec`, and checks that both accept and reject the same corpus
# documents moved to every other version (plugin documents and disaggregated mains included),
# and the same values newer than their document. The files read and every variant's outcome
# are listed in scripts/expected/version-oracle.txt; any change fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
source scripts/build.sh
"$venv/bin/python" scripts/version-oracle.py target/debug/agentspec tests/fixtures/generated \
  scripts/expected/version-oracle.txt
