//! `ledger.Binding`, `ledger.StateEnvelope` and `ledger.Validation` (core `envelope`).

use std::collections::BTreeMap;

use ledger_core::{Binding, StateEnvelope, Validation};
use pyo3::prelude::*;

use crate::inventory::PyInventory;
use crate::scope::json_text;

/// An observed approval: the owner's decision about one artifact, bound to
/// the fingerprint of its set (and of every upstream set).
#[pyclass(frozen, eq, name = "Binding", module = "ledger")]
#[derive(PartialEq)]
pub struct PyBinding {
    pub(crate) inner: Binding,
}

#[pymethods]
impl PyBinding {
    /// The change.
    #[getter]
    fn change(&self) -> &str {
        &self.inner.change
    }

    /// The artifact, e.g. `design`.
    #[getter]
    fn artifact(&self) -> &str {
        &self.inner.artifact
    }

    /// The fingerprint of the artifact's set when it was approved.
    #[getter]
    fn fingerprint(&self) -> String {
        self.inner.fingerprint.to_string()
    }

    /// Where the decision was observed (free text).
    #[getter]
    fn source(&self) -> &str {
        &self.inner.source
    }

    /// When it was observed (RFC 3339, UTC).
    #[getter]
    fn observed_at(&self) -> &str {
        &self.inner.observed_at
    }

    /// Upstream artifact → its fingerprint at approval time.
    #[getter]
    fn upstream(&self) -> BTreeMap<String, String> {
        let upstream = self.inner.upstream.iter();
        upstream.map(|(k, v)| (k.clone(), v.to_string())).collect()
    }

    /// The binding as JSON.
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    fn __repr__(&self) -> String {
        let b = &self.inner;
        format!(
            "Binding({:?}, {:?}, {})",
            b.change, b.artifact, b.fingerprint
        )
    }
}

/// The verdict of a validation, with the inventory it was given for.
#[pyclass(frozen, eq, name = "Validation", module = "ledger")]
#[derive(PartialEq)]
pub struct PyValidation {
    inner: Validation,
}

#[pymethods]
impl PyValidation {
    /// The verdict, e.g. `PASS`.
    #[getter]
    fn verdict(&self) -> &str {
        &self.inner.verdict
    }

    /// The fingerprint of the validated inventory.
    #[getter]
    fn fingerprint(&self) -> String {
        self.inner.fingerprint.to_string()
    }

    /// The validated inventory.
    #[getter]
    fn inventory(&self) -> PyInventory {
        PyInventory::new(self.inner.inventory.clone())
    }
}

/// Everything a new session needs to continue a change (read-only here;
/// `approve()` writes new envelopes).
#[pyclass(frozen, eq, name = "StateEnvelope", module = "ledger")]
#[derive(PartialEq)]
pub struct PyStateEnvelope {
    pub(crate) inner: StateEnvelope,
}

#[pymethods]
impl PyStateEnvelope {
    /// The change's identity.
    #[getter]
    fn change(&self) -> &str {
        &self.inner.change
    }

    /// The current role.
    #[getter]
    fn role(&self) -> &str {
        &self.inner.role
    }

    /// The current outcome.
    #[getter]
    fn outcome(&self) -> &str {
        &self.inner.outcome
    }

    /// Repositories or areas the change touches.
    #[getter]
    fn affected_areas(&self) -> Vec<String> {
        self.inner.affected_areas.clone()
    }

    /// Observed approvals, at most one per artifact.
    #[getter]
    fn bindings(&self) -> Vec<PyBinding> {
        let bindings = self.inner.bindings.iter().cloned();
        bindings.map(|inner| PyBinding { inner }).collect()
    }

    /// Task ids completed.
    #[getter]
    fn tasks_completed(&self) -> Vec<String> {
        self.inner.tasks_completed.clone()
    }

    /// Task ids remaining.
    #[getter]
    fn tasks_remaining(&self) -> Vec<String> {
        self.inner.tasks_remaining.clone()
    }

    /// Short observed checks, `(name, result)`.
    #[getter]
    fn checks(&self) -> Vec<(String, String)> {
        let checks = self.inner.checks.iter();
        checks.map(|c| (c.name.clone(), c.result.clone())).collect()
    }

    /// What blocks progress.
    #[getter]
    fn blockers(&self) -> Vec<String> {
        self.inner.blockers.clone()
    }

    /// The one next allowed outcome.
    #[getter]
    fn next_outcome(&self) -> Option<&str> {
        self.inner.next_outcome.as_deref()
    }

    /// After validation: its verdict, inventory and fingerprint.
    #[getter]
    fn validation(&self) -> Option<PyValidation> {
        let validation = self.inner.validation.clone();
        validation.map(|inner| PyValidation { inner })
    }

    /// The binding of `artifact`, if any.
    fn binding(&self, artifact: &str) -> Option<PyBinding> {
        let binding = self.inner.binding(artifact).cloned();
        binding.map(|inner| PyBinding { inner })
    }

    /// The envelope as JSON (the `state` of `ledger state show`).
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    fn __repr__(&self) -> String {
        let e = &self.inner;
        format!(
            "StateEnvelope({:?}, {} bindings)",
            e.change,
            e.bindings.len()
        )
    }
}
