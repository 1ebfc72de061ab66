//! Running a gate unless fresh evidence of it exists (`runGate`).

use std::time::Duration;

use ledger_core::{Error, RunOptions, RunOutcome};
use napi::Env;
use napi::bindgen_prelude::Object;
use napi_derive::napi;
use serde::Serialize;

use crate::error::{Failure, guard, to_js};
use crate::evidence::{GateSpec, store_of};
use crate::json::{Json, json};
use crate::task::block;

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

/// `timeoutMs` as a duration: a positive, finite number (`invalid-argument`).
fn timeout_of(timeout_ms: Option<f64>) -> Result<Option<Duration>, Failure> {
    let Some(ms) = timeout_ms else {
        return Ok(None);
    };
    match RunOptions::timeout_from_secs(ms / 1000.0) {
        Some(limit) => Ok(Some(limit)),
        None => Err(Failure::Core(Error::InvalidArgument {
            message: format!("timeoutMs must be a positive number of milliseconds, not {ms}"),
        })),
    }
}

fn run_gate_impl(
    spec: &GateSpec,
    echo: Option<Echo>,
    timeout_ms: Option<f64>,
) -> Result<Json, Failure> {
    let spec = spec.to_core()?;
    let options = RunOptions {
        echo: echo.map_or(ledger_core::Echo::Off, ledger_core::Echo::from),
        timeout: timeout_of(timeout_ms)?,
        // Node's own signal handling stays Node's.
        forward_signals: false,
        interrupt: None,
    };
    let outcome = ledger_core::run_gate_with(&store_of(&spec)?, &spec, &options)?;
    json(&WithExitCode {
        exit_code: outcome.exit_code(),
        outcome: &outcome,
    })
}

/// `ledger gate run --json`'s document plus the status that command exits
/// with (`RunOutcome::exit_code`, Python's `RunOutcome.exit_code`).
#[derive(Serialize)]
struct WithExitCode<'a> {
    #[serde(flatten)]
    outcome: &'a RunOutcome,
    exit_code: i32,
}

/// Reuses fresh evidence, or runs the command and records evidence whatever
/// its exit status (`ledger gate run --json`). `timeoutMs`: after so long the
/// gate's process group is sent SIGTERM (SIGKILL 2 s later), and the run is
/// recorded as failed and not reusable.
///
/// The gate runs on a thread of its own, not on the libuv pool: a gate that
/// takes minutes must not hold one of the pool's few threads, which every
/// other asynchronous call (fs, ledger's own) needs.
#[napi(ts_return_type = "Promise<RunOutcome>")]
pub fn run_gate<'env>(
    env: &'env Env,
    spec: GateSpec,
    echo: Option<Echo>,
    timeout_ms: Option<f64>,
) -> napi::Result<Object<'env>> {
    let (deferred, promise) = env.create_deferred()?;
    std::thread::Builder::new()
        .name("ledger-gate".to_owned())
        .spawn(move || {
            let outcome = guard(|| run_gate_impl(&spec, echo, timeout_ms));
            // The JavaScript value (or error, with its code) is made on the
            // JavaScript thread, where the promise settles.
            deferred.resolve(move |env| outcome.map_err(|failure| to_js(&env, failure)));
        })
        .map_err(|e| {
            napi::Error::from_reason(format!("cannot start a thread for the gate: {e}"))
        })?;
    Ok(promise)
}

/// `runGate`, blocking the JavaScript thread.
#[napi(ts_return_type = "RunOutcome")]
pub fn run_gate_sync(
    env: Env,
    spec: GateSpec,
    echo: Option<Echo>,
    timeout_ms: Option<f64>,
) -> napi::Result<Json> {
    block(&env, || run_gate_impl(&spec, echo, timeout_ms))
}
