#!/usr/bin/env bash
# Differential oracle against the reference SDK: installs pyagentspec 26.3.1 in a venv of
# its own (scripts/.venv), builds `agentspec`, and checks that pyagentspec reads back what
# `agentspec` writes for every corpus document, unchanged: plugin documents and disaggregated
# pairs included (scripts/oracle.py). Each folder's files and their outcomes are listed in
# scripts/expected/oracle-<folder>.txt; any other file, or one missing, fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
source scripts/build.sh
"$venv/bin/python" scripts/oracle.py target/debug/agentspec tests/fixtures/generated \
  scripts/expected/oracle-generated.txt
# The documents pyagentspec writes at its own version, 26.3.1 (scripts/gen-corpus-26_3_1.py).
"$venv/bin/python" scripts/oracle.py target/debug/agentspec tests/fixtures/generated-26_3_1 \
  scripts/expected/oracle-generated-26_3_1.txt

# A document built in code (the README's agent): pyagentspec loads it and writes it back.
target/debug/examples/agent_in_code > target/agent_in_code.json
"$venv/bin/python" scripts/oracle_built.py target/agent_in_code.json
# Components built in code both ways: pyagentspec's constructors and ours infer the same.
target/debug/agentspec-built > target/built.jsonl
"$venv/bin/python" scripts/oracle_built.py --cases target/built.jsonl
