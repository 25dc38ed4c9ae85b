#!/usr/bin/env bash
# What spec-first code costs a user's crate, timed on demand (not in CI: timings are a
# benchmark, not a check; scripts/spec-first-user.sh checks the behaviour). The weather
# crate of scripts/spec-first-user.sh is built clean with agentspec-build in its build
# script, and a crate that only embeds the same document without it, each in a target folder
# of its own; then the rebuild after the document changes; then the crates in each graph.
#
#   bash scripts/build-timings.sh [WORK]     (default target/build-timings; removed after)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$root/target/build-timings}"
rm -rf "$work"
# the crate with agentspec-build, as the behaviour check writes it (its target folder: our own)
MSRV=stable bash "$root/scripts/spec-first-user.sh" "$work" "$work/with-target" > /dev/null
mkdir -p "$work/without/src"
sed -e 's/with-spec-first/without-spec-first/' -e '/build-dependencies/,$d' \
  "$work/with/Cargo.toml" > "$work/without/Cargo.toml"
cat > "$work/without/src/lib.rs" <<'RS'
pub const JSON: &str = include_str!("../../with/weather.json");
pub fn document() -> agentspec_types::Document {
    agentspec_types::Document::from_json_str(JSON).expect("loads")
}
RS
cp "$root/Cargo.lock" "$work/without/Cargo.lock"
cp "$root/tests/spec-first/fixtures/weather_tools.json" "$work/with/weather.json"
# build NAME: a build of the crate NAME in its own target folder, timed; fails when it fails
build() {
  local start end
  start=$(date +%s.%N)
  (cd "$work/$1" && CARGO_TARGET_DIR="$work/$1-target" cargo build --quiet)
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.1f}')"
}
rm -rf "$work/with-target" "$work/without-target"
without=$(build without)
echo "clean debug build without agentspec-build: $without s"
with=$(build with)
echo "clean debug build with agentspec-build:    $with s"
touch "$work/with/weather.json"
echo "rebuild after the document changes:         $(build with) s"
crates() { (cd "$work/$1" && cargo tree --quiet --prefix none -e "$2" | sort -u | wc -l); }
echo "crates: the program's graph $(crates with normal) (without: $(crates without normal)); with the build graph $(crates with normal,build) (without: $(crates without normal,build))"
rm -rf "$work"
