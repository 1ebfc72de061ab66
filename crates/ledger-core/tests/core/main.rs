//! The core's integration tests, one binary (linked once) with a module per
//! subject, as `gix-status/tests/status/main.rs` is; the tests of the
//! repository around the crate (`fuzz_corpus`, `vectors_copy`,
//! `door_generated`) stay binaries of their own beside this folder, since the
//! packaged crate leaves their files out (Cargo.toml) and a `mod` here naming
//! one would not compile there.
//!
//! The modules' tests share one process, on parallel threads: a test that
//! measures or sets what is the whole process's (the expansions' progress
//! counts, whether the process met the disk, its threads, its environment)
//! runs in a process of its own (`own_process`), and so do `small_expansion`'s
//! expansions and `store_race`'s workers, which select their test by its path
//! here (`module::test`).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

mod disk;
mod own_process;

mod approvals;
mod digest_cache;
mod disk_helpers;
mod error_catalog;
mod expand;
mod lifecycle;
mod platform_wall;
mod progress;
mod revision;
mod schemas;
mod settings;
mod small_expansion;
mod store_race;
mod store_trust;
mod vectors;
mod vocabulary;
mod walk_memo;
mod wings;

/// Where proptest keeps a module's failing cases: beside its file
/// (`<module>.proptest-regressions`, replayed before new cases), as when each
/// module was a binary of its own. Its default would be
/// `tests/proptest-regressions/<module>.txt`, now that `main.rs` is beside them.
fn regressions() -> Option<Box<dyn proptest::test_runner::FailurePersistence>> {
    Some(Box::new(
        proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
    ))
}
