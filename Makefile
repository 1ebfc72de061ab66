# The single entry point for people and CI. `make test` runs every suite from
# scratch: it needs the machine's Rust toolchain, Python 3 and Node.js (with npm);
# the packages they need (and the OpenSpec CLI the tests drive) it installs itself.

CARGO ?= cargo

.PHONY: test fmt-check clippy rust-test openspec-test python-test node-test install-test platform-test platforms-full fmt dist

test: fmt-check clippy rust-test openspec-test python-test node-test install-test platform-test

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets --locked --features ledger-core/fuzzing -- -D warnings

rust-test:
	$(CARGO) test --workspace --locked --features ledger-core/fuzzing

# The real OpenSpec CLI (npm, pinned in tests/openspec/package-lock.json)
# driven by crates/ledger-cli/tests/openspec_cli.rs.
openspec-test:
	tests/openspec/run.sh

# Each binding's suite: builds the package from scratch into a local
# environment (a venv, node_modules) and runs its tests against it.
# Every artifact is built once per run. The suites test dev builds (the CLI,
# the wheel and the addon with the test hooks), in target/debug beside
# rust-test's; the published artifacts, the release wheel (install-test) and
# addon (node-test), are built with zig for glibc 2.17 and share their
# compiled dependencies in target/x86_64-unknown-linux-gnu/release.
python-test:
	crates/ledger-py/ci.sh

node-test:
	crates/ledger-node/ci.sh

# Each front door as a user outside the repository gets it (tests/install/):
# the packages' metadata, the packaged ledger-core crate tested unpacked, the
# release wheel in fresh venvs on every CPython 3.9+, the npm tarballs in a
# fresh project under Node and Bun. Reuses the addon node-test built.
install-test:
	python3 tests/install/metadata.py
	tests/install/crate.sh
	tests/install/wheel.sh
	tests/install/npm.sh

# The platforms this machine cannot run, checked as far as it can
# (docs/platforms.md): the CI workflow that runs them linted, and the core
# and CLI clippy-clean for macOS (arm64, x86_64).
platform-test:
	tests/platforms/check.sh

# Everything this machine can run of the other platforms (docs/platforms.md):
# the CLI's test suite with the static musl CLI, the core's and CLI's tests
# under qemu-user for aarch64. Longer than make test's budget allows; run
# before a release.
platforms-full:
	tests/platforms/full.sh

fmt:
	$(CARGO) fmt --all

# Every release artifact for every target (docs/platforms.md) into dist/:
# the CLI archives, the wheels, the npm packages, cross-compiled here with
# zig. Not part of `make test`.
dist:
	.ci/dist.sh
