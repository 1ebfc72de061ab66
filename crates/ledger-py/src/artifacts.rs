//! `ledger.ChangeSet`: one change and its artifacts' approval sets (core `artifacts`).

use camino::Utf8PathBuf;
use ledger_core::{ArtifactGraph, ChangeSet, DEFAULT_CHANGES_ROOT};
use pyo3::prelude::*;

use crate::args::PathArg;
use crate::graph::PyArtifactGraph;
use crate::inventory::PyInventory;
use crate::scope::PyScope;
use crate::{errors, repr};

/// One change of a workspace (`<changes_root>/<change>/`) and its artifact
/// graph (default: OpenSpec's spec-driven schema).
#[pyclass(frozen)]
#[pyo3(name = "ChangeSet", module = "ledger")]
pub struct PyChangeSet {
    /// The workspace directory.
    #[pyo3(get)]
    workspace: String,
    /// The change's name.
    #[pyo3(get)]
    change: String,
    /// The directory holding changes, relative to the workspace.
    #[pyo3(get)]
    changes_root: String,
    /// The artifact graph.
    #[pyo3(get)]
    graph: PyArtifactGraph,
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
        Ok(PyChangeSet {
            workspace: inner.workspace.to_string(),
            change: inner.change.clone(),
            changes_root: inner.changes_root.clone(),
            graph: PyArtifactGraph::from(inner.graph.clone()),
            inner,
        })
    }

    /// The change directory, relative to the workspace.
    fn directory(&self) -> String {
        self.inner.directory()
    }

    /// The scope of an artifact's approval set, resolved now (a design adds
    /// the materials it links).
    fn scope(&self, py: Python<'_>, artifact: String) -> PyResult<PyScope> {
        let change = self.inner.clone();
        errors::detached(py, move || change.scope(&artifact)).map(PyScope::from)
    }

    /// Expands an artifact's approval set.
    fn inventory(&self, py: Python<'_>, artifact: String) -> PyResult<PyInventory> {
        let change = self.inner.clone();
        errors::detached(py, move || change.inventory(&artifact)).map(PyInventory::from)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["workspace", "change"])
    }
}
