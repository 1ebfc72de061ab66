#!/usr/bin/env bash
# The Rust front door as a user gets it: `cargo package -p ledger-core`, the
# tarball unpacked outside the repository, and the crate's own tests run there
# (`cargo test`), so the package carries everything its tests read (the
# vectors) and names no crate it does not ship; its tests' one dev-dependency
# of this repository, the test kit, is named from the checkout. Part of
# `make install-test`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CARGO=${CARGO:-cargo}
cd "$ROOT"
step() { printf '== crate: %s (%ds)\n' "$*" "$SECONDS"; }

TARGET_DIR=$("$CARGO" metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
VERSION=$("$CARGO" metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "ledger-core"))')

step "cargo package -p ledger-core"
# --no-verify: the verification build is what `cargo test` below does anyway,
# outside the repository. The only warnings allowed are the three repository
# tests that Cargo.toml excludes on purpose.
log=$(mktemp)
"$CARGO" package -p ledger-core --locked --no-verify --allow-dirty 2>&1 | tee "$log"
if grep '^warning' "$log" | grep -v -e 'ignoring test `fuzz_corpus`' -e 'ignoring test `vectors_copy`' \
  -e 'ignoring test `door_generated`'; then
  echo "crate: unexpected warnings from cargo package" >&2
  exit 1
fi
crate="$TARGET_DIR/package/ledger-core-$VERSION.crate"
printf 'crate: %s, %s bytes\n' "$(basename "$crate")" "$(stat -c %s "$crate")"

step "the package's contents"
listing=$(tar tzf "$crate")
for f in README.md LICENSE-MIT LICENSE-APACHE Cargo.lock tests/vectors/fingerprint-v1.json; do
  grep -qx "ledger-core-$VERSION/$f" <<<"$listing" || { echo "crate: $f is not packaged" >&2; exit 1; }
done
for f in tests/fuzz_corpus.rs tests/vectors_copy.rs tests/door_generated.rs; do
  ! grep -qx "ledger-core-$VERSION/$f" <<<"$listing" || { echo "crate: $f must not be packaged" >&2; exit 1; }
done

step "unpack outside the repository and cargo test there"
work=$(mktemp -d)
trap 'rm -rf "$work" "$log"' EXIT
tar xzf "$crate" -C "$work"
cd "$work/ledger-core-$VERSION"
# Newer than any earlier build: cargo tracks a path package by mtimes, and tar
# restores the sources' old ones, so a test binary built from an earlier
# unpacked copy (its CARGO_MANIFEST_DIR baked in) would otherwise count as fresh.
find . -type f -exec touch {} +
# The packaged manifest names no crate of this workspace (no ledger-* at all):
# a versioned one would resolve to crates.io, where such names are others'.
if grep -n '^\[.*dependencies\.ledger' Cargo.toml; then
  echo "crate: the packaged manifest depends on a ledger-* crate" >&2
  exit 1
fi
# The workspace's target directory: the registry crates built for the
# workspace's own tests are reused where their features agree. sha2 at
# opt-level 3, as the workspace's profile has it (a profile in the package's
# manifest would be ignored inside the workspace, with a warning): the race
# tests hash hundreds of megabytes, ~50x slower unoptimized.
# The test kit (test-only, publish = false) is the repository's: packaging
# drops a path dev-dependency, so it is named again from the checkout, and the
# lock file gains its one dependency offline (every crate is in the local cache).
printf '\n[dev-dependencies.ledger-testkit]\npath = "%s/crates/ledger-testkit"\n' "$ROOT" >>Cargo.toml
# The two property tests of the cache and the walk memo (a minute together)
# ran on these sources in make rust-test; here they would only prove again
# what the rest proves of the package: that its tests build and find what
# they read.
CARGO_TARGET_DIR="$TARGET_DIR" "$CARGO" test --offline \
  --config 'profile.dev.package.sha2.opt-level=3' -- \
  --skip the_cache_never_changes_the_answer --skip a_replayed_walk_never_changes_the_answer
step "done"
