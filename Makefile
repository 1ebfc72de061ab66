# The single entry point for people and CI. `make test` runs every suite from
# scratch: it needs only the machine's Rust toolchain (later also Python 3 and
# Node.js, whose packages it installs itself).

CARGO ?= cargo

.PHONY: test fmt-check clippy rust-test fmt

test: fmt-check clippy rust-test

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

rust-test:
	$(CARGO) test --workspace --locked

fmt:
	$(CARGO) fmt --all
