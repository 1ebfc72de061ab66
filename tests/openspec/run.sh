#!/usr/bin/env bash
# `make openspec-test`: install the pinned OpenSpec CLI (package-lock.json) into
# tests/openspec/node_modules and run the integration tests that drive it
# (crates/ledger-cli/tests/openspec_cli.rs, ignored by a plain `cargo test`).
# Needs Node >= 20.19 and npm; fails, never skips, when the CLI is missing.
set -euo pipefail

cd "$(dirname "$0")"
CARGO=${CARGO:-cargo}

# Fails on an engine warning (EBADENGINE): see .ci/npm-ci.sh.
../../.ci/npm-ci.sh
LEDGER_OPENSPEC_BIN="$PWD/node_modules/.bin/openspec"
test -x "$LEDGER_OPENSPEC_BIN" || { echo "openspec-test: $LEDGER_OPENSPEC_BIN is missing after npm ci" >&2; exit 1; }
export LEDGER_OPENSPEC_BIN
# The package's own schemas, which the embedded ones are compared with.
export LEDGER_OPENSPEC_PACKAGE="$PWD/node_modules/@fission-ai/openspec"

cd ../..
# The features of `make rust-test`, so that its build is reused.
# --workspace, as make rust-test builds: with -p alone cargo unifies the
# dependencies' features for ledger-cli only and compiles them all again (a
# minute on a fresh clone).
"$CARGO" test --workspace --test openspec_cli --locked --features ledger-core/fuzzing -- --ignored
