//! `ledger.ArtifactGraph` and `ledger.Artifact` (core `graph`).

use camino::Utf8PathBuf;
use ledger_core::{Artifact, ArtifactGraph};
use pyo3::prelude::*;

use crate::args::{PathArg, strings};
use crate::errors;

/// One artifact of a graph: its id, what it generates (a file or a glob,
/// relative to the change directory), and the artifacts it requires.
#[pyclass(frozen, eq, name = "Artifact", module = "ledger")]
#[derive(PartialEq)]
pub struct PyArtifact {
    inner: Artifact,
}

#[pymethods]
impl PyArtifact {
    #[new]
    #[pyo3(signature = (id, generates, requires = None))]
    #[pyo3(text_signature = "(id, generates, requires=())")]
    fn new(id: String, generates: String, requires: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let requires = requires.map(strings).transpose()?.unwrap_or_default();
        Ok(PyArtifact {
            inner: Artifact {
                id,
                generates,
                requires,
            },
        })
    }

    /// Its name, e.g. `design`.
    #[getter]
    fn id(&self) -> &str {
        &self.inner.id
    }

    /// What it generates: `design.md`, or a glob such as `specs/**/spec.md`.
    #[getter]
    fn generates(&self) -> &str {
        &self.inner.generates
    }

    /// The artifacts it depends on.
    #[getter]
    fn requires(&self) -> Vec<String> {
        self.inner.requires.clone()
    }

    fn __repr__(&self) -> String {
        let a = &self.inner;
        format!("Artifact({:?}, {:?}, {:?})", a.id, a.generates, a.requires)
    }
}

/// A DAG of artifacts in topological order, plus the tracked file whose task
/// checkboxes are progress (`apply.tracks`).
#[pyclass(frozen, eq, name = "ArtifactGraph", module = "ledger")]
#[derive(PartialEq)]
pub struct PyArtifactGraph {
    pub(crate) inner: ArtifactGraph,
}

#[pymethods]
impl PyArtifactGraph {
    /// Builds a graph, refusing duplicate ids (`BadSchemaError`), unknown
    /// requirements (`UnknownArtifactError`) and cycles (`GraphCycleError`).
    #[new]
    #[pyo3(signature = (artifacts, tracks = None, source = "<graph>"))]
    fn new(
        py: Python<'_>,
        artifacts: &Bound<'_, PyAny>,
        tracks: Option<String>,
        source: &str,
    ) -> PyResult<Self> {
        let artifacts = (artifacts.try_iter()?)
            .map(|a| Ok(a?.cast::<PyArtifact>()?.get().inner.clone()))
            .collect::<PyResult<Vec<Artifact>>>()?;
        let inner = errors::run(py, || ArtifactGraph::new(artifacts, tracks, source))?;
        Ok(PyArtifactGraph { inner })
    }

    /// OpenSpec's `spec-driven` schema: proposal → {specs, design} → tasks.
    #[staticmethod]
    fn spec_driven() -> Self {
        PyArtifactGraph {
            inner: ArtifactGraph::spec_driven(),
        }
    }

    /// Loads an OpenSpec `schema.yaml` text; `source` names it in errors.
    #[staticmethod]
    #[pyo3(signature = (text, source = "<string>"))]
    fn from_schema_yaml(py: Python<'_>, text: &str, source: &str) -> PyResult<Self> {
        let inner = errors::run(py, || ArtifactGraph::from_schema_yaml(text, source))?;
        Ok(PyArtifactGraph { inner })
    }

    /// Reads a `schema.yaml` file.
    #[staticmethod]
    fn read(py: Python<'_>, path: PathArg) -> PyResult<Self> {
        let path = Utf8PathBuf::from(path.0);
        let inner = errors::detached(py, move || ArtifactGraph::read(&path))?;
        Ok(PyArtifactGraph { inner })
    }

    /// The artifacts, each after everything it requires.
    #[getter]
    fn artifacts(&self) -> Vec<PyArtifact> {
        let artifacts = self.inner.artifacts().iter().cloned();
        artifacts.map(|inner| PyArtifact { inner }).collect()
    }

    /// The generated file whose task checkboxes are normalized, if any.
    #[getter]
    fn tracks(&self) -> Option<&str> {
        self.inner.tracks()
    }

    /// The artifact named `id` (`UnknownArtifactError` otherwise).
    fn artifact(&self, py: Python<'_>, id: &str) -> PyResult<PyArtifact> {
        let inner = errors::run(py, || self.inner.artifact(id).cloned())?;
        Ok(PyArtifact { inner })
    }

    /// Every artifact `id` depends on, directly or not, in graph order.
    fn upstream(&self, id: &str) -> Vec<String> {
        self.inner
            .upstream(id)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Every artifact that depends on `id`, directly or not, in graph order.
    fn downstream(&self, id: &str) -> Vec<String> {
        let ids = self.inner.downstream(id).into_iter();
        ids.map(str::to_owned).collect()
    }

    fn __repr__(&self) -> String {
        let ids: Vec<&str> = self
            .inner
            .artifacts()
            .iter()
            .map(|a| a.id.as_str())
            .collect();
        format!("ArtifactGraph({ids:?})")
    }
}
