//! The native side of the Node door: one verb call, asynchronous (napi's
//! `AsyncTask`, on the libuv thread pool) and synchronous, returning the reply
//! of `ledger_core::door::respond` as JSON text. The typed API (`api.js`,
//! `index.d.ts`: `Workspace`, `LedgerError`, `ErrorCode`) is generated from
//! `ledger_core::door::description()`; nothing about a verb is written here.

use ledger_core::door::{self, Case, Hooks};
use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;

/// One call, computed on the thread pool.
pub struct Respond {
    workspace: Option<String>,
    verb: String,
    options_json: String,
}

impl Respond {
    fn run(&self) -> String {
        // Node has no interrupt to offer: a gate is stopped by its timeout,
        // or by the process's own signal handling.
        let hooks = Hooks::default();
        let workspace = self.workspace.as_deref();
        door::respond(
            workspace,
            &self.verb,
            &self.options_json,
            Case::Camel,
            &hooks,
        )
    }
}

impl Task for Respond {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<String> {
        Ok(self.run())
    }

    fn resolve(&mut self, _env: Env, output: String) -> napi::Result<String> {
        Ok(output)
    }
}

/// Runs `verb` with `optionsJson` on `workspace` (`null` for a free verb):
/// a Promise of the reply, `{"ok": ...}` or `{"error": {...}}` as JSON text.
/// It never rejects for a ledger error: the generated wrapper makes the
/// `LedgerError`.
#[napi(ts_return_type = "Promise<string>")]
pub fn call(workspace: Option<String>, verb: String, options_json: String) -> AsyncTask<Respond> {
    AsyncTask::new(Respond {
        workspace,
        verb,
        options_json,
    })
}

/// `call`, on the JavaScript thread.
#[napi]
pub fn call_sync(workspace: Option<String>, verb: String, options_json: String) -> String {
    Respond {
        workspace,
        verb,
        options_json,
    }
    .run()
}

/// `ledger_core::door::description()` as JSON text.
#[napi]
pub fn description() -> String {
    door::description().to_string()
}
