//! The native side of the Python door: one function that runs a verb of
//! `ledger_core::door` and returns its reply as JSON text. The typed API
//! (`ledger/_api.py`: `Workspace`, TypedDicts, the `LedgerError` classes) is
//! generated from `ledger_core::door::description()`, and turns the reply
//! into a result or an exception; nothing about a verb is written here.

use std::sync::{Arc, Mutex};

use ledger_core::door::{self, Case, Hooks};
use ledger_core::gate::Interrupt;
use pyo3::prelude::*;

/// Runs `verb` with `options_json` on `workspace` (`None` for a free verb),
/// with the GIL released. Returns `{"ok": ...}` or `{"error": {...}}` as JSON
/// text — never raises for a ledger error. Called from the main thread, a
/// Ctrl-C stops a running gate (its evidence is recorded), and the
/// `KeyboardInterrupt` is then raised here. `cancel`: a token of
/// `cancel_token` (`ledger.Cancel`) that stops the call's gate from any thread.
/// `settings_json`: the workspace's settings, as `workspace_settings` returned
/// them when the `Workspace` was made (`None`: the defaults).
#[pyfunction]
#[pyo3(signature = (workspace, verb, options_json, cancel=None, settings_json=None))]
pub fn call(
    py: Python<'_>,
    workspace: Option<String>,
    verb: String,
    options_json: String,
    cancel: Option<u64>,
    settings_json: Option<String>,
) -> PyResult<String> {
    let pending = Arc::new(Mutex::new(None));
    let hooks = Hooks {
        interrupt: on_main_thread(py)?.then(|| keyboard_interrupt(&pending)),
        cancel,
    };
    let reply = py.detach(move || {
        door::respond_with(
            workspace.as_deref(),
            settings_json.as_deref(),
            &verb,
            &options_json,
            Case::Snake,
            &hooks,
        )
    });
    // A gate was stopped for a Ctrl-C and its evidence recorded: now the
    // interrupt is the caller's.
    if let Some(interrupt) = pending.lock().ok().and_then(|mut p| p.take()) {
        return Err(interrupt);
    }
    Ok(reply)
}

/// A new cancellation token (`ledger_core::door::cancel`), not cancelled: its
/// number. `ledger.Cancel` holds one.
#[pyfunction]
pub fn cancel_token() -> u64 {
    door::cancel::new_token()
}

/// Cancels the token `id`, from any thread (no GIL needed: it sets a flag):
/// `false` when no such token is registered.
#[pyfunction]
pub fn cancel(id: u64) -> bool {
    door::cancel::cancel(id)
}

/// Whether the token `id` was cancelled.
#[pyfunction]
pub fn is_cancelled(id: u64) -> bool {
    door::cancel::is_cancelled(id)
}

/// Lets the token `id` go (`ledger.Cancel`'s finalizer).
#[pyfunction]
pub fn release_cancel(id: u64) {
    door::cancel::release(id);
}

/// `ledger_core::door::description()` as JSON text: every verb, its option
/// and output schemas, every error code.
#[pyfunction]
pub fn description() -> String {
    door::description().to_string()
}

/// Whether this is Python's main thread: only there are signals seen.
fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    let current = threading.call_method0("current_thread")?;
    Ok(current.is(&threading.call_method0("main_thread")?))
}

/// Asks Python whether a signal handler raised (Ctrl-C: `KeyboardInterrupt`),
/// keeping the exception to raise once the verb has returned.
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
