//! `cargo fuzz run markdown`: see `ledger_core::fuzzing::markdown` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ledger_core::fuzzing::markdown(data));
