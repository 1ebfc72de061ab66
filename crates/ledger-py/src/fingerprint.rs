//! `fingerprint_entries()`, `parse_fingerprint()` (core `fingerprint`) and
//! `normalize_tasks()` (core `normalize`): the v1 format and the task rules
//! at the byte level.

use std::borrow::Cow;

use ledger_core::{Entry, Fingerprint, TaskRule};
use pyo3::prelude::*;

use crate::{args, entry, errors};

/// The fingerprint of entries given in any order, each an `Entry` or a
/// `(path, kind, mode, digest)` tuple. A path given twice is
/// `DuplicateEntryError`; an invalid entry `BadEntryError`.
#[pyfunction]
pub fn fingerprint_entries(py: Python<'_>, entries: &Bound<'_, PyAny>) -> PyResult<String> {
    let entries: Vec<Entry> = (entries.try_iter()?)
        .map(|item| entry::extract(&item?))
        .collect::<PyResult<_>>()?;
    let fp = errors::detached(py, move || ledger_core::fingerprint_entries(entries))?;
    Ok(fp.to_string())
}

/// Checks that `text` is a fingerprint (`sha256:` and 64 lowercase hex
/// digits) and returns it; otherwise `BadFingerprintError`.
#[pyfunction]
pub fn parse_fingerprint(py: Python<'_>, text: &str) -> PyResult<String> {
    let fp = errors::run(py, || text.parse::<Fingerprint>())?;
    Ok(fp.to_string())
}

/// The payload a Tasks file's bytes are hashed as under `rule` (docs/format.md
/// §4): under `task-checkbox-v1` (the default) every canonical checked task
/// (`- [x] 1.2 [area] ...`) unchecked, under `openspec-checkbox` the `x`/`X` of
/// every task OpenSpec counts turned into a space; every other byte kept
/// (`ledger normalize --task-rule`). Another rule is `InvalidArgumentError`.
#[pyfunction]
#[pyo3(signature = (data, rule = TaskRule::default().as_str()))]
#[pyo3(text_signature = "(data, rule='task-checkbox-v1')")]
pub fn normalize_tasks(py: Python<'_>, data: Vec<u8>, rule: &str) -> PyResult<Cow<'static, [u8]>> {
    let rule = args::task_rule(py, rule)?;
    let out = errors::detached(py, move || {
        Ok(ledger_core::normalize_tasks_with(&data, rule))
    })?;
    Ok(Cow::Owned(out))
}
