//! `fingerprint_entries()` and `parse_fingerprint()` (core `fingerprint`).

use ledger_core::{Entry, Fingerprint, fingerprint_entries as core_fingerprint_entries};
use pyo3::prelude::*;

use crate::entry;
use crate::errors;

/// The fingerprint of entries given in any order, each an `Entry` or a
/// `(path, kind, mode, digest)` tuple. A path given twice is
/// `DuplicateEntryError`; an invalid entry `BadEntryError`.
#[pyfunction]
pub fn fingerprint_entries(py: Python<'_>, entries: &Bound<'_, PyAny>) -> PyResult<String> {
    let entries: Vec<Entry> = entries
        .try_iter()?
        .map(|item| entry::extract(py, &item?))
        .collect::<PyResult<_>>()?;
    let fp = errors::detached(py, move || core_fingerprint_entries(entries))?;
    Ok(fp.to_string())
}

/// Checks that `text` is a fingerprint (`sha256:` and 64 lowercase hex
/// digits) and returns it; otherwise `BadFingerprintError`.
#[pyfunction]
pub fn parse_fingerprint(py: Python<'_>, text: &str) -> PyResult<String> {
    let fp = errors::run(py, || text.parse::<Fingerprint>())?;
    Ok(fp.to_string())
}
