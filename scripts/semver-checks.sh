#!/usr/bin/env bash
# Finds breaking changes to the public Rust API before they land: cargo-semver-checks compares
# the published crates of the work tree with a commit that CHANGELOG.md names.
#
#   bash scripts/semver-checks.sh            against the commit up to which the Unreleased
#                                            section lists its breaking changes (its line
#                                            `Breaking changes listed up to commit SHA.`), or,
#                                            without that line, the newest release's commit
#   bash scripts/semver-checks.sh --release  against the commit of the newest release entry
#                                            (`## [X.Y.Z] - DATE (commit SHA)`): every break
#                                            since the release, for writing the next one
#
# Exits 0 when nothing breaks, 100 when cargo-semver-checks reports a break (another non-zero
# code when the tool fails), 2 when CHANGELOG.md names no usable commit.
#
# The version stays 0.1.0 between releases, so the tool takes any change as a minor release
# and fails on every break. To acknowledge a break: add its line, saying how to migrate, to
# the Unreleased section's "Breaking changes and how to migrate", and move its `listed up to`
# commit to the commit that makes the break (a commit cannot name its own hash: commit the
# break, then the CHANGELOG line naming it). `--release` keeps failing on those breaks until
# the release raises the version one major step (0.1.x -> 0.2.0); the new release entry then
# names the released commit, and the `listed up to` line goes.
#
# What it cannot see: proc-macro crates (agentspec-macros: the tool skips them, so the
# attributes #[tool] and #[derive(Component)] accept are not checked), behaviour, documents
# written, diagnostics, CLI flags and exit codes, and changed types of fields, parameters or
# return values (only added, removed or hidden items, traits, variants and the like). Those
# go in the CHANGELOG by hand. A package the baseline commit lacks is skipped: all of it is new.
#
# Installs cargo-semver-checks $SEMVER_CHECKS_VERSION when `cargo semver-checks` is missing or
# another version (about 16 minutes on two cores; a newer toolchain may need a newer pin, when
# its rustdoc JSON is newer than the tool reads). Builds in $CARGO_TARGET_DIR, default
# target/semver (rustdoc JSON of both sides, all features but the tool's "unstable" ones).
set -euo pipefail
cd "$(dirname "$0")/.."

SEMVER_CHECKS_VERSION=0.51.0
# workspace members that are never published
UNPUBLISHED=(agentspec-tests agentspec-spec-first-tests)

mode=listed
case "${1:-}" in
  "") ;;
  --release) mode=release ;;
  *) echo "usage: bash scripts/semver-checks.sh [--release]" >&2; exit 2 ;;
esac

changelog=CHANGELOG.md
if [[ ! -f $changelog ]]; then
  echo "semver-checks: no $changelog: it names the baseline commit" >&2
  exit 2
fi
# the newest release entry: the first `## [X.Y.Z] ... (commit SHA)` heading
release=$(sed -nE 's/^## \[[0-9]+\.[0-9]+\.[0-9]+[^]]*\].*\(commit ([0-9a-f]{40})\).*/\1/p' "$changelog" | head -n 1)
if [[ -z $release ]]; then
  echo "semver-checks: $changelog has no release entry naming its commit" >&2
  echo "  (a heading such as '## [0.1.0] - 2026-11-23 (commit <40-hex sha>)')" >&2
  exit 2
fi
# the Unreleased section's `listed up to commit SHA`, if any
listed=$(awk '/^## \[Unreleased\]/ {on = 1; next} /^## \[/ {on = 0} on' "$changelog" \
  | sed -nE 's/.*listed up to commit ([0-9a-f]{40}).*/\1/p' | head -n 1)

if [[ $mode == listed && -n $listed ]]; then
  base=$listed
  why="the Unreleased section lists the breaking changes up to it"
else
  base=$release
  why="the newest release entry"
fi
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
  echo "semver-checks: commit $base ($why) is not in this clone (a shallow clone? git fetch --unshallow)" >&2
  exit 2
fi
if ! git merge-base --is-ancestor "$base" HEAD; then
  echo "semver-checks: commit $base ($why) is not an ancestor of HEAD" >&2
  exit 2
fi

# the packages to leave out: the unpublished ones, and those the baseline does not have
exclude=()
for name in "${UNPUBLISHED[@]}"; do
  exclude+=(--exclude "$name")
done
while read -r name manifest; do
  if [[ " ${UNPUBLISHED[*]} " == *" $name "* ]]; then
    continue
  fi
  if ! git show "$base:$manifest" 2>/dev/null | grep -qE "^name *= *\"$name\""; then
    echo "semver-checks: $name is not in $base: skipped (everything in it is new)"
    exclude+=(--exclude "$name")
  fi
done < <(cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, os, sys
meta = json.load(sys.stdin)
root = meta["workspace_root"]
for p in meta["packages"]:
    print(p["name"], os.path.relpath(p["manifest_path"], root))
')

if [[ $(cargo semver-checks --version 2>/dev/null) != "cargo-semver-checks $SEMVER_CHECKS_VERSION" ]]; then
  echo "semver-checks: installing cargo-semver-checks $SEMVER_CHECKS_VERSION"
  cargo install cargo-semver-checks --version "$SEMVER_CHECKS_VERSION" --locked
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/semver}"
echo "semver-checks: $(cargo semver-checks --version) against $base ($why)"
status=0
cargo semver-checks --workspace "${exclude[@]}" --baseline-rev "$base" || status=$?
if ((status != 0)); then
  cat >&2 <<EOF
semver-checks: a break, or the check failed (exit $status), against $base.
  A break is acknowledged in CHANGELOG.md: a line under Unreleased, "Breaking changes and how
  to migrate", saying how to migrate, and its "listed up to commit" line moved to the commit
  that makes the break. See this script's header.
EOF
fi
exit "$status"
