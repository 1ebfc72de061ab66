//! `ledger.Store` and `ledger.StoreReport` (core `store`).

use camino::Utf8Path;

use ledger_core::{RecordId, Store, StoreReport};
use pyo3::prelude::*;

use crate::args::{PathArg, py_bool, quoted};
use crate::errors;
use crate::scope::json_text;

/// The record store of a workspace (`<workspace>/.ledger`): immutable records
/// and compare-and-swap refs. Creates nothing until something is written.
#[pyclass(frozen, eq, name = "Store", module = "ledger")]
#[derive(PartialEq)]
pub struct PyStore {
    pub(crate) inner: Store,
}

#[pymethods]
impl PyStore {
    /// The store of `workspace` (`Store::open`).
    #[new]
    fn new(workspace: PathArg) -> Self {
        PyStore {
            inner: Store::open(Utf8Path::new(&workspace.0)),
        }
    }

    /// The store in an explicit directory.
    #[staticmethod]
    fn at(root: PathArg) -> Self {
        PyStore {
            inner: Store::at(root.0),
        }
    }

    /// The store's directory.
    #[getter]
    fn root(&self) -> String {
        self.inner.root().to_string()
    }

    /// The record a ref names now (`None` when the ref does not exist).
    fn head(&self, py: Python<'_>, reference: String) -> PyResult<Option<String>> {
        let store = self.inner.clone();
        let head = errors::detached(py, move || store.head(&reference))?;
        Ok(head.map(|id| id.to_string()))
    }

    /// The record ids on a ref, newest first.
    fn history(&self, py: Python<'_>, reference: String) -> PyResult<Vec<String>> {
        let store = self.inner.clone();
        let ids = errors::detached(py, move || store.history(&reference))?;
        Ok(ids.iter().map(ToString::to_string).collect())
    }

    /// Every ref and the record it names, sorted by name.
    fn refs(&self, py: Python<'_>) -> PyResult<Vec<(String, String)>> {
        let store = self.inner.clone();
        let refs = errors::detached(py, move || store.refs())?;
        Ok(refs
            .into_iter()
            .map(|(n, id)| (n, id.to_string()))
            .collect())
    }

    /// A record (header and body, as decoded JSON), checked against its id.
    fn read_record<'py>(&self, py: Python<'py>, id: String) -> PyResult<Bound<'py, PyAny>> {
        let store = self.inner.clone();
        let record = errors::detached(py, move || {
            let id: RecordId = id.parse()?;
            store.read_record::<serde_json::Value>(&id)
        })?;
        let text = json_text(&record);
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Checks the store: orphans, temp files, corrupt records, dangling refs.
    fn check(&self, py: Python<'_>) -> PyResult<PyStoreReport> {
        let store = self.inner.clone();
        let inner = errors::detached(py, move || store.check())?;
        Ok(PyStoreReport { inner })
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Store.at({})", quoted(py, self.inner.root().as_str()))
    }
}

/// What `Store.check()` found.
#[pyclass(frozen, eq, name = "StoreReport", module = "ledger")]
#[derive(PartialEq)]
pub struct PyStoreReport {
    inner: StoreReport,
}

#[pymethods]
impl PyStoreReport {
    /// How many intact records the store holds.
    #[getter]
    fn records(&self) -> usize {
        self.inner.records
    }

    /// Every readable ref `(name, record id)`, sorted by name.
    #[getter]
    fn refs(&self) -> Vec<(String, String)> {
        let refs = self.inner.refs.iter();
        refs.map(|r| (r.name.clone(), r.id.to_string())).collect()
    }

    /// Intact records no ref reaches.
    #[getter]
    fn orphans(&self) -> Vec<String> {
        self.inner.orphans.iter().map(ToString::to_string).collect()
    }

    /// Files left in `tmp/` by interrupted writes.
    #[getter]
    fn temp_files(&self) -> Vec<String> {
        self.inner.temp_files.clone()
    }

    /// `(file, reason)` of every record or ref file that cannot be trusted.
    #[getter]
    fn corrupt(&self) -> Vec<(String, String)> {
        let corrupt = self.inner.corrupt.iter();
        corrupt
            .map(|c| (c.file.clone(), c.reason.clone()))
            .collect()
    }

    /// `(ref, missing record)` of every ref whose chain is broken.
    #[getter]
    fn dangling(&self) -> Vec<(String, String)> {
        let dangling = self.inner.dangling.iter();
        dangling
            .map(|d| (d.reference.clone(), d.missing.to_string()))
            .collect()
    }

    /// No orphan, temp file, corrupt file or dangling ref.
    fn is_clean(&self) -> bool {
        self.inner.is_clean()
    }

    /// The report as JSON, exactly as `ledger store check --json` prints it.
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    fn __repr__(&self) -> String {
        let r = &self.inner;
        format!(
            "StoreReport(records={}, clean={})",
            r.records,
            py_bool(r.is_clean())
        )
    }
}
