//! `ledger.Entry`: one inventory entry (core `Entry`).

use ledger_core::Entry;
use pyo3::prelude::*;
use pyo3::types::{PyIterator, PyTuple};

use crate::{errors, repr};

/// One path of an inventory: `(path, kind, mode, digest)` with the texts of the
/// fingerprint byte stream — kind `file`, `symlink` or `missing`; mode
/// `100644`, `100755`, `120000` or `-`; digest 64 hex digits or `-`.
///
/// Unpacks like a tuple: `path, kind, mode, digest = entry`.
#[pyclass(frozen, eq, hash, get_all, skip_from_py_object)]
#[pyo3(name = "Entry", module = "ledger")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyEntry {
    /// Workspace-relative path, `/`-separated.
    path: String,
    /// `file`, `symlink` or `missing`.
    kind: &'static str,
    /// `100644`, `100755`, `120000` or `-`.
    mode: &'static str,
    /// SHA-256 of the content (or link target) as 64 hex digits; `-` when missing.
    digest: String,
}

impl From<&Entry> for PyEntry {
    fn from(e: &Entry) -> Self {
        let path = e.path.as_str().to_owned();
        let (kind, mode, digest) = (e.kind(), e.mode(), e.digest_text());
        PyEntry {
            path,
            kind,
            mode,
            digest,
        }
    }
}

/// An `Entry`, or any 4-item iterable of texts `(path, kind, mode, digest)`,
/// as a core entry (validated by `Entry::from_parts`).
pub fn extract(item: &Bound<'_, PyAny>) -> PyResult<Entry> {
    let py = item.py();
    let parts = item.try_iter()?.collect::<PyResult<Vec<_>>>()?;
    let (path, kind, mode, digest): (String, String, String, String) =
        PyTuple::new(py, parts)?.extract()?;
    errors::run(py, || Entry::from_parts(&path, &kind, &mode, &digest))
}

#[pymethods]
impl PyEntry {
    /// Builds an entry, refusing any combination the format does not allow.
    #[new]
    fn new(py: Python<'_>, path: &str, kind: &str, mode: &str, digest: &str) -> PyResult<Self> {
        let entry = errors::run(py, || Entry::from_parts(path, kind, mode, digest))?;
        Ok(PyEntry::from(&entry))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        let parts = [self.path.as_str(), self.kind, self.mode, &self.digest];
        PyTuple::new(py, parts)?.as_any().try_iter()
    }

    fn __len__(&self) -> usize {
        4
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["path", "kind", "mode", "digest"])
    }
}
