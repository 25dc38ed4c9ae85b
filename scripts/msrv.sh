#!/usr/bin/env bash
# Sourced by scripts/package-check.sh and scripts/spec-first-user.sh: installs the declared
# minimum supported Rust version (the workspace's `rust-version`) through rustup and exports
# RUSTC as its compiler, with cargo left as it is. So the packages are checked from their
# tarballs, and the crates outside the workspace built, on the MSRV: that is the MSRV check,
# on every published crate with every feature, and the two scripts share one build of the
# crates of crates.io they have in common. MSRV=stable leaves RUSTC alone.
msrv=${MSRV:-$(cargo metadata --no-deps --format-version 1 --locked \
  --manifest-path "$(dirname "${BASH_SOURCE[0]}")/../Cargo.toml" \
  | python3 -c 'import json,sys; print(next(p["rust_version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="agentspec-types"))')}
if [[ $msrv != stable ]]; then
  rustup toolchain install "$msrv" --profile minimal --no-self-update >/dev/null 2>&1 \
    || rustup toolchain install "$msrv" --profile minimal --no-self-update
  RUSTC=$(rustup which rustc --toolchain "$msrv")
  export RUSTC
fi
echo "building with $("${RUSTC:-rustc}" --version) (MSRV=$msrv)"
