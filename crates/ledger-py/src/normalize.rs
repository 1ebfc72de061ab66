//! `normalize_tasks()` (core `normalize`).

use std::borrow::Cow;

use pyo3::prelude::*;

use crate::errors;

/// The task-checkbox normalization of a Tasks file's bytes: every canonical
/// checked task line (`- [x] 1.2 [area] ...`) reads as unchecked.
#[pyfunction]
pub fn normalize_tasks(py: Python<'_>, data: Vec<u8>) -> PyResult<Cow<'static, [u8]>> {
    let out = errors::detached(py, move || Ok(ledger_core::normalize_tasks(&data)))?;
    Ok(Cow::Owned(out))
}
