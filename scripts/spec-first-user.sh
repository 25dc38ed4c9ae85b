#!/usr/bin/env bash
# Spec-first in a user's crate (issue 17), outside the workspace: a small crate implements the
# weather document's tools with agentspec-build in its build script.
# - What it costs: a clean debug build against the same crate without agentspec-build (it
#   only embeds the document), each in a target folder of its own; a rebuild after the
#   document changes; the crates in each graph.
# - What a user sees: a warning in the document is a `warning:` of cargo's; a broken
#   document fails the build with its errors at file:line:column; a tool added to the
#   document fails the build at the `impl`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$root/target/spec-first-user}"
rm -rf "$work" && mkdir -p "$work/with/src" "$work/without/src"
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
sed -e 's/with-spec-first/without-spec-first/' -e '/build-dependencies/,$d' \
  "$work/with/Cargo.toml" > "$work/without/Cargo.toml"
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
cat > "$work/without/src/lib.rs" <<'RS'
pub const JSON: &str = include_str!("../../with/weather.json");
pub fn document() -> agentspec_types::Document {
    agentspec_types::Document::from_json_str(JSON).expect("loads")
}
RS
cp "$root/Cargo.lock" "$work/with/Cargo.lock"
cp "$root/Cargo.lock" "$work/without/Cargo.lock"
seconds() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); python3 -c "print(f'{$e - $s:.1f}')"; }
build() { (cd "$work/$1" && cargo build --quiet); }
echo "clean debug build without agentspec-build: $(seconds build without) s"
echo "clean debug build with agentspec-build:    $(seconds build with) s"
touch "$work/with/weather.json"
echo "rebuild after the document changes:         $(seconds build with) s"
crates() { (cd "$work/$1" && cargo tree --quiet --prefix none -e "$2" | sort -u | wc -l); }
echo "crates: the program's graph $(crates with normal) (without: $(crates without normal)); with the build graph $(crates with normal,build) (without: $(crates without normal,build))"

echo "-- a document with a warning builds, and cargo shows the warning"
python3 - "$work/with/weather.json" <<'PY'
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
doc["tools"][0]["colour"] = "blue"  # a key pyagentspec ignores: a warning
json.dump(doc, open(path, "w"), indent=2)
PY
out=$(cd "$work/with" && cargo build 2>&1)
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

echo "-- a tool added to the document fails the build at the impl"
cp "$root/tests/spec-first/fixtures/weather_tools.json" "$work/with/weather.json"
python3 - "$work/with/weather.json" <<'PY'
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
extra = dict(doc["tools"][1], id="days", name="forecast_days")
doc["tools"].append(extra)
json.dump(doc, open(path, "w"), indent=2)
PY
if out=$(cd "$work/with" && cargo build 2>&1); then
  echo "$out"; echo "a new tool went unnoticed" >&2; exit 1
fi
grep -q "missing: \`forecast_days\`" <<<"$out" || { echo "$out"; exit 1; }
echo "the build fails: not all trait items implemented, missing: \`forecast_days\`"
