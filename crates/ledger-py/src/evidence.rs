//! Gate definitions and the reuse decision: `ledger.Observe`, `ledger.GateSpec`,
//! `ledger.Evidence`, `ledger.Freshness`, `ledger.StaleReason`, `check_gate()`,
//! `check_recorded_gate()` and `latest_evidence()` (core `evidence`).

use std::collections::BTreeMap;

use ledger_core::{
    Evidence, Freshness, GateQuery, GateSpec, Observations, Observe, StaleReason, Stopped,
    to_pretty_json,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::args::{PathArg, exact_text, mapping, texts};
use crate::compare::PyComparison;
use crate::inventory::PyInventory;
use crate::scope::PyScope;
use crate::store::PyStore;
use crate::{errors, repr};

/// How a prerequisite's value is observed: a literal, an environment
/// variable, or the trimmed stdout of a shell command.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "Observe", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyObserve {
    /// `literal`, `environment` or `command`.
    #[pyo3(get)]
    kind: &'static str,
    /// The literal value, the variable's name, or the command.
    #[pyo3(get)]
    text: String,
    inner: Observe,
}

impl From<Observe> for PyObserve {
    fn from(inner: Observe) -> Self {
        let (kind, text) = match &inner {
            Observe::Literal(s) => ("literal", s),
            Observe::Environment(s) => ("environment", s),
            Observe::Command(s) => ("command", s),
        };
        let text = text.clone();
        PyObserve { kind, text, inner }
    }
}

#[pymethods]
impl PyObserve {
    /// A value given by the caller (`--env NAME=VALUE`). A `str` that is not
    /// valid Unicode (lone surrogates, e.g. a non-UTF-8 value read through
    /// `os.environ`) is `NonUtf8ValueError`, never a replaced value.
    #[staticmethod]
    fn literal(value: &Bound<'_, PyString>) -> PyResult<Self> {
        let value = exact_text(value, "prerequisite literal value")?;
        Ok(Self::from(Observe::Literal(value)))
    }

    /// The value of an environment variable, `None` when unset (`--env NAME`).
    #[staticmethod]
    fn environment(variable: &Bound<'_, PyString>) -> PyResult<Self> {
        let variable = exact_text(variable, "an environment variable name")?;
        Ok(Self::from(Observe::Environment(variable)))
    }

    /// The stdout of `sh -c command`, trimmed of ASCII whitespace
    /// (`--env-cmd NAME=COMMAND`).
    #[staticmethod]
    fn command(command: &Bound<'_, PyString>) -> PyResult<Self> {
        let command = exact_text(command, "a prerequisite command")?;
        Ok(Self::from(Observe::Command(command)))
    }

    /// Observes the value now: `None` for an unset variable
    /// (`PrerequisiteFailedError` when the command fails, `NonUtf8ValueError`
    /// when the value is not UTF-8).
    #[pyo3(signature = (name = ""))]
    fn observe(&self, py: Python<'_>, name: &str) -> PyResult<Option<String>> {
        let (how, name) = (self.inner.clone(), name.to_owned());
        errors::detached(py, move || how.value(&name))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["kind", "text"])
    }
}

/// The command of gate `name` as exact text: its argv (an iterable of `str`)
/// and its working directory (default `.`).
fn command(
    name: &str,
    argv: &Bound<'_, PyAny>,
    cwd: Option<&Bound<'_, PyString>>,
) -> PyResult<(Vec<String>, String)> {
    let argv = texts(argv, &format!("an argument of gate {name}"))?;
    let cwd = cwd.map(|cwd| exact_text(cwd, &format!("the cwd of gate {name}")));
    Ok((argv, cwd.transpose()?.unwrap_or_else(|| ".".to_owned())))
}

/// `prerequisites=`: a mapping of name → `Observe`.
pub(crate) fn prerequisites(
    arg: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<BTreeMap<String, Observe>>> {
    let observe = |v: &Bound<'_, PyAny>| Ok(v.cast::<PyObserve>()?.get().inner.clone());
    arg.map(|p| mapping(p, observe)).transpose()
}

/// A gate's definition: what it runs, where (relative to the workspace), on
/// which inputs, and which prerequisites its result depends on.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "GateSpec", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyGateSpec {
    /// The gate's name.
    #[pyo3(get)]
    name: String,
    /// The exact command.
    #[pyo3(get)]
    argv: Vec<String>,
    /// The working directory relative to the workspace, normalized (`.` or
    /// a path such as `sub`).
    #[pyo3(get)]
    cwd: String,
    /// The inputs.
    #[pyo3(get)]
    scope: PyScope,
    /// Prerequisite name → how it is observed.
    #[pyo3(get)]
    prerequisites: BTreeMap<String, PyObserve>,
    pub(crate) inner: GateSpec,
}

impl From<GateSpec> for PyGateSpec {
    fn from(inner: GateSpec) -> Self {
        let prerequisites = inner.prerequisites().iter();
        PyGateSpec {
            name: inner.name().to_owned(),
            argv: inner.argv().to_vec(),
            cwd: inner.cwd().to_owned(),
            scope: PyScope::from(inner.scope().clone()),
            prerequisites: prerequisites
                .map(|(k, v)| (k.clone(), PyObserve::from(v.clone())))
                .collect(),
            inner,
        }
    }
}

#[pymethods]
impl PyGateSpec {
    #[new]
    #[pyo3(signature = (name, argv, scope, *, cwd = None, prerequisites = None))]
    #[pyo3(text_signature = "(name, argv, scope, *, cwd='.', prerequisites=None)")]
    fn new(
        py: Python<'_>,
        name: String,
        argv: &Bound<'_, PyAny>,
        scope: &PyScope,
        cwd: Option<&Bound<'_, PyString>>,
        prerequisites: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let prerequisites = self::prerequisites(prerequisites)?.unwrap_or_default();
        let (argv, cwd) = command(&name, argv, cwd)?;
        let scope = scope.inner.clone();
        let spec = errors::run(py, || {
            GateSpec::new(&name, argv, &cwd, scope, prerequisites)
        })?;
        Ok(Self::from(spec))
    }

    /// Observes every prerequisite now (`None`: an unset variable).
    fn observe(&self, py: Python<'_>) -> PyResult<Observations> {
        let spec = self.inner.clone();
        errors::detached(py, move || spec.observe())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["name", "argv", "cwd"])
    }
}

/// The record of one gate run.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "Evidence", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyEvidence {
    /// The gate's definition as run (the scope resolved).
    #[pyo3(get)]
    spec: PyGateSpec,
    /// The prerequisites' observed values (`None`: an unset variable).
    #[pyo3(get)]
    prerequisites: Observations,
    /// The exit status; `None` when the command was killed by a signal.
    #[pyo3(get)]
    exit_status: Option<i32>,
    /// The signal that killed the command, if one did.
    #[pyo3(get)]
    signal: Option<i32>,
    /// Why ledger stopped the command, if it did: `timeout`, `signal` (a
    /// forwarded one) or `interrupt` (Ctrl-C); such a run never passes.
    #[pyo3(get)]
    stopped: Option<&'static str>,
    /// When the run started (RFC 3339, UTC).
    #[pyo3(get)]
    started_at: String,
    /// How long it ran, in milliseconds.
    #[pyo3(get)]
    duration_ms: u64,
    /// The last lines of the output.
    #[pyo3(get)]
    result: String,
    /// The inputs as they were when the command started.
    #[pyo3(get)]
    inventory: PyInventory,
    /// Why this evidence can never be reused, if so.
    #[pyo3(get)]
    not_reusable: Option<String>,
    /// The fingerprint of the inputs.
    #[pyo3(get)]
    fingerprint: String,
    /// Whether the command exited with status 0 on its own.
    #[pyo3(get)]
    passed: bool,
    /// How many bytes of output the command wrote (`None` in evidence
    /// written before the output was kept).
    #[pyo3(get)]
    output_bytes: Option<u64>,
    /// `(head_bytes, dropped_bytes)` when the output was longer than the
    /// bound: the kept bytes are its first `head_bytes`, then its end.
    #[pyo3(get)]
    output_truncated: Option<(u64, u64)>,
    /// Whether ledger stopped the command's leftovers in its process group.
    #[pyo3(get)]
    left_in_group: bool,
    inner: Evidence,
}

impl From<Evidence> for PyEvidence {
    fn from(inner: Evidence) -> Self {
        let e = &inner;
        PyEvidence {
            spec: PyGateSpec::from(e.spec.clone()),
            prerequisites: e.prerequisites.clone(),
            exit_status: e.exit_status,
            signal: e.signal,
            stopped: e.stopped.as_ref().map(Stopped::code),
            started_at: e.started_at.clone(),
            duration_ms: e.duration_ms,
            result: e.result.clone(),
            inventory: PyInventory::from(e.inventory.clone()),
            not_reusable: e.not_reusable.clone(),
            fingerprint: e.fingerprint().to_string(),
            passed: e.passed(),
            output_bytes: e.output.as_ref().map(|o| o.total_bytes),
            output_truncated: e
                .output
                .as_ref()
                .and_then(|o| o.truncated)
                .map(|t| (t.head_bytes, t.dropped_bytes)),
            left_in_group: e.left_in_group,
            inner,
        }
    }
}

#[pymethods]
impl PyEvidence {
    /// The evidence as JSON (the body of its store record).
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    /// The output this run kept, as the raw bytes the command wrote, read
    /// from `store` and checked against the evidence's digest
    /// (`CorruptRecordError` when they differ, `UnreadableError` when gone).
    fn read_output(&self, py: Python<'_>, store: &PyStore) -> PyResult<Py<PyBytes>> {
        let kept = self.inner.output.clone().ok_or_else(|| {
            let e = ledger_core::Error::InvalidArgument {
                message: "this evidence was written before ledger kept a run's output".to_owned(),
            };
            errors::to_py(py, &e)
        })?;
        let store = store.inner.clone();
        let bytes = errors::detached(py, move || kept.read(&store))?;
        Ok(PyBytes::new(py, &bytes).unbind())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["spec", "exit_status", "passed"])
    }
}

/// Why evidence cannot be reused. `str()` gives the sentence `ledger gate
/// check` prints; `to_json()` every detail.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "StaleReason", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyStaleReason {
    /// `no-evidence`, `scope-differs`, `command-differs`, `inputs-changed`,
    /// `prerequisite-changed`, `prerequisite-unverified`, `failed` or
    /// `not-reusable`.
    #[pyo3(get)]
    reason: &'static str,
    /// For `inputs-changed`: which paths changed, and both fingerprints.
    #[pyo3(get)]
    comparison: Option<PyComparison>,
    inner: StaleReason,
}

impl From<StaleReason> for PyStaleReason {
    fn from(inner: StaleReason) -> Self {
        let comparison = match &inner {
            StaleReason::InputsChanged { comparison } => Some((**comparison).clone().into()),
            _ => None,
        };
        PyStaleReason {
            reason: inner.code(),
            comparison,
            inner,
        }
    }
}

#[pymethods]
impl PyStaleReason {
    /// The reason with its details as JSON (`{"reason": ..., ...}`).
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["reason"])
    }
}

/// The answer of a reuse check: fresh, or stale with every reason.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "Freshness", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyFreshness {
    /// The gate.
    #[pyo3(get)]
    gate: String,
    /// Whether the evidence can be reused instead of running the gate.
    #[pyo3(get)]
    fresh: bool,
    /// The record of the latest evidence, if any.
    #[pyo3(get)]
    record: Option<String>,
    /// The latest evidence, if any.
    #[pyo3(get)]
    evidence: Option<PyEvidence>,
    /// Every reason it is stale (empty when fresh).
    #[pyo3(get)]
    reasons: Vec<PyStaleReason>,
    inner: Freshness,
}

impl From<Freshness> for PyFreshness {
    fn from(inner: Freshness) -> Self {
        let f = &inner;
        PyFreshness {
            gate: f.gate.clone(),
            fresh: f.fresh,
            record: f.record.map(|r| r.to_string()),
            evidence: f.evidence.clone().map(PyEvidence::from),
            reasons: f.reasons.iter().cloned().map(PyStaleReason::from).collect(),
            inner,
        }
    }
}

#[pymethods]
impl PyFreshness {
    /// The answer as JSON, exactly as `ledger gate check --json` prints it.
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["gate", "fresh"])
    }
}

/// Whether the latest evidence of `spec.name` can be reused for `spec`:
/// identical scope, command and prerequisites, a successful exit, and
/// identical inputs now. Runs nothing but the prerequisite commands of `spec`
/// — so pass a spec you built, not one read from evidence (whose commands
/// anyone who can write the store chose): `check_recorded_gate` fills a check
/// from the evidence without running any of it.
#[pyfunction]
pub fn check_gate(py: Python<'_>, store: &PyStore, spec: &PyGateSpec) -> PyResult<PyFreshness> {
    let (store, spec) = (store.inner.clone(), spec.inner.clone());
    errors::detached(py, move || ledger_core::check_gate(&store, &spec)).map(PyFreshness::from)
}

/// What `ledger gate check` answers: whether the latest evidence of gate
/// `name` in the caller's `workspace` is fresh for the parts given now; the
/// parts left out are taken from the evidence. Nothing read from the store is
/// run: left-out prerequisites are `prerequisite-unverified`, a recorded scope
/// of another workspace is `scope-differs`. `scope` must lie at or below
/// `workspace`; `cwd` (default `.`) goes with `argv`.
#[pyfunction]
#[pyo3(signature = (workspace, name, *, scope = None, argv = None, cwd = None, prerequisites = None))]
pub fn check_recorded_gate(
    py: Python<'_>,
    workspace: PathArg,
    name: String,
    scope: Option<&PyScope>,
    argv: Option<&Bound<'_, PyAny>>,
    cwd: Option<&Bound<'_, PyString>>,
    prerequisites: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyFreshness> {
    let query = GateQuery {
        command: argv.map(|argv| command(&name, argv, cwd)).transpose()?,
        prerequisites: self::prerequisites(prerequisites)?,
        name,
        workspace: workspace.0.into(),
        scope: scope.map(|s| s.inner.clone()),
    };
    errors::detached(py, move || ledger_core::check_gate_query(&query)).map(PyFreshness::from)
}

/// The output the latest run of a gate kept (raw bytes), or `None` when it
/// never ran; `gate_output(...)` is what `ledger gate show` prints.
#[pyfunction]
pub fn gate_output(py: Python<'_>, store: &PyStore, gate: String) -> PyResult<Option<Py<PyBytes>>> {
    let store = store.inner.clone();
    let output = errors::detached(py, move || ledger_core::gate_output(&store, &gate))?;
    Ok(output.map(|o| PyBytes::new(py, &o.bytes).unbind()))
}

/// The latest evidence of a gate and its record id, or `None`.
#[pyfunction]
pub fn latest_evidence(
    py: Python<'_>,
    store: &PyStore,
    gate: String,
) -> PyResult<Option<(String, PyEvidence)>> {
    let store = store.inner.clone();
    let latest = errors::detached(py, move || ledger_core::latest_evidence(&store, &gate))?;
    Ok(latest.map(|(id, evidence)| (id.to_string(), PyEvidence::from(evidence))))
}
