//! Running a gate unless fresh evidence of it exists (`runGate`).

use napi::Env;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::error::Failure;
use crate::evidence::{GateSpec, store_of};
use crate::json::{Json, json};
use crate::task::{Work, block, spawn};

/// Where a gate command's output goes while it runs (its tail is kept in the
/// evidence either way).
#[napi(string_enum = "lowercase")]
#[derive(Debug, Clone, Copy)]
pub enum Echo {
    /// Nowhere (the default: the caller's stdout stays its own).
    Off,
    /// Its stdout to the process's stdout, its stderr to stderr.
    Passthrough,
    /// Both to the process's stderr.
    Stderr,
}

impl From<Echo> for ledger_core::Echo {
    fn from(echo: Echo) -> Self {
        match echo {
            Echo::Off => ledger_core::Echo::Off,
            Echo::Passthrough => ledger_core::Echo::Passthrough,
            Echo::Stderr => ledger_core::Echo::Stderr,
        }
    }
}

fn run_gate_impl(spec: &GateSpec, echo: Option<Echo>) -> Result<Json, Failure> {
    let spec = spec.to_core()?;
    let echo = echo.map_or(ledger_core::Echo::Off, ledger_core::Echo::from);
    json(&ledger_core::run_gate(&store_of(&spec)?, &spec, echo)?)
}

/// Reuses fresh evidence, or runs the command and records evidence whatever
/// its exit status (`ledger gate run --json`). The command runs on a libuv
/// pool thread for as long as it takes.
#[napi(ts_return_type = "Promise<RunOutcome>")]
pub fn run_gate(spec: GateSpec, echo: Option<Echo>) -> AsyncTask<Work<Json>> {
    spawn(move || run_gate_impl(&spec, echo))
}

/// `runGate`, blocking the JavaScript thread.
#[napi(ts_return_type = "RunOutcome")]
pub fn run_gate_sync(env: Env, spec: GateSpec, echo: Option<Echo>) -> napi::Result<Json> {
    block(&env, || run_gate_impl(&spec, echo))
}
