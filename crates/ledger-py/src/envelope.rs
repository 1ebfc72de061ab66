//! `ledger.Binding`, `ledger.StateEnvelope` and `ledger.Validation` (core `envelope`).

use std::collections::BTreeMap;

use ledger_core::{Binding, StateEnvelope, Validation, to_pretty_json};
use pyo3::prelude::*;

use crate::inventory::PyInventory;
use crate::repr;
use crate::schema::PySchemaSource;

/// An observed approval: the owner's decision about one artifact, bound to
/// the fingerprint of its set (and of every upstream set).
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "Binding", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyBinding {
    /// The change.
    #[pyo3(get)]
    change: String,
    /// The artifact, e.g. `design`.
    #[pyo3(get)]
    artifact: String,
    /// The fingerprint of the artifact's set when it was approved.
    #[pyo3(get)]
    fingerprint: String,
    /// Where the decision was observed (free text).
    #[pyo3(get)]
    source: String,
    /// When it was observed (RFC 3339, UTC).
    #[pyo3(get)]
    observed_at: String,
    /// Upstream artifact → its fingerprint at approval time.
    #[pyo3(get)]
    upstream: BTreeMap<String, String>,
    /// The schema the approval was made with (`None`: written before ledger
    /// recorded it; it reads as `spec-driven`).
    #[pyo3(get)]
    schema: Option<PySchemaSource>,
    inner: Binding,
}

impl From<Binding> for PyBinding {
    fn from(inner: Binding) -> Self {
        PyBinding {
            change: inner.change.clone(),
            artifact: inner.artifact.clone(),
            fingerprint: inner.fingerprint.to_string(),
            source: inner.source.clone(),
            observed_at: inner.observed_at.clone(),
            upstream: (inner.upstream.iter())
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect(),
            schema: inner.schema.as_ref().map(PySchemaSource::from),
            inner,
        }
    }
}

#[pymethods]
impl PyBinding {
    /// The binding as JSON.
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["change", "artifact", "fingerprint"])
    }
}

/// The verdict of a validation, with the inventory it was given for.
#[pyclass(frozen, eq, get_all, skip_from_py_object)]
#[pyo3(name = "Validation", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyValidation {
    /// The verdict: `PASS` or `FAIL`.
    verdict: &'static str,
    /// The fingerprint of the validated inventory.
    fingerprint: String,
    /// The validated inventory.
    inventory: PyInventory,
    /// The gates the verdict relied on, with their evidence records:
    /// `(gate, record)` (`record` is `None` for a gate a FAIL named that never ran).
    gates: Vec<(String, Option<String>)>,
    /// Where the verdict was observed.
    source: String,
    /// When it was observed (RFC 3339, UTC).
    observed_at: String,
    /// The validated change directory.
    directory: String,
    /// The capabilities the change has delta specs for.
    capabilities: Vec<String>,
    /// Why the change has no delivery files, when the verdict declared so.
    no_delivery: Option<String>,
}

impl From<&Validation> for PyValidation {
    fn from(v: &Validation) -> Self {
        PyValidation {
            verdict: v.verdict.as_str(),
            fingerprint: v.fingerprint.to_string(),
            inventory: PyInventory::from(v.inventory.clone()),
            gates: (v.gates.iter())
                .map(|g| (g.gate.clone(), g.record.map(|r| r.to_string())))
                .collect(),
            source: v.source.clone(),
            observed_at: v.observed_at.clone(),
            directory: v.directory.clone(),
            capabilities: v.capabilities.clone(),
            no_delivery: v.no_delivery.clone(),
        }
    }
}

#[pymethods]
impl PyValidation {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["verdict", "fingerprint"])
    }
}

/// Everything a new session needs to continue a change (read-only here;
/// `approve()` writes new envelopes).
#[pyclass(frozen, eq)]
#[pyo3(name = "StateEnvelope", module = "ledger")]
#[derive(PartialEq)]
pub struct PyStateEnvelope {
    /// The change's identity.
    #[pyo3(get)]
    change: String,
    /// The current role.
    #[pyo3(get)]
    role: String,
    /// The current outcome.
    #[pyo3(get)]
    outcome: String,
    /// Repositories or areas the change touches.
    #[pyo3(get)]
    affected_areas: Vec<String>,
    /// Observed approvals, at most one per artifact.
    #[pyo3(get)]
    bindings: Vec<PyBinding>,
    /// Task ids completed.
    #[pyo3(get)]
    tasks_completed: Vec<String>,
    /// Task ids remaining.
    #[pyo3(get)]
    tasks_remaining: Vec<String>,
    /// Short observed checks, `(name, result)`.
    #[pyo3(get)]
    checks: Vec<(String, String)>,
    /// What blocks progress.
    #[pyo3(get)]
    blockers: Vec<String>,
    /// The one next allowed outcome.
    #[pyo3(get)]
    next_outcome: Option<String>,
    /// After validation: its verdict, inventory and fingerprint.
    #[pyo3(get)]
    validation: Option<PyValidation>,
    inner: StateEnvelope,
}

impl From<StateEnvelope> for PyStateEnvelope {
    fn from(inner: StateEnvelope) -> Self {
        let e = &inner;
        PyStateEnvelope {
            change: e.change.clone(),
            role: e.role.clone(),
            outcome: e.outcome.clone(),
            affected_areas: e.affected_areas.clone(),
            bindings: e.bindings.iter().cloned().map(PyBinding::from).collect(),
            tasks_completed: e.tasks_completed.clone(),
            tasks_remaining: e.tasks_remaining.clone(),
            checks: e
                .checks
                .iter()
                .map(|c| (c.name.clone(), c.result.clone()))
                .collect(),
            blockers: e.blockers.clone(),
            next_outcome: e.next_outcome.clone(),
            validation: e.validation.as_ref().map(PyValidation::from),
            inner,
        }
    }
}

#[pymethods]
impl PyStateEnvelope {
    /// The binding of `artifact`, if any.
    fn binding(&self, artifact: &str) -> Option<PyBinding> {
        self.inner.binding(artifact).cloned().map(PyBinding::from)
    }

    /// The envelope as JSON (the `state` of `ledger state show`).
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["change", "role", "outcome"])
    }
}
