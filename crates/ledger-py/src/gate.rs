//! `run_gate()` and `ledger.RunOutcome` (core `gate`).

use ledger_core::{Echo, Error, RunOutcome};
use pyo3::prelude::*;

use crate::args::py_bool;
use crate::errors;
use crate::evidence::{PyEvidence, PyFreshness, PyGateSpec};
use crate::scope::json_text;
use crate::store::PyStore;

/// What `run_gate()` did: reused fresh evidence, or ran and recorded.
#[pyclass(frozen, name = "RunOutcome", module = "ledger")]
pub struct PyRunOutcome {
    inner: RunOutcome,
}

#[pymethods]
impl PyRunOutcome {
    /// Whether fresh evidence was reused (the command did not run).
    #[getter]
    fn reused(&self) -> bool {
        self.inner.reused
    }

    /// The freshness check made before deciding.
    #[getter]
    fn freshness(&self) -> PyFreshness {
        PyFreshness {
            inner: self.inner.freshness.clone(),
        }
    }

    /// The evidence record written by this run (`None` when reused).
    #[getter]
    fn record(&self) -> Option<String> {
        self.inner.record.map(|r| r.to_string())
    }

    /// The evidence of this run (`None` when reused).
    #[getter]
    fn evidence(&self) -> Option<PyEvidence> {
        let evidence = self.inner.evidence.clone();
        evidence.map(|inner| PyEvidence { inner })
    }

    /// 0 when reused, else the command's exit status (129 when killed).
    #[getter]
    fn exit_code(&self) -> i32 {
        self.inner.exit_code()
    }

    /// The outcome as JSON, exactly as `ledger gate run --json` prints it.
    fn to_json(&self) -> String {
        json_text(&self.inner)
    }

    fn __repr__(&self) -> String {
        let o = &self.inner;
        format!(
            "RunOutcome(reused={}, exit_code={})",
            py_bool(o.reused),
            o.exit_code()
        )
    }
}

/// Runs the gate unless fresh evidence exists, and records evidence whatever
/// the exit status. `echo`: where the command's output goes while it runs —
/// `off` (only kept as the evidence's result), `passthrough` (the process's
/// stdout/stderr, as the CLI does) or `stderr`. The GIL is released meanwhile.
#[pyfunction]
#[pyo3(signature = (store, spec, *, echo = "off"))]
pub fn run_gate(
    py: Python<'_>,
    store: &PyStore,
    spec: &PyGateSpec,
    echo: &str,
) -> PyResult<PyRunOutcome> {
    let echo = match echo {
        "off" => Echo::Off,
        "passthrough" => Echo::Passthrough,
        "stderr" => Echo::Stderr,
        other => {
            let message = format!("echo must be 'off', 'passthrough' or 'stderr', not {other:?}");
            return Err(errors::to_py(py, &Error::InvalidArgument { message }));
        }
    };
    let (store, spec) = (store.inner.clone(), spec.inner.clone());
    let inner = errors::detached(py, move || ledger_core::run_gate(&store, &spec, echo))?;
    Ok(PyRunOutcome { inner })
}
