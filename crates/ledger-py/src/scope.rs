//! `ledger.Scope`: what an inventory covers (core `Scope`).

use camino::Utf8PathBuf;
use ledger_core::{Scope, ScopeLists};
use pyo3::prelude::*;

use crate::args::{PathArg, exclusions, path_list, quoted};
use crate::errors;

/// What an inventory covers: a workspace, its Git repositories, roots, exact
/// paths, exclusions with reasons, Tasks files and a purpose.
///
/// The workspace is exactly the directory given (default: the current
/// directory), not the top of the enclosing checkout as with the CLI; use
/// `worktree_root()` for the CLI's default.
#[pyclass(frozen, eq, name = "Scope", module = "ledger")]
#[derive(PartialEq)]
pub struct PyScope {
    pub(crate) inner: Scope,
}

/// The keyword arguments shared by `Scope()`, `fingerprint()` and `inventory()`,
/// turned into a core scope (each path validated by the core).
#[allow(clippy::too_many_arguments)] // the keyword arguments of the Python API
pub fn build(
    py: Python<'_>,
    workspace: String,
    repos: Option<&Bound<'_, PyAny>>,
    roots: Option<&Bound<'_, PyAny>>,
    paths: Option<&Bound<'_, PyAny>>,
    exclude: Option<&Bound<'_, PyAny>>,
    tasks: Option<&Bound<'_, PyAny>>,
    purpose: &str,
) -> PyResult<Scope> {
    let (repos, roots, paths) = (path_list(repos)?, path_list(roots)?, path_list(paths)?);
    let (exclude, tasks) = (exclusions(exclude)?, path_list(tasks)?);
    let lists = ScopeLists {
        repositories: repos,
        roots,
        paths,
        exclusions: exclude
            .into_iter()
            .map(|(p, reason)| (p, Some(reason)))
            .collect(),
        tasks,
        purpose: purpose.to_owned(),
    };
    errors::run(py, || {
        Scope::from_lists(Utf8PathBuf::from(workspace), &lists)
    })
}

#[pymethods]
impl PyScope {
    #[new]
    #[pyo3(signature = (workspace = PathArg::dot(), *, repos = None, roots = None, paths = None, exclude = None, tasks = None, purpose = ""))]
    #[pyo3(
        text_signature = "(workspace='.', *, repos=None, roots=None, paths=None, exclude=None, tasks=None, purpose='')"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        workspace: PathArg,
        repos: Option<&Bound<'_, PyAny>>,
        roots: Option<&Bound<'_, PyAny>>,
        paths: Option<&Bound<'_, PyAny>>,
        exclude: Option<&Bound<'_, PyAny>>,
        tasks: Option<&Bound<'_, PyAny>>,
        purpose: &str,
    ) -> PyResult<Self> {
        let inner = build(
            py,
            workspace.0,
            repos,
            roots,
            paths,
            exclude,
            tasks,
            purpose,
        )?;
        Ok(PyScope { inner })
    }

    /// The workspace directory, as given (absolute once resolved).
    #[getter]
    fn workspace(&self) -> &str {
        self.inner.workspace.as_str()
    }

    /// Declared repositories (`.` = the workspace); empty means the default.
    #[getter]
    fn repositories(&self) -> Vec<String> {
        self.inner.repositories.clone()
    }

    /// Roots selecting candidates; empty means `.` unless paths are given.
    #[getter]
    fn roots(&self) -> Vec<String> {
        self.inner.roots.clone()
    }

    /// Exact paths included regardless of Git.
    #[getter]
    fn paths(&self) -> Vec<String> {
        self.inner
            .paths
            .iter()
            .map(|p| p.as_str().to_owned())
            .collect()
    }

    /// `(path, reason)` of every exclusion, `.ledger` first.
    #[getter]
    fn exclusions(&self) -> Vec<(String, String)> {
        self.inner
            .exclusions
            .iter()
            .map(|e| (e.path.clone(), e.reason.clone()))
            .collect()
    }

    /// Tasks files (hashed with the task-checkbox normalization).
    #[getter]
    fn normalize(&self) -> Vec<String> {
        let paths = self.inner.normalize.iter();
        paths.map(|p| p.as_str().to_owned()).collect()
    }

    /// What the set is for.
    #[getter]
    fn purpose(&self) -> &str {
        &self.inner.purpose
    }

    /// The scope as an expansion sees it: the workspace absolute and
    /// canonical, the default repository filled in.
    fn resolve(&self, py: Python<'_>) -> PyResult<Self> {
        let scope = self.inner.clone();
        let inner = errors::detached(py, move || scope.resolve())?;
        Ok(PyScope { inner })
    }

    /// The scope as JSON, the form records store and `ledger gate --scope-file` reads.
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    /// Reads a scope from JSON (the form `to_json` writes); `source` names it in errors.
    #[staticmethod]
    #[pyo3(signature = (text, source = "<string>"))]
    fn from_json(py: Python<'_>, text: &str, source: &str) -> PyResult<Self> {
        errors::run(py, || {
            Scope::from_json(text, source).map(|inner| PyScope { inner })
        })
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Scope({})", quoted(py, self.inner.workspace.as_str()))
    }
}

/// Pretty JSON ending with a newline: what the CLI prints for `--json`.
pub use ledger_core::to_pretty_json as json_text;
