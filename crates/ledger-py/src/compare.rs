//! `ledger.Comparison` and `ledger.Change`: what changed, path by path (core `compare`).

use ledger_core::{Change, ChangeKind, Comparison, to_pretty_json};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::entry::PyEntry;
use crate::repr;

/// One difference. A path whose mode and content both changed appears twice.
#[pyclass(frozen, eq, get_all, skip_from_py_object)]
#[pyo3(name = "Change", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyChange {
    /// `added`, `removed`, `kind-changed`, `mode-changed` or `content-changed`.
    change: &'static str,
    /// Words for a report: `added`, `kind changed`, ...
    label: &'static str,
    /// The path the change is about.
    path: String,
    /// The entry before (`None` when the path was not in the old set).
    old: Option<PyEntry>,
    /// The entry now.
    new: PyEntry,
}

impl From<&Change> for PyChange {
    fn from(c: &Change) -> Self {
        PyChange {
            change: c.change.as_str(),
            label: c.change.label(),
            path: c.path().to_owned(),
            old: c.old.as_ref().map(PyEntry::from),
            new: PyEntry::from(&c.new),
        }
    }
}

#[pymethods]
impl PyChange {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["change", "path"])
    }
}

/// Is it still the same? `matches` when the fingerprints are identical,
/// otherwise every change with its reason; unchanged paths are counted.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "Comparison", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyComparison {
    /// Whether the fingerprints are identical.
    #[pyo3(get)]
    matches: bool,
    /// The recorded fingerprint.
    #[pyo3(get)]
    old: String,
    /// The fingerprint now.
    #[pyo3(get)]
    new: String,
    /// How many paths are identical in both sets.
    #[pyo3(get)]
    unchanged: usize,
    /// Every change, ascending by path.
    #[pyo3(get)]
    changes: Vec<PyChange>,
    inner: Comparison,
}

impl From<Comparison> for PyComparison {
    fn from(inner: Comparison) -> Self {
        PyComparison {
            matches: inner.matches,
            old: inner.old.to_string(),
            new: inner.new.to_string(),
            unchanged: inner.unchanged,
            changes: inner.changes.iter().map(PyChange::from).collect(),
            inner,
        }
    }
}

#[pymethods]
impl PyComparison {
    /// The changes of one kind (`added`, `removed`, `kind-changed`,
    /// `mode-changed` or `content-changed`; anything else is a `ValueError`).
    fn of_kind(&self, kind: &str) -> PyResult<Vec<PyChange>> {
        let Some(kind) = ChangeKind::ALL.into_iter().find(|k| k.as_str() == kind) else {
            let names = ChangeKind::ALL.map(ChangeKind::as_str).join(", ");
            return Err(PyValueError::new_err(format!(
                "unknown change kind {kind:?}; one of: {names}"
            )));
        };
        Ok(self.inner.of_kind(kind).map(PyChange::from).collect())
    }

    /// The comparison as JSON, exactly as `ledger verify --json` prints it.
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["matches", "old", "new", "unchanged"])
    }
}
