#!/usr/bin/env bash
# Tool interoperability with the reference SDK: the ServerTools and ClientTools that
# #[tool] writes (tests/src/bin/agentspec-tool-interop.rs) load in pyagentspec 26.3.1 and
# equal what pyagentspec writes for the same tools built in Python, and for ours: values, types,
# keys, and key order except where scripts/expected/tool-interop.txt lists both orders exactly.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
source scripts/build.sh
target/debug/agentspec-tool-interop > target/tool-interop.json
"$venv/bin/python" scripts/tool-interop.py target/tool-interop.json scripts/expected/tool-interop.txt
