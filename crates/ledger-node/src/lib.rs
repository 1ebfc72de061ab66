//! The native addon of the Node binding: one door into `ledger_core::door`.
//! `call(workspace, verb, optionsJson)` runs a verb on a thread of its own (a
//! Promise of JSON text: a gate may run for minutes, which would hold a libuv
//! pool thread) and `callSync` on the JavaScript thread;
//! `description()` is the JSON the typed API (`api.js`, `index.d.ts`:
//! `Workspace`, `LedgerError`, `ErrorCode`) is generated from. Nothing about a
//! verb, a result type or an error code is written here.
//!
//! ```ts
//! import { Workspace } from 'ledger-fingerprint'
//! const ws = new Workspace('/repo')
//! console.log(await ws.fingerprint({ roots: ['src'] })) // sha256:…
//! const status = await ws.status('add-auth') // status.stateRecord, status.artifacts
//! ```
//!
//! Everything is behind the `napi` feature, which `napi build` turns on: a
//! test binary that uses napi's symbols cannot link outside Node, and
//! `cargo test --workspace` must pass on a machine without it.

// napi-derive registers the exports with Node only outside `cfg(test)`, so in
// the (empty) unit-test build of `--all-targets` every export looks unused.
#![cfg_attr(test, allow(dead_code))]

#[cfg(feature = "napi")]
mod door;
/// Panic hooks for the binding's own tests (feature `test-hooks`, which only
/// `ci.sh` turns on): never part of a release build.
#[cfg(all(feature = "napi", feature = "test-hooks"))]
mod testing;
