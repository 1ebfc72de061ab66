#!/usr/bin/env bash
# The Python binding's suite, from a clean clone: a venv with pinned tools, the
# package built by maturin and installed, the CLI built for the parity tests,
# clippy on the binding code, the typed API under mypy --strict, then pytest.
# Run from anywhere; `make python-test` runs it from the repository root.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CRATE="$ROOT/crates/ledger-py"
VENV="$CRATE/.venv"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
WHEELS="$TARGET_DIR/wheels"
cd "$ROOT"

step() { printf '\n== %s (%ds)\n' "$*" "$SECONDS"; }

step "venv $VENV"
# Reused between runs; recreated when missing or broken (e.g. python3 changed).
if ! "$VENV/bin/python" -c 'import sys; assert sys.version_info >= (3, 9)' 2>/dev/null; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
fi
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --disable-pip-version-check \
    'maturin==1.16.0' 'pytest==9.2.0' 'mypy==2.4.1' 'mcp==2.3.0'
"$PY" -m maturin --version

# The suite's wheel is a dev build by default: it reuses the workspace tests'
# dependencies (about 40 s instead of four minutes of fat LTO), and the suite
# asserts behaviour, not speed. LEDGER_PY_RELEASE=1 builds it --release, for
# benches/compare.py's Python row. The release wheel as published is built
# (zig, glibc 2.17) and tested by tests/install/wheel.sh. This one is linked
# by the machine's own linker against its own glibc, so it takes the plain
# `linux` tag (`--compatibility linux`): pyproject.toml's manylinux2014 would
# be refused by maturin's check, rightly, and the wheel is never published.
profile=()
[ "${LEDGER_PY_RELEASE:-0}" = 1 ] && profile=(--release)
step "build the wheel (maturin, ${profile[*]:-dev}, with the test hooks) and install it"
# `test-hooks` adds `ledger._ledger._panic`, which test_errors.py needs to
# provoke a real panic; a wheel built for use (tests/install/wheel.sh,
# pyproject.toml's features) never has it.
rm -f "$WHEELS"/ledger_fingerprint-*.whl
"$PY" -m maturin build "${profile[@]}" --locked --features test-hooks \
    --compatibility linux --manifest-path "$CRATE/Cargo.toml" --interpreter "$PY" --out "$WHEELS"
"$PY" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
    "$WHEELS"/ledger_fingerprint-*.whl

step "the CLI for the parity tests, as make rust-test builds it"
# With the test dependencies' features, as `cargo test` resolves them: a plain
# `cargo build -p ledger-cli` resolves ledger-core's dependencies without them
# (either/use_std, getrandom/std) and would compile ledger-core a second time.
cargo test -p ledger-cli --test cli --locked --features ledger-core/fuzzing --no-run
export LEDGER_BIN="$TARGET_DIR/debug/ledger"

step "the pinned OpenSpec CLI for the MCP test's archive (tests/openspec, as make openspec-test installs it)"
if [ ! -x "$ROOT/tests/openspec/node_modules/.bin/openspec" ]; then
    (cd "$ROOT/tests/openspec" && ../../.ci/npm-ci.sh)
fi
export LEDGER_OPENSPEC_BIN="$ROOT/tests/openspec/node_modules/.bin/openspec"

step "clippy on the binding code (feature python, then with the test hooks)"
for features in python test-hooks; do
    PYO3_PYTHON="$PY" cargo clippy -p ledger-py --features "$features" --all-targets --locked -- -D warnings
done

step "mypy --strict: the generated API, the examples and the typed usage file"
# The typed API is generated (ledger/_api.py, from the core's description);
# these are what a user writes against it. tests/test_types.py checks the
# same files and the mistakes mypy must catch.
# A type error does not hide the behaviour tests: pytest runs either way, and
# the script fails at the end.
typed=0
"$PY" -m mypy --strict --no-incremental --cache-dir=/dev/null "$ROOT/examples/recover.py" "$CRATE/tests/typed/use.py" || typed=$?

step "pytest"
# From the crate directory (pyproject.toml's settings), importing the
# installed package: python/ is not on sys.path, so the tests exercise the wheel.
cd "$CRATE"
"$PY" -m pytest tests "$@"
[ "$typed" = 0 ] || { echo "mypy --strict failed (above)" >&2; exit "$typed"; }

step "done"
