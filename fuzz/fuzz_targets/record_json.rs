//! `cargo fuzz run record_json`: see `ledger_core::fuzzing::record_json` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ledger_core::fuzzing::record_json(data));
