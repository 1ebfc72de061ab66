//! `ledger.Scope`: what an inventory covers (core `Scope`).

use std::collections::BTreeMap;

use ledger_core::{Scope, WorkspacePath, to_pretty_json};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::args::{self, PathArg};
use crate::errors;

/// What an inventory covers: a workspace, its Git repositories, roots, exact
/// paths, exclusions with reasons, Tasks files with their task rules, and a
/// purpose.
///
/// The workspace is exactly the directory given (default: the current
/// directory), not the top of the enclosing checkout as with the CLI; use
/// `worktree_root()` for the CLI's default.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "Scope", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyScope {
    /// The workspace directory, as given (absolute once resolved).
    #[pyo3(get)]
    workspace: String,
    /// Declared repositories (`.` = the workspace); empty means the default.
    #[pyo3(get)]
    repositories: Vec<String>,
    /// Roots selecting candidates; empty means `.` unless paths are given.
    #[pyo3(get)]
    roots: Vec<String>,
    /// Exact paths included regardless of Git.
    #[pyo3(get)]
    paths: Vec<String>,
    /// `(path, reason)` of every exclusion, `.ledger` first.
    #[pyo3(get)]
    exclusions: Vec<(String, String)>,
    /// Tasks files, each hashed with its task rule's normalization
    /// (docs/format.md §4).
    #[pyo3(get)]
    normalize: Vec<String>,
    /// The rule of each Tasks file not under the default `task-checkbox-v1`
    /// (the record's `scope.task_rules`, docs/records.md).
    #[pyo3(get)]
    task_rules: BTreeMap<String, &'static str>,
    /// What the set is for.
    #[pyo3(get)]
    purpose: String,
    pub(crate) inner: Scope,
}

impl From<Scope> for PyScope {
    fn from(inner: Scope) -> Self {
        let texts = |paths: &[ledger_core::WorkspacePath]| {
            paths.iter().map(|p| p.as_str().to_owned()).collect()
        };
        PyScope {
            workspace: inner.workspace.to_string(),
            repositories: inner.repositories.clone(),
            roots: inner.roots.clone(),
            paths: texts(&inner.paths),
            exclusions: (inner.exclusions.iter())
                .map(|e| (e.path.clone(), e.reason.clone()))
                .collect(),
            normalize: inner.tasks_paths().map(|p| p.as_str().to_owned()).collect(),
            task_rules: (inner.tasks().iter())
                .filter(|(_, rule)| !rule.is_default())
                .map(|(path, rule)| (path.as_str().to_owned(), rule.as_str()))
                .collect(),
            purpose: inner.purpose.clone(),
            inner,
        }
    }
}

#[pymethods]
impl PyScope {
    #[new]
    #[pyo3(signature = (workspace = PathArg::dot(), **scope))]
    #[pyo3(text_signature = "(workspace='.', **scope)")]
    fn new(
        py: Python<'_>,
        workspace: PathArg,
        scope: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        args::scope(py, workspace, scope).map(PyScope::from)
    }

    /// The scope as an expansion sees it: the workspace absolute and
    /// canonical, the default repository filled in.
    fn resolve(&self, py: Python<'_>) -> PyResult<Self> {
        let scope = self.inner.clone();
        errors::detached(py, move || scope.resolve()).map(PyScope::from)
    }

    /// The task rule `path` is normalized under (`task-checkbox-v1` or
    /// `openspec-checkbox`); `None` when it is not one of the Tasks files. An
    /// invalid workspace path is `InvalidPathError`.
    fn task_rule(&self, py: Python<'_>, path: PathArg) -> PyResult<Option<&'static str>> {
        let path = errors::run(py, || WorkspacePath::new(&path.0))?;
        Ok(self.inner.task_rule(&path).map(|rule| rule.as_str()))
    }

    /// The scope as JSON, the form records store and `ledger gate --scope-file` reads.
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    /// Reads a scope from JSON (the form `to_json` writes); `source` names it in errors.
    #[staticmethod]
    #[pyo3(signature = (text, source = "<string>"))]
    fn from_json(py: Python<'_>, text: &str, source: &str) -> PyResult<Self> {
        errors::run(py, || Scope::from_json(text, source)).map(PyScope::from)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Scope({})",
            PyString::new(py, &self.workspace).repr()?
        ))
    }
}
