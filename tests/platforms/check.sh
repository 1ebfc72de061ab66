#!/usr/bin/env bash
# `make platform-test`: what make test checks of the platforms this machine
# cannot run (docs/platforms.md), within its budget of three minutes:
#   - the CI workflow that runs them, linted (lint-workflows.mjs);
#   - the core and the CLI, with every target of their tests, clippy-clean
#     with -D warnings for aarch64-apple-darwin and x86_64-apple-darwin (the
#     platform layer's macOS file is compiled and linted here; nothing is
#     linked, so no macOS SDK is needed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/platforms"
CARGO=${CARGO:-cargo}
step() { printf '== platforms: %s (%ds)\n' "$*" "$SECONDS"; }

step "npm ci in tests/platforms (the linters, pinned)"
(cd "$HERE" && "$ROOT/.ci/npm-ci.sh")
step "lint .github/workflows"
node "$HERE/lint-workflows.mjs"

step "rustup: the standard library of the macOS targets"
rustup target add aarch64-apple-darwin x86_64-apple-darwin
for target in aarch64-apple-darwin x86_64-apple-darwin; do
  step "clippy -D warnings, $target"
  "$CARGO" clippy -p ledger-core -p ledger-cli --all-targets --locked --features ledger-core/fuzzing \
    --target "$target" --manifest-path "$ROOT/Cargo.toml" -- -D warnings
done
step "done"
