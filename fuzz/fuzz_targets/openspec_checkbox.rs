//! `cargo fuzz run openspec_checkbox`: see `ledger_core::fuzzing::openspec_checkbox` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ledger_core::fuzzing::openspec_checkbox(data));
