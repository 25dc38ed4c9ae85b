#!/usr/bin/env bash
# Spec-first in a user's crate (issue 17), outside the workspace: a small crate implements the
# weather document's tools with agentspec-build in its build script. What a user sees:
# - the crate builds, and its toolbox binds to its document;
# - a warning in the document is a `warning:` of cargo's;
# - a broken document fails the build with its errors at file:line:column;
# - a changed document (an input renamed, an input's type changed, a tool added) fails the
#   build at each place of the `impl` that must change.
# What it costs (clean builds with and without agentspec-build, the rebuild after the document
# changes, the crates in each graph) is timed by `bash scripts/build-timings.sh`, on demand.
#
#   bash scripts/spec-first-user.sh [WORK [TARGET_DIR]]
#
# WORK (default target/spec-first-user) holds the crate; TARGET_DIR (default
# target/outside, which scripts/package-check.sh also builds in) its build output.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$root/target/spec-first-user}"
export CARGO_TARGET_DIR="${2:-$root/target/outside}"
# on the MSRV, as scripts/package-check.sh builds in the same target folder (MSRV=stable: not)
source "$root/scripts/msrv.sh"
rm -rf "$work" && mkdir -p "$work/with/src"
cp "$root/tests/spec-first/fixtures/weather_tools.json" "$work/with/weather.json"
cat > "$work/with/Cargo.toml" <<TOML
[package]
name = "with-spec-first"
version = "0.1.0"
edition = "2024"
[workspace]
[dependencies]
agentspec-types = { path = "$root/agentspec-types" }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
[build-dependencies]
agentspec-build = { path = "$root/agentspec-build" }
TOML
cat > "$work/with/build.rs" <<'RS'
fn main() {
    agentspec_build::Builder::new().document("weather.json").emit("agent.rs");
}
RS
cat > "$work/with/src/lib.rs" <<'RS'
include!(concat!(env!("OUT_DIR"), "/agent.rs"));
use agentspec_types::tool::BoxError;
use weather::tools::{convert, get_weather};

pub struct Tools;

impl weather::Tools for Tools {
    async fn get_weather(&self, args: get_weather::Args) -> Result<get_weather::Output, BoxError> {
        let celsius = if args.city == "Zurich" { 21.0 } else { 15.0 };
        Ok(get_weather::Output { temperature: celsius, unit: get_weather::OutputUnit::Celsius })
    }
    async fn convert(&self, args: convert::Args) -> Result<f64, BoxError> {
        Ok(args.amount * args.rate.unwrap_or(1.0))
    }
}

pub fn toolbox() -> Result<agentspec_types::Toolbox, Box<dyn std::error::Error>> {
    let toolbox = weather::toolbox(Tools)?;
    toolbox.bind(weather::document())?;
    Ok(toolbox)
}
RS
cp "$root/Cargo.lock" "$work/with/Cargo.lock"

echo "-- the crate builds, and its toolbox binds to its document"
cat > "$work/with/src/main.rs" <<'RS'
fn main() {
    let toolbox = with_spec_first::toolbox().expect("binds to its document");
    println!("{} tools bound", toolbox.len());
}
RS
(cd "$work/with" && cargo run --quiet) | grep -qx "2 tools bound" \
  || { echo "the user's crate did not bind its two tools" >&2; exit 1; }
rm "$work/with/src/main.rs"

echo "-- a document with a warning builds, and cargo shows the warning"
python3 - "$work/with/weather.json" <<'PY'
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
doc["tools"][0]["colour"] = "blue"  # a key pyagentspec ignores: a warning
json.dump(doc, open(path, "w"), indent=2)
PY
if ! out=$(cd "$work/with" && cargo build 2>&1); then
  echo "$out"; echo "a document with a warning did not build" >&2; exit 1
fi
grep -q "warning: with-spec-first@0.1.0: weather.json:[0-9]*:[0-9]*: warning\[unknown-field\]" <<<"$out" \
  || { echo "$out"; echo "no cargo warning for the unknown field" >&2; exit 1; }

echo "-- a broken document fails the build with its errors, located"
python3 - "$work/with/weather.json" <<'PY'
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
del doc["llm_config"]["model_id"]
json.dump(doc, open(path, "w"), indent=2)
PY
if out=$(cd "$work/with" && cargo build 2>&1); then
  echo "$out"; echo "a broken document built" >&2; exit 1
fi
grep -q "error\[missing-field\]: " <<<"$out" && grep -q -- "--> weather.json:[0-9]*:[0-9]*" <<<"$out" \
  || { echo "$out"; echo "the build's error does not name the rule and its place" >&2; exit 1; }
grep -B2 -A6 "error\[missing-field\]" <<<"$out" | head -12

echo "-- a changed document fails the build at each place of the impl that must change"
# the second version of the weather tools: get_weather's input `city` is now `place`,
# convert's `amount` is now a string, and a tool `forecast_days` was added
cp "$root/tests/spec-first/fixtures/weather_tools_v2.json" "$work/with/weather.json"
if out=$(cd "$work/with" && cargo build 2>&1); then
  echo "$out"; echo "a changed document went unnoticed" >&2; exit 1
fi
expect() {
  local line
  line=$(grep -m 1 -- "$1" <<<"$out") || { echo "$out"; echo "the build's errors do not say: $1" >&2; exit 1; }
  echo "the build fails: $line"
}
expect "error\[E0609\]: no field \`city\` on type \`[a-z_:]*get_weather::Args\`"
expect "error\[E0369\]: cannot multiply \`[a-z:]*String\` by \`f64\`"
expect "error\[E0046\]: not all trait items implemented, missing: \`forecast_days\`"
