# The single entry point for people and CI. `make test` runs every suite from
# scratch: it needs only the machine's Rust toolchain (later also Python 3 and
# Node.js, whose packages it installs itself).

CARGO ?= cargo

.PHONY: test fmt-check clippy rust-test python-test node-test fmt

test: fmt-check clippy rust-test python-test node-test

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets --locked --features ledger-core/fuzzing -- -D warnings

rust-test:
	$(CARGO) test --workspace --locked --features ledger-core/fuzzing

# Each binding's suite: builds the package from scratch into a local
# environment (a venv, node_modules) and runs its tests against it.
python-test:
	crates/ledger-py/ci.sh

node-test:
	crates/ledger-node/ci.sh

fmt:
	$(CARGO) fmt --all
