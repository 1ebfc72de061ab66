# The single entry point for people and CI. `make test` runs every suite from
# scratch: it needs the machine's Rust toolchain, Python 3 and Node.js (with npm);
# the packages they need (and the OpenSpec CLI the tests drive) it installs itself.

CARGO ?= cargo

# The suites that build release artifacts (the addon, the wheel) build them
# with thin LTO and parallel code generation: the same code, packaged the same
# way, in a third of the time of the published profile's fat LTO and one
# codegen unit (whose only purpose is speed, measured by benches/compare.py on
# the release profile as it is).
PACKAGE_BUILD = CARGO_PROFILE_RELEASE_LTO=thin CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16

.PHONY: test fmt-check clippy rust-test openspec-test python-test node-test install-test fmt

test: fmt-check clippy rust-test openspec-test python-test node-test install-test

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
python-test:
	$(PACKAGE_BUILD) crates/ledger-py/ci.sh

node-test:
	$(PACKAGE_BUILD) crates/ledger-node/ci.sh

# Each front door as a user outside the repository gets it (tests/install/):
# the packages' metadata, the packaged ledger-core crate tested unpacked, the
# release wheel in fresh venvs on every CPython 3.9+, the npm tarballs in a
# fresh project under Node and Bun. Reuses the addon node-test built.
install-test:
	python3 tests/install/metadata.py
	tests/install/crate.sh
	$(PACKAGE_BUILD) tests/install/wheel.sh
	$(PACKAGE_BUILD) tests/install/npm.sh

fmt:
	$(CARGO) fmt --all
