//! `ledger.ArtifactGraph` and `ledger.Artifact` (core `graph`).

use camino::Utf8PathBuf;
use ledger_core::{Artifact, ArtifactGraph};
use pyo3::prelude::*;

use crate::args::{self, PathArg, texts};
use crate::schema::PySchemaSource;
use crate::{errors, repr};

/// One artifact of a graph: its id, what it generates (a file or a glob,
/// relative to the change directory), and the artifacts it requires.
#[pyclass(frozen, eq, get_all, skip_from_py_object)]
#[pyo3(name = "Artifact", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyArtifact {
    /// Its name, e.g. `design`.
    id: String,
    /// What it generates: `design.md`, or a glob such as `specs/**/spec.md`.
    generates: String,
    /// The artifacts it depends on.
    requires: Vec<String>,
}

impl From<&Artifact> for PyArtifact {
    fn from(a: &Artifact) -> Self {
        let (id, generates, requires) = (a.id.clone(), a.generates.clone(), a.requires.clone());
        PyArtifact {
            id,
            generates,
            requires,
        }
    }
}

impl From<&PyArtifact> for Artifact {
    fn from(a: &PyArtifact) -> Self {
        let (id, generates, requires) = (a.id.clone(), a.generates.clone(), a.requires.clone());
        Artifact {
            id,
            generates,
            requires,
        }
    }
}

#[pymethods]
impl PyArtifact {
    #[new]
    #[pyo3(signature = (id, generates, requires = None))]
    #[pyo3(text_signature = "(id, generates, requires=())")]
    fn new(id: String, generates: String, requires: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let requires = requires
            .map(|r| texts(r, "a required artifact"))
            .transpose()?;
        let requires = requires.unwrap_or_default();
        Ok(PyArtifact {
            id,
            generates,
            requires,
        })
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["id", "generates", "requires"])
    }
}

/// A DAG of artifacts in topological order, plus the tracked file whose task
/// checkboxes are progress (`apply.tracks`), the task rule the schema names for
/// it, and the schema the graph was read from.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "ArtifactGraph", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyArtifactGraph {
    /// The artifacts, each after everything it requires.
    #[pyo3(get)]
    artifacts: Vec<PyArtifact>,
    /// The schema's `apply.tracks`, if it names one.
    #[pyo3(get)]
    tracks: Option<String>,
    /// The tracked Tasks artifact, by OpenSpec's rule: the one whose
    /// `generates` equals `tracks`, else (no `tracks`) the one with id `tasks`;
    /// its files get the task normalization.
    #[pyo3(get)]
    tracked: Option<PyArtifact>,
    /// The rule the schema names for the tracked file (`ledger.task_rule`), if any.
    #[pyo3(get)]
    task_rule: Option<&'static str>,
    /// The schema the graph was read from (`None`: built in code).
    #[pyo3(get)]
    schema: Option<PySchemaSource>,
    pub(crate) inner: ArtifactGraph,
}

impl From<ArtifactGraph> for PyArtifactGraph {
    fn from(inner: ArtifactGraph) -> Self {
        PyArtifactGraph {
            artifacts: inner.artifacts().iter().map(PyArtifact::from).collect(),
            tracks: inner.tracks().map(str::to_owned),
            tracked: inner.tracked().map(PyArtifact::from),
            task_rule: inner.task_rule().map(|rule| rule.as_str()),
            schema: inner.schema().map(PySchemaSource::from),
            inner,
        }
    }
}

#[pymethods]
impl PyArtifactGraph {
    /// Builds a graph, refusing duplicate ids (`BadSchemaError`), unknown
    /// requirements (`UnknownArtifactError`) and cycles (`GraphCycleError`).
    /// `task_rule` is the rule of the tracked file, as a schema's
    /// `ledger.task_rule` names it (`None`: the default).
    #[new]
    #[pyo3(signature = (artifacts, tracks = None, source = "<graph>", *, task_rule = None))]
    fn new(
        py: Python<'_>,
        artifacts: &Bound<'_, PyAny>,
        tracks: Option<String>,
        source: &str,
        task_rule: Option<&str>,
    ) -> PyResult<Self> {
        let artifacts = (artifacts.try_iter()?)
            .map(|a| Ok(Artifact::from(a?.cast::<PyArtifact>()?.get())))
            .collect::<PyResult<Vec<Artifact>>>()?;
        let rule = task_rule
            .map(|name| args::task_rule(py, name))
            .transpose()?;
        let graph = errors::run(py, || ArtifactGraph::new(artifacts, tracks, source))?;
        Ok(Self::from(graph.with_task_rule(rule)))
    }

    /// OpenSpec's `spec-driven` schema: proposal → {specs, design} → tasks.
    #[staticmethod]
    fn spec_driven() -> Self {
        Self::from(ArtifactGraph::spec_driven())
    }

    /// Loads an OpenSpec `schema.yaml` text; `source` names it in errors.
    #[staticmethod]
    #[pyo3(signature = (text, source = "<string>"))]
    fn from_schema_yaml(py: Python<'_>, text: &str, source: &str) -> PyResult<Self> {
        errors::run(py, || ArtifactGraph::from_schema_yaml(text, source)).map(Self::from)
    }

    /// Reads a `schema.yaml` file.
    #[staticmethod]
    fn read(py: Python<'_>, path: PathArg) -> PyResult<Self> {
        let path = Utf8PathBuf::from(path.0);
        errors::detached(py, move || ArtifactGraph::read(&path)).map(Self::from)
    }

    /// The artifact named `id` (`UnknownArtifactError` otherwise).
    fn artifact(&self, py: Python<'_>, id: &str) -> PyResult<PyArtifact> {
        errors::run(py, || self.inner.artifact(id).map(PyArtifact::from))
    }

    /// Every artifact `id` depends on, directly or not, in graph order.
    fn upstream(&self, id: &str) -> Vec<&str> {
        self.inner.upstream(id)
    }

    /// Every artifact that depends on `id`, directly or not, in graph order.
    fn downstream(&self, id: &str) -> Vec<&str> {
        self.inner.downstream(id)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["artifacts", "tracks", "schema"])
    }
}
