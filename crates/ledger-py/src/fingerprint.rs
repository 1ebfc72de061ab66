//! `fingerprint_entries()`, `parse_fingerprint()` (core `fingerprint`) and
//! `normalize_tasks()` (core `normalize`): the v1 format at the byte level.

use std::borrow::Cow;

use ledger_core::{Entry, Fingerprint};
use pyo3::prelude::*;

use crate::{entry, errors};

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

/// The task-checkbox normalization of a Tasks file's bytes: every canonical
/// checked task line (`- [x] 1.2 [area] ...`) reads as unchecked.
#[pyfunction]
pub fn normalize_tasks(py: Python<'_>, data: Vec<u8>) -> PyResult<Cow<'static, [u8]>> {
    let out = errors::detached(py, move || Ok(ledger_core::normalize_tasks(&data)))?;
    Ok(Cow::Owned(out))
}
