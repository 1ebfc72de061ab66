//! `cargo fuzz run normalizer`: see `ledger_core::fuzzing::normalizer` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ledger_core::fuzzing::normalizer(data));
