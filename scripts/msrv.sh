#!/usr/bin/env bash
# Checks that the published crates build, with every feature, on the declared minimum
# supported Rust version (the workspace's `rust-version`), installed through rustup.
set -euo pipefail
cd "$(dirname "$0")/.."
msrv=$(cargo metadata --no-deps --format-version 1 --locked \
  | python3 -c 'import json,sys; print(next(p["rust_version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="agentspec-types"))')
rustup toolchain install "$msrv" --profile minimal --no-self-update >/dev/null 2>&1 \
  || rustup toolchain install "$msrv" --profile minimal --no-self-update
CARGO_TARGET_DIR=target/msrv cargo "+$msrv" check --locked --quiet \
  --workspace --all-features \
  --exclude agentspec-tests --exclude agentspec-spec-first-tests --exclude agentspec-macros-ui-tests
echo "the published crates build on Rust $msrv"
