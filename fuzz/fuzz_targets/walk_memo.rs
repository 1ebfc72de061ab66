//! `cargo fuzz run walk_memo`: see `ledger_core::fuzzing::walk_memo` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ledger_core::fuzzing::walk_memo(data));
