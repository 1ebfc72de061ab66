//! `ledger.Inventory`, `fingerprint()`, `inventory()` and `worktree_root()`
//! (core `inventory`), with the record format of core `record` for
//! `Inventory.to_json` / `from_json` / `read`.

use std::collections::BTreeMap;

use camino::Utf8PathBuf;
use ledger_core::{Inventory, InventoryRecord, Observed, Scope};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args::{self, PathArg, mapping, texts};
use crate::compare::PyComparison;
use crate::entry::PyEntry;
use crate::errors;
use crate::scope::PyScope;

/// An expanded set: its entries in ascending path order, their fingerprint,
/// and the scope as resolved.
///
/// `to_json()` writes an inventory record exactly as `ledger inventory` does;
/// `Inventory.from_json()` / `Inventory.read()` read one strictly.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "Inventory", module = "ledger")]
#[derive(Clone)]
pub struct PyInventory {
    pub(crate) inner: Inventory,
    /// The observed metadata of the record this inventory was read from,
    /// written again by `to_json()` unless replaced.
    observed: Observed,
}

/// Two inventories are equal when they describe the same set: scope, walked
/// roots, entries and fingerprint. The observed metadata is not part of it.
impl PartialEq for PyInventory {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
}

/// An inventory with no observed metadata.
impl From<Inventory> for PyInventory {
    fn from(inner: Inventory) -> Self {
        let observed = Observed::default();
        PyInventory { inner, observed }
    }
}

impl From<InventoryRecord> for PyInventory {
    fn from(record: InventoryRecord) -> Self {
        let observed = record.observed.clone();
        let inner = record.inventory();
        PyInventory { inner, observed }
    }
}

/// Expands `scope` with the GIL released.
fn expand(py: Python<'_>, scope: Scope) -> PyResult<Inventory> {
    errors::detached(py, move || Inventory::expand(&scope))
}

#[pymethods]
impl PyInventory {
    /// Expands a scope: lists candidates as `git ls-files` does, reads every
    /// path without following symlinks and computes the fingerprint.
    #[staticmethod]
    fn expand(py: Python<'_>, scope: &PyScope) -> PyResult<Self> {
        expand(py, scope.inner.clone()).map(PyInventory::from)
    }

    /// The v1 fingerprint, `sha256:<64 hex>`.
    #[getter]
    fn fingerprint(&self) -> String {
        self.inner.fingerprint.to_string()
    }

    /// Every entry, ascending by the UTF-8 bytes of its path.
    #[getter]
    fn entries(&self) -> Vec<PyEntry> {
        self.inner.entries.iter().map(PyEntry::from).collect()
    }

    /// The scope as resolved: absolute workspace, default repository filled in.
    #[getter]
    fn scope(&self) -> PyScope {
        PyScope::from(self.inner.scope.clone())
    }

    /// Roots outside every repository, walked in full.
    #[getter]
    fn walked_roots(&self) -> Vec<String> {
        self.inner.walked_roots.clone()
    }

    /// The observed metadata `(command, tools, meta)` stored with the record.
    #[getter]
    fn observed(
        &self,
    ) -> (
        Vec<String>,
        BTreeMap<String, String>,
        BTreeMap<String, String>,
    ) {
        let o = self.observed.clone();
        (o.command, o.tools, o.meta)
    }

    /// Re-expands the scope plus every path this inventory held (a vanished
    /// file shows as `removed`, a new one as `added`) and compares, as
    /// `ledger verify` does. `workspace` re-roots the scope (a moved checkout).
    #[pyo3(signature = (workspace = None))]
    fn compare(&self, py: Python<'_>, workspace: Option<PathArg>) -> PyResult<PyComparison> {
        let inventory = match workspace {
            Some(dir) => self.inner.clone().relocate(dir.0),
            None => self.inner.clone(),
        };
        errors::detached(py, move || inventory.compare()).map(PyComparison::from)
    }

    /// The inventory record (JSON, ending with a newline) `ledger inventory`
    /// writes. `meta`, `tools` and `command` replace the observed metadata
    /// (by default the metadata read with the record, if any).
    #[pyo3(signature = (*, meta = None, tools = None, command = None))]
    fn to_json(
        &self,
        meta: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
        command: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let text = |v: &Bound<'_, PyAny>| v.extract::<String>();
        let mut observed = self.observed.clone();
        if let Some(meta) = meta {
            observed.meta = mapping(meta, text)?;
        }
        if let Some(tools) = tools {
            observed.tools = mapping(tools, text)?;
        }
        if let Some(command) = command {
            observed.command = texts(command, "an argument of the observed command")?;
        }
        Ok(InventoryRecord::new(self.inner.clone(), observed).to_json())
    }

    /// Reads an inventory record, refusing another format or major version,
    /// invalid fields, and entries that do not reproduce the fingerprint.
    /// `source` names the record in errors.
    #[staticmethod]
    #[pyo3(signature = (text, source = "<string>"))]
    fn from_json(py: Python<'_>, text: &str, source: &str) -> PyResult<Self> {
        // Parsing re-hashes every entry: worth releasing the GIL for a large record.
        let (text, source) = (text.to_owned(), source.to_owned());
        let record = errors::detached(py, move || InventoryRecord::from_json(&text, &source))?;
        Ok(PyInventory::from(record))
    }

    /// Reads an inventory record file (see `from_json`).
    #[staticmethod]
    fn read(py: Python<'_>, path: PathArg) -> PyResult<Self> {
        let path = Utf8PathBuf::from(path.0);
        let record = errors::detached(py, move || InventoryRecord::read(&path))?;
        Ok(PyInventory::from(record))
    }

    fn __len__(&self) -> usize {
        self.inner.entries.len()
    }

    fn __repr__(&self) -> String {
        let (fp, n) = (self.inner.fingerprint, self.inner.entries.len());
        format!("Inventory({fp}, {n} entries)")
    }
}

/// The v1 fingerprint (`sha256:<hex>`) of a scope: the Python twin of
/// `ledger fingerprint --workspace WORKSPACE ...`, with the keywords of `Scope()`.
///
/// The workspace is exactly `workspace` (default: the current directory); the
/// CLI's default is the top of the enclosing checkout, `worktree_root()`.
#[pyfunction]
#[pyo3(signature = (workspace = PathArg::dot(), **scope))]
#[pyo3(text_signature = "(workspace='.', **scope)")]
pub fn fingerprint(
    py: Python<'_>,
    workspace: PathArg,
    scope: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let inventory = inventory(py, workspace, scope)?;
    Ok(inventory.inner.fingerprint.to_string())
}

/// The inventory of a scope (see `fingerprint`): the Python twin of
/// `ledger entries --json --workspace WORKSPACE ...`.
#[pyfunction]
#[pyo3(signature = (workspace = PathArg::dot(), **scope))]
#[pyo3(text_signature = "(workspace='.', **scope)")]
pub fn inventory(
    py: Python<'_>,
    workspace: PathArg,
    scope: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyInventory> {
    expand(py, args::scope(py, workspace, scope)?).map(PyInventory::from)
}

/// The top of the Git worktree containing `path` (the CLI's default
/// workspace), or `None` outside Git.
#[pyfunction]
pub fn worktree_root(py: Python<'_>, path: PathArg) -> PyResult<Option<String>> {
    let dir = std::path::PathBuf::from(path.0);
    let root = errors::detached(py, move || ledger_core::worktree_root(&dir))?;
    root.map(|p| args::utf8(py, p)).transpose()
}
