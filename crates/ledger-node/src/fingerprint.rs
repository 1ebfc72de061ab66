//! The v1 stream for entries given by the caller, and the task-checkbox
//! normalization (docs/format.md).

use napi::Env;
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::entry::Entry;
use crate::error::Failure;
use crate::task::block;

/// The v1 fingerprint of `entries`, in any order: the core sorts them by the
/// UTF-8 bytes of their paths (not by JavaScript's UTF-16 string order) and
/// refuses a path given twice (`duplicate-entry`) or an invalid entry
/// (`bad-entry`).
#[napi]
pub fn fingerprint_entries(env: Env, entries: Vec<Entry>) -> napi::Result<String> {
    block(&env, || {
        let entries = entries
            .iter()
            .map(Entry::to_core)
            .collect::<Result<Vec<_>, Failure>>()?;
        Ok(ledger_core::fingerprint_entries(entries)?.to_string())
    })
}

/// The payload a Tasks file is hashed with: every canonical checked task
/// (`- [x] 1.2 [area] ...`) unchecked, every other byte kept.
#[napi]
pub fn normalize_tasks(env: Env, input: Buffer) -> napi::Result<Buffer> {
    block(&env, || Ok(ledger_core::normalize_tasks(&input).into()))
}
