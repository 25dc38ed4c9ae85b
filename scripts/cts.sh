#!/usr/bin/env bash
# Runs upstream's runtime conformance suite (tests/cts/suite, vendored unchanged but for the
# two suite fixes its PROVENANCE.md lists) against the Rust runtime: the suite loads every
# document through the Python adapter adapters/python/agentspec_rust, which drives
# `agentspec serve` (JSON lines) and runs the suite's Python tools when the runtime calls
# them back. Prints passed, failed and skipped per module, and fails when a case that
# tests/cts/expected.tsv says passes does not, or a case outside that list does not pass.
#
#   bash scripts/cts.sh [PYTEST ARGS...]   (e.g. -k mapnode; the report then covers those)
#
# The binary is target/debug/agentspec unless $AGENTSPEC_BIN names another (it is built
# first when missing). The suite's servers (the scripted LLM on 5006, MCP on 5007, HTTP on
# 5008) are started by its own fixtures; PostgreSQL on 5432 by this script.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source scripts/venv.sh
bin=${AGENTSPEC_BIN:-target/debug/agentspec}
if [[ ! -x $bin ]]; then
  cargo build --locked --quiet -p agentspec-cli
fi
source scripts/pg.sh

# PostgreSQL for the transforms' datastore cases, on localhost:5432 (the port the suite's
# documents name)
pg_start 5432 cts-password
export POSTGRES_DB_USER=postgres POSTGRES_DB_PASSWORD=cts-password POSTGRES_DB_URL=localhost:5432
# the suite writes beside its tests (a generated config): it runs from a copy
cp -r tests/cts/suite "$work/suite"
export AGENTSPEC_BIN=$root/$bin
[[ $bin = /* ]] && export AGENTSPEC_BIN=$bin
export RUNTIME_CLASS_IMPORT_PATH=agentspec_rust.RustAgentSpecLoader
export PYTHONPATH=$root/adapters/python:$work/suite/src
# the scripted LLM stands in for every model the suite names
export LLAMA_API_URL=http://localhost:5006
export LLAMA70BV33_API_URL=http://localhost:5006
export OSS_API_URL=http://localhost:5006
export OPENAI_API_KEY=dummy-offline
cd "$work/suite"
set +e
"$root/$venv/bin/python" -m pytest -p no:cacheprovider -q --timeout=60 \
  --junitxml="$work/junit.xml" -o junit_family=xunit1 "$@" tests > "$work/pytest.log" 2>&1
code=$?
set -e
tail -n 1 "$work/pytest.log"
if [[ $code -ne 0 && $code -ne 1 ]]; then
  cat "$work/pytest.log"
  echo "pytest could not run the suite (exit $code)" >&2
  exit 1
fi
cd "$root"
"$venv/bin/python" scripts/cts_report.py "$work/junit.xml" tests/cts/expected.tsv ${CTS_WRITE:+--write} $([[ $# -gt 0 ]] && echo --partial)
