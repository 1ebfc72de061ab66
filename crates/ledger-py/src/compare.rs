//! `ledger.Comparison` and `ledger.Change`: what changed, path by path (core `compare`).

use ledger_core::{Change, ChangeKind, Comparison};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::args::{py_bool, quoted};
use crate::entry::{self, PyEntry};
use crate::scope::json_text;

/// One difference. A path whose mode and content both changed appears twice.
#[pyclass(frozen, eq, name = "Change", module = "ledger")]
#[derive(PartialEq)]
pub struct PyChange {
    pub(crate) inner: Change,
}

#[pymethods]
impl PyChange {
    /// `added`, `removed`, `kind-changed`, `mode-changed` or `content-changed`.
    #[getter]
    fn change(&self) -> &'static str {
        self.inner.change.as_str()
    }

    /// Words for a report: `added`, `kind changed`, ...
    #[getter]
    fn label(&self) -> &'static str {
        self.inner.change.label()
    }

    /// The path the change is about.
    #[getter]
    fn path(&self) -> &str {
        self.inner.path()
    }

    /// The entry before (`None` when the path was not in the old set).
    #[getter]
    fn old(&self, py: Python<'_>) -> PyResult<Option<Py<PyEntry>>> {
        self.inner
            .old
            .as_ref()
            .map(|e| entry::wrap(py, e))
            .transpose()
    }

    /// The entry now.
    #[getter(new)]
    fn new_entry(&self, py: Python<'_>) -> PyResult<Py<PyEntry>> {
        entry::wrap(py, &self.inner.new)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let path = quoted(py, self.inner.path());
        format!("Change('{}', {path})", self.inner.change.as_str())
    }
}

/// Is it still the same? `matches` when the fingerprints are identical,
/// otherwise every change with its reason; unchanged paths are counted.
#[pyclass(frozen, eq, name = "Comparison", module = "ledger")]
#[derive(PartialEq)]
pub struct PyComparison {
    pub(crate) inner: Comparison,
}

#[pymethods]
impl PyComparison {
    /// Whether the fingerprints are identical.
    #[getter]
    fn matches(&self) -> bool {
        self.inner.matches
    }

    /// The recorded fingerprint.
    #[getter]
    fn old(&self) -> String {
        self.inner.old.to_string()
    }

    /// The fingerprint now.
    #[getter(new)]
    fn new_fingerprint(&self) -> String {
        self.inner.new.to_string()
    }

    /// How many paths are identical in both sets.
    #[getter]
    fn unchanged(&self) -> usize {
        self.inner.unchanged
    }

    /// Every change, ascending by path.
    #[getter]
    fn changes(&self) -> Vec<PyChange> {
        let changes = self.inner.changes.iter().cloned();
        changes.map(|inner| PyChange { inner }).collect()
    }

    /// The changes of one kind (`added`, `removed`, `kind-changed`,
    /// `mode-changed` or `content-changed`; anything else is a `ValueError`).
    fn of_kind(&self, kind: &str) -> PyResult<Vec<PyChange>> {
        let Some(kind) = ChangeKind::ALL.into_iter().find(|k| k.as_str() == kind) else {
            let names = ChangeKind::ALL.map(ChangeKind::as_str).join(", ");
            return Err(PyValueError::new_err(format!(
                "unknown change kind {kind:?}; one of: {names}"
            )));
        };
        let changes = self.inner.of_kind(kind).cloned();
        Ok(changes.map(|inner| PyChange { inner }).collect())
    }

    /// The comparison as JSON, exactly as `ledger verify --json` prints it.
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "Comparison(matches={}, changes={}, unchanged={})",
            py_bool(self.inner.matches),
            self.inner.changes.len(),
            self.inner.unchanged
        )
    }
}
