//! The Node.js binding of ledger: the core model (scopes, inventories,
//! comparisons, records, approvals, the store, gate evidence) as a Promise API
//! whose work runs off the JavaScript thread, each call with a `*Sync` twin.
//!
//! The binding only translates; every rule lives in `ledger-core`. Each module
//! wraps one core concept, and `error.rs` is the one place where a core error
//! (or a panic) becomes a JavaScript `Error` with the core's `code` and `path`.
//!
//! ```ts
//! import { fingerprint, inventory } from 'ledger-fingerprint'
//! console.log(await fingerprint({ workspace: '/repo', roots: ['src'] })) // sha256:…
//! const approved = await inventory({ workspace: '/repo', roots: ['src'] })
//! const { matches, changes } = await approved.compare() // later, after any restart
//! ```
//!
//! Everything is behind the `napi` feature, which `napi build` turns on: a
//! test binary that uses napi's symbols cannot link outside Node, and
//! `cargo test --workspace` must pass on a machine without it.

// napi-derive registers the exports with Node only outside `cfg(test)`, so in
// the (empty) unit-test build of `--all-targets` every export looks unused.
#![cfg_attr(test, allow(dead_code))]

#[cfg(feature = "napi")]
mod approval;
#[cfg(feature = "napi")]
mod cache;
#[cfg(feature = "napi")]
mod compare;
#[cfg(feature = "napi")]
mod door;
#[cfg(feature = "napi")]
mod entry;
#[cfg(feature = "napi")]
mod error;
#[cfg(feature = "napi")]
mod evidence;
#[cfg(feature = "napi")]
mod fingerprint;
#[cfg(feature = "napi")]
mod gate;
#[cfg(feature = "napi")]
mod graph;
#[cfg(feature = "napi")]
mod inventory;
#[cfg(feature = "napi")]
mod json;
#[cfg(feature = "napi")]
mod lifecycle;
#[cfg(feature = "napi")]
mod record;
#[cfg(feature = "napi")]
mod scope;
#[cfg(feature = "napi")]
mod store;
#[cfg(feature = "napi")]
mod task;
#[cfg(feature = "napi")]
mod tasks;
/// Panic hooks for the binding's own tests (feature `test-hooks`, which only
/// `ci.sh` turns on): never part of a release build.
#[cfg(all(feature = "napi", feature = "test-hooks"))]
mod testing;
#[cfg(feature = "napi")]
mod threads;
