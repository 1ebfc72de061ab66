//! `ledger.Entry`: one inventory entry (core `Entry`).

use ledger_core::Entry;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::args::quoted;
use crate::errors;

/// One path of an inventory: `(path, kind, mode, digest)` with the texts of the
/// fingerprint byte stream — kind `file`, `symlink` or `missing`; mode
/// `100644`, `100755`, `120000` or `-`; digest 64 hex digits or `-`.
///
/// Unpacks like a tuple: `path, kind, mode, digest = entry`.
#[pyclass(frozen, eq, hash, name = "Entry", module = "ledger")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyEntry {
    pub(crate) inner: Entry,
}

impl PyEntry {
    /// The four text fields.
    pub fn parts(&self) -> (String, String, String, String) {
        let e = &self.inner;
        let path = e.path.as_str().to_owned();
        (path, e.kind().into(), e.mode().into(), e.digest_text())
    }
}

/// Wraps a core entry.
pub fn wrap(py: Python<'_>, entry: &Entry) -> PyResult<Py<PyEntry>> {
    Py::new(
        py,
        PyEntry {
            inner: entry.clone(),
        },
    )
}

/// An `Entry`, or any 4-item iterable of texts `(path, kind, mode, digest)`,
/// as a core entry (validated by `Entry::from_parts`).
pub fn extract(py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<Entry> {
    if let Ok(entry) = item.cast::<PyEntry>() {
        return Ok(entry.get().inner.clone());
    }
    let (path, kind, mode, digest): (String, String, String, String) =
        PyTuple::new(py, item.try_iter()?.collect::<PyResult<Vec<_>>>()?)?.extract()?;
    errors::run(py, || Entry::from_parts(&path, &kind, &mode, &digest))
}

#[pymethods]
impl PyEntry {
    /// Builds an entry, refusing any combination the format does not allow.
    #[new]
    fn new(py: Python<'_>, path: &str, kind: &str, mode: &str, digest: &str) -> PyResult<Self> {
        let inner = errors::run(py, || Entry::from_parts(path, kind, mode, digest))?;
        Ok(PyEntry { inner })
    }

    /// Workspace-relative path, `/`-separated.
    #[getter]
    fn path(&self) -> &str {
        self.inner.path.as_str()
    }

    /// `file`, `symlink` or `missing`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    /// `100644`, `100755`, `120000` or `-`.
    #[getter]
    fn mode(&self) -> &'static str {
        self.inner.mode()
    }

    /// SHA-256 of the content (or link target) as 64 hex digits; `-` when missing.
    #[getter]
    fn digest(&self) -> String {
        self.inner.digest_text()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (path, kind, mode, digest) = self.parts();
        PyTuple::new(py, [path, kind, mode, digest])?
            .as_any()
            .try_iter()
            .map(Bound::into_any)
    }

    fn __len__(&self) -> usize {
        4
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let (path, kind, mode, digest) = self.parts();
        let [path, kind, mode, digest] = [path, kind, mode, digest].map(|f| quoted(py, &f));
        format!("Entry(path={path}, kind={kind}, mode={mode}, digest={digest})")
    }
}
