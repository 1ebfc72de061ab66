//! `cargo fuzz run digest_cache`: see `ledger_core::fuzzing::digest_cache` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ledger_core::fuzzing::digest_cache(data));
