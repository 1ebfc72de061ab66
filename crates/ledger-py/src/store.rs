//! `ledger.Store` and `ledger.StoreReport` (core `store`).

use camino::Utf8Path;
use ledger_core::{RecordId, Store, StoreReport, to_pretty_json};
use pyo3::prelude::*;

use crate::args::PathArg;
use crate::{errors, repr};

/// The record store of a workspace (`<workspace>/.ledger`): immutable records
/// and compare-and-swap refs. Creates nothing until something is written.
#[pyclass(frozen, eq)]
#[pyo3(name = "Store", module = "ledger")]
#[derive(PartialEq)]
pub struct PyStore {
    /// The store's directory.
    #[pyo3(get)]
    root: String,
    pub(crate) inner: Store,
}

impl From<Store> for PyStore {
    fn from(inner: Store) -> Self {
        let root = inner.root().to_string();
        PyStore { root, inner }
    }
}

/// Record ids as text.
fn ids(ids: &[RecordId]) -> Vec<String> {
    ids.iter().map(ToString::to_string).collect()
}

#[pymethods]
impl PyStore {
    /// The store of `workspace` (`Store::open`).
    #[new]
    fn new(workspace: PathArg) -> Self {
        PyStore::from(Store::open(Utf8Path::new(&workspace.0)))
    }

    /// The store in an explicit directory.
    #[staticmethod]
    fn at(root: PathArg) -> Self {
        PyStore::from(Store::at(root.0))
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
        errors::detached(py, move || store.history(&reference)).map(|h| ids(&h))
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
            store.read_record::<serde_json::Value>(&id.parse()?)
        })?;
        py.import("json")?
            .call_method1("loads", (to_pretty_json(&record),))
    }

    /// Checks the store: orphans, temp files, corrupt records, dangling refs.
    fn check(&self, py: Python<'_>) -> PyResult<PyStoreReport> {
        let store = self.inner.clone();
        errors::detached(py, move || store.check()).map(PyStoreReport::from)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["root"])
    }
}

/// What `Store.check()` found.
#[pyclass(frozen, eq)]
#[pyo3(name = "StoreReport", module = "ledger")]
#[derive(PartialEq)]
pub struct PyStoreReport {
    /// How many intact records the store holds.
    #[pyo3(get)]
    records: usize,
    /// Every readable ref `(name, record id)`, sorted by name.
    #[pyo3(get)]
    refs: Vec<(String, String)>,
    /// Intact records no ref reaches.
    #[pyo3(get)]
    orphans: Vec<String>,
    /// Files left in `tmp/` by interrupted writes.
    #[pyo3(get)]
    temp_files: Vec<String>,
    /// `(file, reason)` of every record or ref file that cannot be trusted.
    #[pyo3(get)]
    corrupt: Vec<(String, String)>,
    /// `(ref, missing record)` of every ref whose chain is broken.
    #[pyo3(get)]
    dangling: Vec<(String, String)>,
    /// `(bytes, files, intact)` of the digest cache, or `None` when there is none.
    #[pyo3(get)]
    cache: Option<(u64, u64, bool)>,
    inner: StoreReport,
}

impl From<StoreReport> for PyStoreReport {
    fn from(inner: StoreReport) -> Self {
        PyStoreReport {
            records: inner.records,
            refs: (inner.refs.iter())
                .map(|r| (r.name.clone(), r.id.to_string()))
                .collect(),
            orphans: ids(&inner.orphans),
            temp_files: inner.temp_files.clone(),
            corrupt: (inner.corrupt.iter())
                .map(|c| (c.file.clone(), c.reason.clone()))
                .collect(),
            dangling: (inner.dangling.iter())
                .map(|d| (d.reference.clone(), d.missing.to_string()))
                .collect(),
            cache: (inner.cache.as_ref()).map(|c| (c.bytes, c.entries, c.intact)),
            inner,
        }
    }
}

#[pymethods]
impl PyStoreReport {
    /// No orphan, temp file, corrupt file or dangling ref.
    fn is_clean(&self) -> bool {
        self.inner.is_clean()
    }

    /// The report as JSON, exactly as `ledger store check --json` prints it.
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["records", "orphans", "corrupt", "dangling"])
    }
}
