//! `status()`, `approve()`, `retire()`, `current_state()`, `ledger.ApprovalStatus`
//! and `ledger.ArtifactStatus` (core `approval`).

use std::collections::BTreeMap;

use ledger_core::{ApprovalStatus, ArtifactStatus};
use pyo3::prelude::*;

use crate::artifacts::PyChangeSet;
use crate::compare::PyChange;
use crate::envelope::{PyBinding, PyStateEnvelope};
use crate::errors;
use crate::scope::json_text;
use crate::store::PyStore;

/// One artifact's row of the status.
#[pyclass(frozen, eq, name = "ArtifactStatus", module = "ledger")]
#[derive(PartialEq)]
pub struct PyArtifactStatus {
    inner: ArtifactStatus,
}

#[pymethods]
impl PyArtifactStatus {
    /// The artifact.
    #[getter]
    fn artifact(&self) -> &str {
        &self.inner.artifact
    }

    /// `approved`, `unbound`, `changed`, `reset`, `blocked`, `archived` or `gone`.
    #[getter]
    fn state(&self) -> &'static str {
        self.inner.state.as_str()
    }

    /// The fingerprint it was approved with.
    #[getter]
    fn approved(&self) -> Option<String> {
        self.inner.approved.map(|f| f.to_string())
    }

    /// Its fingerprint now (`None` when blocked).
    #[getter]
    fn current(&self) -> Option<String> {
        self.inner.current.map(|f| f.to_string())
    }

    /// The changed or blocked upstream artifacts that reset it.
    #[getter]
    fn reset_by(&self) -> Vec<String> {
        self.inner.reset_by.clone()
    }

    /// Why the set is blocked: `error[<code>]: <message>`.
    #[getter]
    fn blocked(&self) -> Option<&str> {
        self.inner.blocked.as_deref()
    }

    /// When `changed`: every path that differs from the approved set (`None`
    /// when the binding predates stored inventories).
    #[getter]
    fn changes(&self) -> Option<Vec<PyChange>> {
        let changes = self.inner.changes.clone()?;
        Some(
            changes
                .into_iter()
                .map(|inner| PyChange { inner })
                .collect(),
        )
    }

    /// The binding, when there is one.
    #[getter]
    fn binding(&self) -> Option<PyBinding> {
        let binding = self.inner.binding.clone();
        binding.map(|inner| PyBinding { inner })
    }

    fn __repr__(&self) -> String {
        let state = self.inner.state.as_str();
        format!("ArtifactStatus({:?}, {state:?})", self.inner.artifact)
    }
}

/// The approval status of a change: one row per artifact, in graph order.
#[pyclass(frozen, eq, name = "ApprovalStatus", module = "ledger")]
#[derive(PartialEq)]
pub struct PyApprovalStatus {
    inner: ApprovalStatus,
}

#[pymethods]
impl PyApprovalStatus {
    /// The change.
    #[getter]
    fn change(&self) -> &str {
        &self.inner.change
    }

    /// The record the bindings came from (`None`: no state recorded yet).
    #[getter]
    fn state_record(&self) -> Option<String> {
        self.inner.state_record.map(|r| r.to_string())
    }

    /// Where the change is: `active`, `archived` or `missing`.
    #[getter]
    fn location(&self) -> &'static str {
        self.inner.location.state()
    }

    /// The change's directory (relative to the workspace), `None` when missing.
    #[getter]
    fn directory(&self) -> Option<&str> {
        self.inner.location.directory()
    }

    /// `{"reason": ..., "observed_at": ...}` when the change's state was retired.
    #[getter]
    fn retired(&self) -> Option<BTreeMap<&'static str, String>> {
        let retired = self.inner.retired.as_ref()?;
        Some(BTreeMap::from([
            ("reason", retired.reason.clone()),
            ("observed_at", retired.observed_at.clone()),
        ]))
    }

    /// One row per artifact, in topological order.
    #[getter]
    fn artifacts(&self) -> Vec<PyArtifactStatus> {
        let rows = self.inner.artifacts.iter().cloned();
        rows.map(|inner| PyArtifactStatus { inner }).collect()
    }

    /// Whether every artifact is approved (`ledger status` exits 0).
    fn all_approved(&self) -> bool {
        self.inner.all_approved()
    }

    /// The status as JSON, exactly as `ledger status --json` prints it.
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    fn __repr__(&self) -> String {
        let rows: Vec<String> = (self.inner.artifacts.iter())
            .map(|a| format!("{}={}", a.artifact, a.state.as_str()))
            .collect();
        format!(
            "ApprovalStatus({:?}, {})",
            self.inner.change,
            rows.join(", ")
        )
    }
}

/// The approval status of a change, from its recorded bindings.
#[pyfunction]
pub fn status(py: Python<'_>, store: &PyStore, change: &PyChangeSet) -> PyResult<PyApprovalStatus> {
    let (store, change) = (store.inner.clone(), change.inner.clone());
    let inner = errors::detached(py, move || ledger_core::status(&store, &change))?;
    Ok(PyApprovalStatus { inner })
}

/// Binds `artifact`'s current fingerprint to the observed `source` of the
/// owner's decision and advances the change's state pointer. `absent=True`
/// approves a set none of whose files exist (refused otherwise).
#[pyfunction]
#[pyo3(signature = (store, change, artifact, source, *, absent = false))]
pub fn approve(
    py: Python<'_>,
    store: &PyStore,
    change: &PyChangeSet,
    artifact: String,
    source: String,
    absent: bool,
) -> PyResult<PyBinding> {
    let (store, change) = (store.inner.clone(), change.inner.clone());
    let inner = errors::detached(py, move || {
        ledger_core::approve(&store, &change, &artifact, &source, absent.into())
    })?;
    Ok(PyBinding { inner })
}

/// Retires a change's state: a new record without bindings that says why;
/// the records before it stay. Returns the new record's id.
#[pyfunction]
pub fn retire(py: Python<'_>, store: &PyStore, change: String, reason: String) -> PyResult<String> {
    let store = store.inner.clone();
    let record = errors::detached(py, move || ledger_core::retire(&store, &change, &reason))?;
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
    let (record, inner) =
        errors::detached(py, move || ledger_core::current_state(&store, &change))?;
    Ok((record.map(|r| r.to_string()), PyStateEnvelope { inner }))
}
