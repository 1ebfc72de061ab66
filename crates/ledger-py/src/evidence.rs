//! Gate definitions and the reuse decision: `ledger.Observe`, `ledger.GateSpec`,
//! `ledger.Evidence`, `ledger.Freshness`, `ledger.StaleReason`, `check_gate()`
//! and `latest_evidence()` (core `evidence`).

use std::collections::BTreeMap;

use ledger_core::{
    DisplayPath, Error, Evidence, Freshness, GateQuery, GateSpec, Observe, StaleReason, Stopped,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::args::{PathArg, mapping, py_bool};
use crate::compare::PyComparison;
use crate::errors;
use crate::inventory::PyInventory;
use crate::scope::{PyScope, json_text};
use crate::store::PyStore;

/// How a prerequisite's value is observed: a literal, an environment
/// variable, or the trimmed stdout of a shell command.
#[pyclass(frozen, eq, name = "Observe", module = "ledger")]
#[derive(PartialEq)]
pub struct PyObserve {
    inner: Observe,
}

#[pymethods]
impl PyObserve {
    /// A value given by the caller (`--env NAME=VALUE`). A `str` that is not
    /// valid Unicode (lone surrogates, e.g. a non-UTF-8 value read through
    /// `os.environ`) is `NonUtf8ValueError`, never a replaced value.
    #[staticmethod]
    fn literal(value: &Bound<'_, PyString>) -> PyResult<Self> {
        Ok(PyObserve {
            inner: Observe::Literal(exact_text(value, "prerequisite literal value")?),
        })
    }

    /// The value of an environment variable, `None` when unset (`--env NAME`).
    #[staticmethod]
    fn environment(variable: &Bound<'_, PyString>) -> PyResult<Self> {
        let variable = exact_text(variable, "an environment variable name")?;
        Ok(PyObserve {
            inner: Observe::Environment(variable),
        })
    }

    /// The stdout of `sh -c command`, trimmed of ASCII whitespace
    /// (`--env-cmd NAME=COMMAND`).
    #[staticmethod]
    fn command(command: &Bound<'_, PyString>) -> PyResult<Self> {
        let command = exact_text(command, "a prerequisite command")?;
        Ok(PyObserve {
            inner: Observe::Command(command),
        })
    }

    /// `literal`, `environment` or `command`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner {
            Observe::Literal(_) => "literal",
            Observe::Environment(_) => "environment",
            Observe::Command(_) => "command",
        }
    }

    /// The literal value, the variable's name, or the command.
    #[getter]
    fn text(&self) -> &str {
        match &self.inner {
            Observe::Literal(s) | Observe::Environment(s) | Observe::Command(s) => s,
        }
    }

    /// Observes the value now: `None` for an unset variable
    /// (`PrerequisiteFailedError` when the command fails, `NonUtf8ValueError`
    /// when the value is not UTF-8).
    #[pyo3(signature = (name = ""))]
    fn observe(&self, py: Python<'_>, name: &str) -> PyResult<Option<String>> {
        let (how, name) = (self.inner.clone(), name.to_owned());
        errors::detached(py, move || how.value(&name))
    }

    fn __repr__(&self) -> String {
        format!("Observe.{}({:?})", self.kind(), self.text())
    }
}

/// A gate's definition: what it runs, where (relative to the workspace), on
/// which inputs, and which prerequisites its result depends on.
#[pyclass(frozen, eq, name = "GateSpec", module = "ledger")]
#[derive(PartialEq)]
pub struct PyGateSpec {
    pub(crate) inner: GateSpec,
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
        let observe = |v: &Bound<'_, PyAny>| Ok(v.cast::<PyObserve>()?.get().inner.clone());
        let prerequisites = prerequisites.map(|p| mapping(p, observe)).transpose()?;
        let what = format!("an argument of gate {name}");
        let argv = exact_strings(argv, &what)?;
        let cwd = match cwd {
            Some(cwd) => exact_text(cwd, &format!("the cwd of gate {name}"))?,
            None => ".".to_owned(),
        };
        let scope = scope.inner.clone();
        let prerequisites = prerequisites.unwrap_or_default();
        let inner = errors::run(py, || {
            GateSpec::new(&name, argv, &cwd, scope, prerequisites)
        })?;
        Ok(PyGateSpec { inner })
    }

    /// The gate's name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// The exact command.
    #[getter]
    fn argv(&self) -> Vec<String> {
        self.inner.argv().to_vec()
    }

    /// The working directory relative to the workspace, normalized (`.` or
    /// a path such as `sub`).
    #[getter]
    fn cwd(&self) -> &str {
        self.inner.cwd()
    }

    /// The inputs.
    #[getter]
    fn scope(&self) -> PyScope {
        PyScope {
            inner: self.inner.scope().clone(),
        }
    }

    /// Prerequisite name → how it is observed.
    #[getter]
    fn prerequisites(&self) -> BTreeMap<String, PyObserve> {
        let prerequisites = self.inner.prerequisites().iter();
        prerequisites
            .map(|(k, v)| (k.clone(), PyObserve { inner: v.clone() }))
            .collect()
    }

    /// Observes every prerequisite now (`None`: an unset variable).
    fn observe(&self, py: Python<'_>) -> PyResult<BTreeMap<String, Option<String>>> {
        let spec = self.inner.clone();
        errors::detached(py, move || spec.observe())
    }

    fn __repr__(&self) -> String {
        format!("GateSpec({:?}, {:?})", self.inner.name(), self.inner.argv())
    }
}

/// The record of one gate run.
#[pyclass(frozen, eq, name = "Evidence", module = "ledger")]
#[derive(PartialEq)]
pub struct PyEvidence {
    pub(crate) inner: Evidence,
}

#[pymethods]
impl PyEvidence {
    /// The gate's definition as run (the scope resolved).
    #[getter]
    fn spec(&self) -> PyGateSpec {
        PyGateSpec {
            inner: self.inner.spec.clone(),
        }
    }

    /// The prerequisites' observed values (`None`: an unset variable).
    #[getter]
    fn prerequisites(&self) -> BTreeMap<String, Option<String>> {
        self.inner.prerequisites.clone()
    }

    /// The exit status; `None` when the command was killed by a signal.
    #[getter]
    fn exit_status(&self) -> Option<i32> {
        self.inner.exit_status
    }

    /// The signal that killed the command, if one did.
    #[getter]
    fn signal(&self) -> Option<i32> {
        self.inner.signal
    }

    /// Why ledger stopped the command, if it did: `timeout`, `signal` (a
    /// forwarded one) or `interrupt` (Ctrl-C); such a run never passes.
    #[getter]
    fn stopped(&self) -> Option<&'static str> {
        self.inner.stopped.as_ref().map(Stopped::code)
    }

    /// When the run started (RFC 3339, UTC).
    #[getter]
    fn started_at(&self) -> &str {
        &self.inner.started_at
    }

    /// How long it ran, in milliseconds.
    #[getter]
    fn duration_ms(&self) -> u64 {
        self.inner.duration_ms
    }

    /// The last lines of the output.
    #[getter]
    fn result(&self) -> &str {
        &self.inner.result
    }

    /// The inputs as they were when the command started.
    #[getter]
    fn inventory(&self) -> PyInventory {
        PyInventory::new(self.inner.inventory.clone())
    }

    /// Why this evidence can never be reused, if so.
    #[getter]
    fn not_reusable(&self) -> Option<&str> {
        self.inner.not_reusable.as_deref()
    }

    /// The fingerprint of the inputs.
    #[getter]
    fn fingerprint(&self) -> String {
        self.inner.fingerprint().to_string()
    }

    /// Whether the command exited with status 0.
    #[getter]
    fn passed(&self) -> bool {
        self.inner.passed()
    }

    /// The evidence as JSON (the body of its store record).
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    fn __repr__(&self) -> String {
        let e = &self.inner;
        format!(
            "Evidence({:?}, exit_status={:?})",
            e.spec.name(),
            e.exit_status
        )
    }
}

/// Why evidence cannot be reused. `str()` gives the sentence `ledger gate
/// check` prints; `to_json()` every detail.
#[pyclass(frozen, eq, name = "StaleReason", module = "ledger")]
#[derive(PartialEq)]
pub struct PyStaleReason {
    inner: StaleReason,
}

#[pymethods]
impl PyStaleReason {
    /// `no-evidence`, `scope-differs`, `command-differs`, `inputs-changed`,
    /// `prerequisite-changed`, `prerequisite-unverified`, `failed` or
    /// `not-reusable`.
    #[getter]
    fn reason(&self) -> &'static str {
        self.inner.code()
    }

    /// For `inputs-changed`: which paths changed, and both fingerprints.
    #[getter]
    fn comparison(&self) -> Option<PyComparison> {
        match &self.inner {
            StaleReason::InputsChanged { comparison } => Some(PyComparison {
                inner: (**comparison).clone(),
            }),
            _ => None,
        }
    }

    /// The reason with its details as JSON (`{"reason": ..., ...}`).
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("StaleReason({:?})", self.reason())
    }
}

/// The answer of a reuse check: fresh, or stale with every reason.
#[pyclass(frozen, eq, name = "Freshness", module = "ledger")]
#[derive(PartialEq)]
pub struct PyFreshness {
    pub(crate) inner: Freshness,
}

#[pymethods]
impl PyFreshness {
    /// The gate.
    #[getter]
    fn gate(&self) -> &str {
        &self.inner.gate
    }

    /// Whether the evidence can be reused instead of running the gate.
    #[getter]
    fn fresh(&self) -> bool {
        self.inner.fresh
    }

    /// The record of the latest evidence, if any.
    #[getter]
    fn record(&self) -> Option<String> {
        self.inner.record.map(|r| r.to_string())
    }

    /// The latest evidence, if any.
    #[getter]
    fn evidence(&self) -> Option<PyEvidence> {
        let evidence = self.inner.evidence.clone();
        evidence.map(|inner| PyEvidence { inner })
    }

    /// Every reason it is stale (empty when fresh).
    #[getter]
    fn reasons(&self) -> Vec<PyStaleReason> {
        let reasons = self.inner.reasons.iter().cloned();
        reasons.map(|inner| PyStaleReason { inner }).collect()
    }

    /// The answer as JSON, exactly as `ledger gate check --json` prints it.
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    fn __repr__(&self) -> String {
        let f = &self.inner;
        format!("Freshness({:?}, fresh={})", f.gate, py_bool(f.fresh))
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
    let inner = errors::detached(py, move || ledger_core::check_gate(&store, &spec))?;
    Ok(PyFreshness { inner })
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
    let observe = |v: &Bound<'_, PyAny>| Ok(v.cast::<PyObserve>()?.get().inner.clone());
    let prerequisites = prerequisites.map(|p| mapping(p, observe)).transpose()?;
    let argv = argv
        .map(|a| exact_strings(a, &format!("an argument of gate {name}")))
        .transpose()?;
    let cwd = match cwd {
        Some(cwd) => exact_text(cwd, &format!("the cwd of gate {name}"))?,
        None => ".".to_owned(),
    };
    let query = GateQuery {
        name,
        workspace: workspace.0.into(),
        scope: scope.map(|s| s.inner.clone()),
        command: argv.map(|argv| (argv, cwd)),
        prerequisites,
    };
    let inner = errors::detached(py, move || ledger_core::check_gate_query(&query))?;
    Ok(PyFreshness { inner })
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
    Ok(latest.map(|(id, inner)| (id.to_string(), PyEvidence { inner })))
}

/// A `str` as exact UTF-8 text. One that is not valid Unicode (lone
/// surrogates) cannot be recorded byte-exactly: it is `NonUtf8ValueError`
/// naming its bytes (as `os.fsencode` gives them), never replaced by U+FFFD.
fn exact_text(value: &Bound<'_, PyString>, what: &str) -> PyResult<String> {
    if let Ok(text) = value.extract::<String>() {
        return Ok(text);
    }
    let py = value.py();
    let encoded = value
        .call_method1("encode", ("utf-8", "surrogateescape"))
        .or_else(|_| value.call_method1("encode", ("utf-8", "surrogatepass")))?;
    let bytes = encoded.cast::<PyBytes>()?.as_bytes();
    let error = Error::NonUtf8Value {
        what: what.to_owned(),
        value: DisplayPath::from_bytes(bytes).0,
    };
    Err(errors::to_py(py, &error))
}

/// An iterable of `str` (not a `str` itself), each as exact text ([`exact_text`]).
fn exact_strings(arg: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    if arg.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "expected an iterable of str, not a str",
        ));
    }
    arg.try_iter()?
        .map(|item| exact_text(item?.cast::<PyString>()?, what))
        .collect()
}
