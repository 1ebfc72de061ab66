//! Criterion benchmarks of ledger; the benches themselves are the `[[bench]]`
//! targets of this package (`cargo bench -p ledger-benches`).
