//! `ledger.SchemaSource` (core `schema`): where an artifact graph came from, as
//! graphs, bindings and statuses carry it (docs/approvals.md, Schemas).

use ledger_core::{SchemaSource, to_pretty_json};
use pyo3::prelude::*;

use crate::repr;

/// Where an artifact graph came from: the name it was resolved by or the file
/// it was read from, and the SHA-256 of the schema's bytes. Recorded with every
/// approval (docs/records.md, the schema of a binding).
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "SchemaSource", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PySchemaSource {
    /// The name it was resolved by (`spec-driven`, `rapid`); `None` for a path.
    #[pyo3(get)]
    name: Option<String>,
    /// The file it was read from: workspace-relative for a project schema, as
    /// given for a path; `None` for a built-in schema.
    #[pyo3(get)]
    path: Option<String>,
    /// `sha256:` and the hex SHA-256 of the schema's bytes; `None` for a graph
    /// built in code.
    #[pyo3(get)]
    sha256: Option<String>,
    /// How a person names it: the name, else the path.
    #[pyo3(get)]
    label: String,
    inner: SchemaSource,
}

impl From<&SchemaSource> for PySchemaSource {
    fn from(s: &SchemaSource) -> Self {
        PySchemaSource {
            name: s.name.clone(),
            path: s.path.clone(),
            sha256: s.sha256.map(|f| f.to_string()),
            label: s.label().to_owned(),
            inner: s.clone(),
        }
    }
}

#[pymethods]
impl PySchemaSource {
    /// Whether `other` names the same schema (the same name, or for schemas
    /// read by path the same path), whatever its bytes.
    fn same_schema(&self, other: &Self) -> bool {
        self.inner.same_schema(&other.inner)
    }

    /// The source as JSON (the `schema` of a binding in a state record).
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["name", "path", "sha256"])
    }
}
