//! `cargo fuzz run path`: see `ledger_core::fuzzing::path` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ledger_core::fuzzing::path(data));
