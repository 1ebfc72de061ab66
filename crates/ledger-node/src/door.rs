//! The native side of the Node door: one verb call, asynchronous (on a thread
//! of its own, settling a Promise) and synchronous, returning the reply
//! of `ledger_core::door::respond` as JSON text. The typed API (`api.js`,
//! `index.d.ts`: `Workspace`, `LedgerError`, `ErrorCode`) is generated from
//! `ledger_core::door::description()`; nothing about a verb is written here.

use ledger_core::door::{self, Case, Hooks};
use napi::Env;
use napi::bindgen_prelude::Object;
use napi_derive::napi;

/// One call: a verb, its workspace and its options.
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

/// Runs `verb` with `optionsJson` on `workspace` (`null` for a free verb):
/// a Promise of the reply, `{"ok": ...}` or `{"error": {...}}` as JSON text.
/// It never rejects for a ledger error: the generated wrapper makes the
/// `LedgerError`. The call runs on a thread of its own, not on the libuv
/// pool: a gate's command may run for minutes, and holding a pool thread that
/// long would stall every other asynchronous call (and Node's own fs work).
#[napi(ts_return_type = "Promise<string>")]
pub fn call<'env>(
    env: &'env Env,
    workspace: Option<String>,
    verb: String,
    options_json: String,
) -> napi::Result<Object<'env>> {
    let (deferred, promise) = env.create_deferred()?;
    let respond = Respond {
        workspace,
        verb,
        options_json,
    };
    std::thread::Builder::new()
        .name("ledger-call".to_owned())
        .spawn(move || {
            let reply = respond.run();
            deferred.resolve(move |_| Ok(reply));
        })
        .map_err(|e| {
            napi::Error::from_reason(format!("cannot start a thread for the call: {e}"))
        })?;
    Ok(promise)
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
