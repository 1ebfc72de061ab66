//! `status()`, `approve()`, `retire()`, `current_state()`, `ledger.ApprovalStatus`,
//! `ledger.ArtifactStatus` and `ledger.SchemaChange` (core `approval`).

use std::collections::BTreeMap;

use ledger_core::{
    ApprovalStatus, ArtifactStatus, SchemaChange, SchemaChangeReason, StartedFrom, WriteBasis,
    to_pretty_json,
};
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;

use crate::artifacts::PyChangeSet;
use crate::compare::PyChange;
use crate::envelope::{PyBinding, PyStateEnvelope};
use crate::schema::PySchemaSource;
use crate::store::PyStore;
use crate::{errors, repr};

/// One artifact's row of the status.
#[pyclass(frozen, eq, get_all, skip_from_py_object)]
#[pyo3(name = "ArtifactStatus", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyArtifactStatus {
    /// The artifact.
    artifact: String,
    /// `approved`, `unbound`, `changed`, `reset`, `blocked`, `archived`,
    /// `gone` or `skipped`.
    state: &'static str,
    /// The fingerprint it was approved with.
    approved: Option<String>,
    /// Its fingerprint now (`None` when blocked).
    current: Option<String>,
    /// The changed or blocked upstream artifacts that reset it.
    reset_by: Vec<String>,
    /// Why the set is blocked: `error[<code>]: <message>`.
    blocked: Option<String>,
    /// When `changed`: every path that differs from the approved set (`None`
    /// when the binding predates stored inventories).
    changes: Option<Vec<PyChange>>,
    /// The binding, when there is one.
    binding: Option<PyBinding>,
}

impl From<&ArtifactStatus> for PyArtifactStatus {
    fn from(a: &ArtifactStatus) -> Self {
        PyArtifactStatus {
            artifact: a.artifact.clone(),
            state: a.state.as_str(),
            approved: a.approved.map(|f| f.to_string()),
            current: a.current.map(|f| f.to_string()),
            reset_by: a.reset_by.clone(),
            blocked: a.blocked.clone(),
            changes: (a.changes.as_ref()).map(|c| c.iter().map(PyChange::from).collect()),
            binding: a.binding.clone().map(PyBinding::from),
        }
    }
}

#[pymethods]
impl PyArtifactStatus {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["artifact", "state"])
    }
}

/// A binding made with another schema, or other bytes of it, than the one the
/// status was evaluated with (docs/approvals.md, Schemas).
#[pyclass(frozen, eq, get_all, skip_from_py_object)]
#[pyo3(name = "SchemaChange", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PySchemaChange {
    /// The artifact whose binding it is.
    artifact: String,
    /// `content-changed`, `other-schema` or `redeclared`.
    reason: &'static str,
    /// When `redeclared`: the schema the change declares now.
    declared: Option<String>,
    /// The schema the binding recorded (`None`: written before ledger recorded
    /// schemas; it reads as `spec-driven`).
    recorded: Option<PySchemaSource>,
}

impl From<&SchemaChange> for PySchemaChange {
    fn from(c: &SchemaChange) -> Self {
        let declared = match &c.reason {
            SchemaChangeReason::Redeclared { declared } => Some(declared.clone()),
            SchemaChangeReason::ContentChanged | SchemaChangeReason::OtherSchema => None,
        };
        PySchemaChange {
            artifact: c.artifact.clone(),
            reason: c.reason.code(),
            declared,
            recorded: c.recorded.as_ref().map(PySchemaSource::from),
        }
    }
}

#[pymethods]
impl PySchemaChange {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["artifact", "reason"])
    }
}

/// The approval status of a change: one row per artifact, in graph order.
#[pyclass(frozen, eq)]
#[pyo3(name = "ApprovalStatus", module = "ledger")]
#[derive(PartialEq)]
pub struct PyApprovalStatus {
    /// The change.
    #[pyo3(get)]
    change: String,
    /// The record the bindings came from (`None`: no state recorded yet).
    #[pyo3(get)]
    state_record: Option<String>,
    /// Where the change is: `active`, `archived` or `missing`.
    #[pyo3(get)]
    location: &'static str,
    /// The change's directory (relative to the workspace), `None` when missing.
    #[pyo3(get)]
    directory: Option<String>,
    /// `{"reason": ..., "observed_at": ...}` when the change's state was retired.
    #[pyo3(get)]
    retired: Option<BTreeMap<&'static str, String>>,
    /// The schema whose graph was evaluated.
    #[pyo3(get)]
    schema: Option<PySchemaSource>,
    /// The bindings made with another schema or another version of it; empty
    /// when every binding was made with this one.
    #[pyo3(get)]
    schema_changed: Vec<PySchemaChange>,
    /// One row per artifact, in topological order.
    #[pyo3(get)]
    artifacts: Vec<PyArtifactStatus>,
    inner: ApprovalStatus,
}

impl From<ApprovalStatus> for PyApprovalStatus {
    fn from(inner: ApprovalStatus) -> Self {
        let retired = inner.retired.as_ref().map(|r| {
            let fields = [("reason", &r.reason), ("observed_at", &r.observed_at)];
            fields.map(|(k, v)| (k, v.clone())).into()
        });
        PyApprovalStatus {
            change: inner.change.clone(),
            state_record: inner.state_record.map(|r| r.to_string()),
            location: inner.location.state(),
            directory: inner.location.directory().map(str::to_owned),
            retired,
            schema: inner.schema.as_ref().map(PySchemaSource::from),
            schema_changed: (inner.schema_changed.iter())
                .map(PySchemaChange::from)
                .collect(),
            artifacts: inner.artifacts.iter().map(PyArtifactStatus::from).collect(),
            inner,
        }
    }
}

#[pymethods]
impl PyApprovalStatus {
    /// Whether every artifact's approval stands (approved, archived intact or
    /// skipped) and every binding was made with the schema in use
    /// (`ledger status` exits 0).
    fn all_approved(&self) -> bool {
        self.inner.all_approved()
    }

    /// The status as JSON, exactly as `ledger status --json` prints it.
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["change", "location", "artifacts"])
    }
}

/// The approval status of a change, from its recorded bindings.
#[pyfunction]
pub fn status(py: Python<'_>, store: &PyStore, change: &PyChangeSet) -> PyResult<PyApprovalStatus> {
    let (store, change) = (store.inner.clone(), change.inner.clone());
    errors::detached(py, move || ledger_core::status(&store, &change)).map(PyApprovalStatus::from)
}

/// Binds `artifact`'s current fingerprint to the observed `source` of the
/// owner's decision and advances the change's state pointer. `absent=True`
/// approves a set none of whose files exist (refused otherwise). `reviewed`
/// is the fingerprint the reviewer saw (`FingerprintMovedError`, naming the
/// changed paths, when the set has another now); `expected` the state record
/// the caller started from (`"none"`: no state; `PointerConflictError` when
/// another writer advanced it). Either way nothing is recorded. A Tasks file
/// holding lines the other task rule reads as tasks and the chosen one does
/// not is approved with a `UserWarning` (docs/approvals.md).
#[pyfunction]
#[pyo3(signature = (store, change, artifact, source, *, absent = false, reviewed = None, expected = None))]
#[allow(clippy::too_many_arguments)]
pub fn approve(
    py: Python<'_>,
    store: &PyStore,
    change: &PyChangeSet,
    artifact: String,
    source: String,
    absent: bool,
    reviewed: Option<String>,
    expected: Option<String>,
) -> PyResult<PyBinding> {
    let basis = write_basis(py, reviewed, expected)?;
    let (store, change) = (store.inner.clone(), change.inner.clone());
    let (binding, warnings) = errors::detached(py, move || {
        let binding =
            ledger_core::approve_with(&store, &change, &artifact, &source, absent.into(), &basis)?;
        let warnings = change.task_rule_warnings(&binding);
        Ok::<_, ledger_core::Error>((binding, warnings))
    })?;
    for warning in warnings {
        let message = std::ffi::CString::new(warning.to_string())
            .unwrap_or_else(|_| c"a task rule warning (unprintable)".to_owned());
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)?;
    }
    Ok(PyBinding::from(binding))
}

/// `reviewed=` and `expected=` as the core's write basis.
pub(crate) fn write_basis(
    py: Python<'_>,
    reviewed: Option<String>,
    expected: Option<String>,
) -> PyResult<WriteBasis> {
    errors::run(py, || {
        Ok(WriteBasis {
            reviewed: reviewed.as_deref().map(str::parse).transpose()?,
            started_from: started_from(expected.as_deref())?,
        })
    })
}

/// `expected=`: a record id, or `"none"` for no recorded state.
pub(crate) fn started_from(text: Option<&str>) -> ledger_core::Result<Option<StartedFrom>> {
    text.map(str::parse).transpose()
}

/// Retires a change's state: a new record without bindings that says why;
/// the records before it stay. `expected` is the record the caller started
/// from (`PointerConflictError` when another writer advanced it). Returns the
/// new record's id.
#[pyfunction]
#[pyo3(signature = (store, change, reason, *, expected = None))]
pub fn retire(
    py: Python<'_>,
    store: &PyStore,
    change: String,
    reason: String,
    expected: Option<String>,
) -> PyResult<String> {
    let from = errors::run(py, || started_from(expected.as_deref()))?;
    let store = store.inner.clone();
    let record = errors::detached(py, move || {
        ledger_core::retire_from(&store, &change, &reason, from.as_ref())
    })?;
    Ok(record.to_string())
}

/// The change's current state envelope and the record it came from (`None`
/// and an empty envelope when no state is recorded).
#[pyfunction]
pub fn current_state(
    py: Python<'_>,
    store: &PyStore,
    change: String,
) -> PyResult<(Option<String>, PyStateEnvelope)> {
    let store = store.inner.clone();
    let (record, envelope) =
        errors::detached(py, move || ledger_core::current_state(&store, &change))?;
    Ok((
        record.map(|r| r.to_string()),
        PyStateEnvelope::from(envelope),
    ))
}
