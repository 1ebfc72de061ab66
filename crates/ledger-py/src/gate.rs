//! `run_gate()` and `ledger.RunOutcome` (core `gate`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ledger_core::{Echo, Error, Interrupt, RunOptions, RunOutcome};
use pyo3::prelude::*;

use crate::evidence::{PyEvidence, PyFreshness, PyGateSpec};
use crate::store::PyStore;
use crate::{errors, repr};

/// What `run_gate()` did: reused fresh evidence, or ran and recorded.
#[pyclass(frozen)]
#[pyo3(name = "RunOutcome", module = "ledger")]
pub struct PyRunOutcome {
    /// Whether fresh evidence was reused (the command did not run).
    #[pyo3(get)]
    reused: bool,
    /// The freshness check made before deciding.
    #[pyo3(get)]
    freshness: PyFreshness,
    /// The evidence record written by this run (`None` when reused).
    #[pyo3(get)]
    record: Option<String>,
    /// The evidence of this run (`None` when reused).
    #[pyo3(get)]
    evidence: Option<PyEvidence>,
    /// 0 when reused, else the command's exit status (128 + N when signal N
    /// killed it; 124 when its timeout expired).
    #[pyo3(get)]
    exit_code: i32,
    inner: RunOutcome,
}

impl From<RunOutcome> for PyRunOutcome {
    fn from(inner: RunOutcome) -> Self {
        PyRunOutcome {
            reused: inner.reused,
            freshness: PyFreshness::from(inner.freshness.clone()),
            record: inner.record.map(|r| r.to_string()),
            evidence: inner.evidence.clone().map(PyEvidence::from),
            exit_code: inner.exit_code(),
            inner,
        }
    }
}

#[pymethods]
impl PyRunOutcome {
    /// The outcome as JSON, exactly as `ledger gate run --json` prints it.
    fn to_json(&self) -> String {
        ledger_core::to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["reused", "exit_code"])
    }
}

/// Runs the gate unless fresh evidence exists, and records evidence whatever
/// the exit status. `echo`: where the command's output goes while it runs —
/// `off` (only kept as the evidence's result), `passthrough` (the process's
/// stdout/stderr, as the CLI does) or `stderr`. `timeout`: seconds after which
/// the gate's process group is sent SIGTERM (SIGKILL 2 s later), recorded as
/// failed and not reusable. Called from the main thread, a Ctrl-C
/// (`KeyboardInterrupt`) stops the gate the same way, and is raised once its
/// evidence is recorded. The GIL is released meanwhile.
#[pyfunction]
#[pyo3(signature = (store, spec, *, echo = "off", timeout = None))]
pub fn run_gate(
    py: Python<'_>,
    store: &PyStore,
    spec: &PyGateSpec,
    echo: &str,
    timeout: Option<f64>,
) -> PyResult<PyRunOutcome> {
    let echo: Echo = errors::run(py, || echo.parse())?;
    let timeout = timeout
        .map(|seconds| seconds_to_duration(py, seconds))
        .transpose()?;
    let pending = Arc::new(Mutex::new(None));
    let options = RunOptions {
        echo,
        timeout,
        forward_signals: false,
        interrupt: on_main_thread(py)?.then(|| keyboard_interrupt(&pending)),
    };
    let (store, spec) = (store.inner.clone(), spec.inner.clone());
    let outcome = errors::detached(py, move || {
        ledger_core::run_gate_with(&store, &spec, &options)
    })?;
    // The gate was stopped for a Ctrl-C and its evidence recorded: now the
    // interrupt is the caller's.
    if let Some(interrupt) = pending.lock().ok().and_then(|mut p| p.take()) {
        return Err(interrupt);
    }
    Ok(PyRunOutcome::from(outcome))
}

/// A timeout in seconds: a positive, finite number (`InvalidArgumentError`).
fn seconds_to_duration(py: Python<'_>, seconds: f64) -> PyResult<Duration> {
    RunOptions::timeout_from_secs(seconds).ok_or_else(|| {
        let message = format!("timeout must be a positive number of seconds, not {seconds}");
        errors::to_py(py, &Error::InvalidArgument { message })
    })
}

/// Whether this is Python's main thread: only there are signals seen.
fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    let current = threading.call_method0("current_thread")?;
    Ok(current.is(&threading.call_method0("main_thread")?))
}

/// Asks Python whether a signal handler raised (Ctrl-C: `KeyboardInterrupt`),
/// keeping the exception to raise once the gate is stopped and recorded.
fn keyboard_interrupt(pending: &Arc<Mutex<Option<PyErr>>>) -> Interrupt {
    let pending = Arc::clone(pending);
    Arc::new(move || {
        Python::attach(|py| match py.check_signals() {
            Ok(()) => false,
            Err(raised) => {
                if let Ok(mut slot) = pending.lock() {
                    slot.get_or_insert(raised);
                }
                true
            }
        })
    })
}
