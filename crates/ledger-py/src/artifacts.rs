//! `ledger.ChangeSet`: one change and its artifacts' approval sets (core `artifacts`).

use camino::Utf8PathBuf;
use ledger_core::{ArtifactGraph, ChangeSet, DEFAULT_CHANGES_ROOT};
use pyo3::prelude::*;

use crate::args::{PathArg, quoted};
use crate::errors;
use crate::graph::PyArtifactGraph;
use crate::inventory::PyInventory;
use crate::scope::PyScope;

/// One change of a workspace (`<changes_root>/<change>/`) and its artifact
/// graph (default: OpenSpec's spec-driven schema).
#[pyclass(frozen, name = "ChangeSet", module = "ledger")]
pub struct PyChangeSet {
    pub(crate) inner: ChangeSet,
}

#[pymethods]
impl PyChangeSet {
    #[new]
    #[pyo3(signature = (workspace, change, *, changes_root = DEFAULT_CHANGES_ROOT.to_owned(), graph = None))]
    #[pyo3(text_signature = "(workspace, change, *, changes_root='openspec/changes', graph=None)")]
    fn new(
        py: Python<'_>,
        workspace: PathArg,
        change: &str,
        changes_root: String,
        graph: Option<&PyArtifactGraph>,
    ) -> PyResult<Self> {
        let graph = graph.map_or_else(ArtifactGraph::spec_driven, |g| g.inner.clone());
        let workspace = Utf8PathBuf::from(workspace.0);
        let inner = errors::run(py, || {
            ChangeSet::with_root(workspace, change, &changes_root, graph)
        })?;
        Ok(PyChangeSet { inner })
    }

    /// The workspace directory.
    #[getter]
    fn workspace(&self) -> &str {
        self.inner.workspace.as_str()
    }

    /// The change's name.
    #[getter]
    fn change(&self) -> &str {
        &self.inner.change
    }

    /// The directory holding changes, relative to the workspace.
    #[getter]
    fn changes_root(&self) -> &str {
        &self.inner.changes_root
    }

    /// The artifact graph.
    #[getter]
    fn graph(&self) -> PyArtifactGraph {
        PyArtifactGraph {
            inner: self.inner.graph.clone(),
        }
    }

    /// The change directory, relative to the workspace.
    fn directory(&self) -> String {
        self.inner.directory()
    }

    /// The scope of an artifact's approval set, resolved now (a design adds
    /// the materials it links).
    fn scope(&self, py: Python<'_>, artifact: String) -> PyResult<PyScope> {
        let change = self.inner.clone();
        let inner = errors::detached(py, move || change.scope(&artifact))?;
        Ok(PyScope { inner })
    }

    /// Expands an artifact's approval set.
    fn inventory(&self, py: Python<'_>, artifact: String) -> PyResult<PyInventory> {
        let change = self.inner.clone();
        let inventory = errors::detached(py, move || change.inventory(&artifact))?;
        Ok(PyInventory::new(inventory))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let workspace = quoted(py, self.inner.workspace.as_str());
        format!("ChangeSet({workspace}, {})", quoted(py, &self.inner.change))
    }
}
