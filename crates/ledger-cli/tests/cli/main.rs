//! The CLI's integration tests, one binary (linked once) with a module per
//! subject, as `gix-status/tests/status/main.rs` is: each drives the built
//! `ledger` binary in sandboxes of its own (`common`). The real OpenSpec CLI's
//! tests are their own binary (`openspec_cli`), run by `make openspec-test`.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

#[path = "../common/mod.rs"]
mod common;

mod approvals;
mod cache_mmap;
mod closed_pipe;
mod copies;
mod declared_gates;
mod gates;
mod git_store_writes;
mod global_options;
mod hints;
mod listing;
mod modules;
mod pass;
mod process_start;
mod progress;
mod resume;
mod sharing;
mod store_locks;
mod store_trust;
mod tasks;
mod verbs;
mod verdicts;
mod verify;
