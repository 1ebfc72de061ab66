//! The v1 stream for entries given by the caller, and the task-checkbox
//! normalization (docs/format.md).

use napi::Env;
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

use crate::entry::Entry;
use crate::error::Failure;
use crate::scope::parse_rule;
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

/// The payload a Tasks file is hashed with under `options.rule` (docs/format.md
/// §4): under `task-checkbox-v1` (the default) every canonical checked task
/// (`- [x] 1.2 [area] ...`) unchecked, under `openspec-checkbox` the `x`/`X`
/// of every task OpenSpec counts turned into a space; every other byte kept.
#[napi]
pub fn normalize_tasks(
    env: Env,
    input: Buffer,
    options: Option<RuleOptions>,
) -> napi::Result<Buffer> {
    block(&env, || {
        let rule = parse_rule(options.and_then(|o| o.rule).as_deref())?;
        Ok(ledger_core::normalize_tasks_with(&input, rule).into())
    })
}

/// Which Tasks rule applies.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct RuleOptions {
    /// `task-checkbox-v1` (the default) or `openspec-checkbox`.
    #[napi(ts_type = "TaskRule")]
    pub rule: Option<String>,
}
