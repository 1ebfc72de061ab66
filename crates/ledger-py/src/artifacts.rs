//! `ledger.ChangeSet`: one change, its artifacts' approval sets and its tracked
//! Tasks file (core `artifacts`, `tasks`).

use camino::Utf8PathBuf;
use ledger_core::{ArtifactGraph, ChangeSet, DEFAULT_CHANGES_ROOT, Error, Store};
use pyo3::prelude::*;

use crate::args::{self, PathArg};
use crate::graph::PyArtifactGraph;
use crate::inventory::PyInventory;
use crate::scope::PyScope;
use crate::store::PyStore;
use crate::tasks::PyChangeTasks;
use crate::{errors, repr};

/// One change of a workspace (`<changes_root>/<change>/`) and its artifact
/// graph: of `schema` (a name, `openspec/schemas/<name>/schema.yaml` else built
/// in, or a path to a `schema.yaml`), or of `graph`, else of the schema the
/// change declares (its `.openspec.yaml`, else `openspec/config.yaml`, else
/// spec-driven; docs/approvals.md, Schemas). `task_rule` chooses the rule of the
/// tracked Tasks file (the CLI's `--task-rule`).
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
    /// The change's rule for the tracked Tasks file: the one given, else the
    /// schema's `ledger.task_rule`, else the project's `openspec/config.yaml`
    /// `ledger.task_rule`, else `task-checkbox-v1`. Without one given,
    /// `tasks()`, `approve()` and `advance_state()` prefer the rule the `tasks`
    /// approval recorded.
    #[pyo3(get)]
    task_rule: &'static str,
    pub(crate) inner: ChangeSet,
}

/// Where a change's graph comes from: a `schema=` request, a `graph=` built in
/// Python, or (neither) the schema the change declares.
fn open(
    workspace: Utf8PathBuf,
    change: &str,
    changes_root: &str,
    schema: Option<&str>,
    graph: Option<ArtifactGraph>,
) -> Result<ChangeSet, Error> {
    match (schema, graph) {
        (Some(_), Some(_)) => Err(Error::InvalidArgument {
            message: "give either schema (a name or a path) or graph, not both".into(),
        }),
        (_, Some(graph)) => ChangeSet::with_root(workspace, change, changes_root, graph),
        (schema, None) => ChangeSet::open(workspace, change, changes_root, schema),
    }
}

#[pymethods]
impl PyChangeSet {
    #[new]
    #[pyo3(signature = (workspace, change, *, changes_root = DEFAULT_CHANGES_ROOT.to_owned(), schema = None, task_rule = None, graph = None))]
    #[pyo3(
        text_signature = "(workspace, change, *, changes_root='openspec/changes', schema=None, task_rule=None, graph=None)"
    )]
    fn new(
        py: Python<'_>,
        workspace: PathArg,
        change: String,
        changes_root: String,
        schema: Option<String>,
        task_rule: Option<&str>,
        graph: Option<&PyArtifactGraph>,
    ) -> PyResult<Self> {
        let rule = task_rule.map(|r| args::task_rule(py, r)).transpose()?;
        let graph = graph.map(|g| g.inner.clone());
        let workspace = Utf8PathBuf::from(workspace.0);
        let inner = errors::detached(py, move || {
            open(workspace, &change, &changes_root, schema.as_deref(), graph)
        })?
        .with_task_rule(rule);
        Ok(PyChangeSet {
            workspace: inner.workspace.to_string(),
            change: inner.change.clone(),
            changes_root: inner.changes_root.clone(),
            graph: PyArtifactGraph::from(inner.graph.clone()),
            task_rule: inner.task_rule().as_str(),
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

    /// The change's tracked Tasks file: the file of the tracked artifact (else
    /// `tasks.md`) in the change's directory, read under `task_rule` when one
    /// was given, else under the rule the `tasks` approval recorded in `store`
    /// (default: the workspace's), else the change's; a missing file has no
    /// tasks (`ledger tasks --json`). A change found neither active nor
    /// archived is `UnknownChangeError`.
    #[pyo3(signature = (store = None))]
    fn tasks(&self, py: Python<'_>, store: Option<&PyStore>) -> PyResult<PyChangeTasks> {
        let change = self.inner.clone();
        let store = store.map_or_else(|| Store::open(&change.workspace), |s| s.inner.clone());
        errors::detached(py, move || change.tasks_in(&store)).map(PyChangeTasks::from)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["workspace", "change"])
    }
}
