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
work=$(mktemp -d)
pg_ctl=
cleanup() {
  if [[ -n $pg_ctl ]]; then $as_pg "$pg_ctl" -D "$work/pg" -m immediate stop > /dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# PostgreSQL for the transforms' datastore cases: Debian's package (installed when missing),
# a throwaway cluster in $work on localhost:5432 (the port the suite's documents name)
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1 || true)
if [[ -z $pg_bin ]]; then
  echo "installing PostgreSQL (Debian's package)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql > /dev/null 2>&1 \
    || { apt-get update -qq > /dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql > /dev/null; }
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  # the package may have started its own cluster on 5432: this script's cluster needs the port
  pg_lsclusters -h 2> /dev/null | while read -r version name _ status _; do
    if [[ $status == online ]]; then pg_ctlcluster "$version" "$name" stop || true; fi
  done
fi
as_pg=
if [[ $(id -u) -eq 0 ]]; then as_pg="runuser -u postgres --"; fi
chmod 755 "$work"
mkdir "$work/pg"
[[ -n $as_pg ]] && chown postgres "$work/pg"
echo cts-password > "$work/pg.pw"
[[ -n $as_pg ]] && chown postgres "$work/pg.pw"
$as_pg "$pg_bin/initdb" -D "$work/pg" -U postgres --auth=md5 --pwfile="$work/pg.pw" > "$work/initdb.log" 2>&1 \
  || { cat "$work/initdb.log"; exit 1; }
pg_ctl=$pg_bin/pg_ctl
$as_pg "$pg_ctl" -D "$work/pg" -o "-c listen_addresses=localhost -p 5432 -k $work/pg" \
  -l "$work/pg/server.log" -w start > /dev/null \
  || { cat "$work/pg/server.log"; echo "PostgreSQL did not start on localhost:5432 (is the port taken?)" >&2; exit 1; }
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
