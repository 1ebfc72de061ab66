//! `cargo fuzz run schema_yaml`: see `ledger_core::fuzzing::schema_yaml` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ledger_core::fuzzing::schema_yaml(data));
