//! The native side of the Node door: one verb call, asynchronous (on a thread
//! of its own, settling a Promise) and synchronous, returning the reply
//! of `ledger_core::door::respond` as JSON text. The typed API (`api.js`,
//! `index.d.ts`: `Workspace`, `LedgerError`, `ErrorCode`) is generated from
//! `ledger_core::door::description()`; nothing about a verb is written here.
//!
//! Cancellation is the core's token (`ledger_core::door::cancel`): the
//! generated wrapper makes one (`cancelToken`), cancels it from the abort
//! event of the caller's `AbortSignal` (`cancel`), passes its number to the
//! call and lets it go (`releaseCancel`) once the call settles. napi-rs's own
//! `AbortSignal` argument is not used: it cancels an `AsyncTask` only before
//! its work starts (`napi_cancel_async_work`), and a call here runs on a
//! thread of its own, where it would not reach a gate that is running; it
//! also takes the signal's `onabort` property, which is the caller's.

use ledger_core::door::{self, Case, Hooks};
use napi::Env;
use napi::bindgen_prelude::Object;
use napi_derive::napi;

/// One call: a verb, its workspace and its options.
pub struct Respond {
    workspace: Option<String>,
    /// The workspace's settings as JSON (what `workspaceSettings` returned
    /// when the `Workspace` was made); `None`: the defaults.
    settings_json: Option<String>,
    verb: String,
    options_json: String,
    cancel: Option<i64>,
}

impl Respond {
    fn run(&self) -> String {
        // Node has no interrupt to offer: a gate is stopped by its timeout,
        // its cancellation token, or the process's own signal handling. A
        // negative number names no token (the core refuses an unknown one).
        let hooks = Hooks {
            cancel: self.cancel.map(|id| u64::try_from(id).unwrap_or(0)),
            ..Hooks::default()
        };
        let workspace = self.workspace.as_deref();
        door::respond_with(
            workspace,
            self.settings_json.as_deref(),
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
/// `cancel`: a token of `cancelToken` that stops the call's gate.
/// `settingsJson`: the workspace's settings (`null`: the defaults).
#[napi(ts_return_type = "Promise<string>")]
pub fn call<'env>(
    env: &'env Env,
    workspace: Option<String>,
    verb: String,
    options_json: String,
    cancel: Option<i64>,
    settings_json: Option<String>,
) -> napi::Result<Object<'env>> {
    let (deferred, promise) = env.create_deferred()?;
    let respond = Respond {
        workspace,
        settings_json,
        verb,
        options_json,
        cancel,
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
pub fn call_sync(
    workspace: Option<String>,
    verb: String,
    options_json: String,
    cancel: Option<i64>,
    settings_json: Option<String>,
) -> String {
    Respond {
        workspace,
        settings_json,
        verb,
        options_json,
        cancel,
    }
    .run()
}

/// A new cancellation token, not cancelled: its number.
#[napi]
pub fn cancel_token() -> i64 {
    // Numbers count up from 1; past 2^53 (never, in one process) a number
    // would lose precision in JavaScript, so the wrapper could not name it.
    i64::try_from(door::cancel::new_token()).unwrap_or(i64::MAX)
}

/// Cancels the token `id` (from the abort event of the caller's signal):
/// `false` when no such token is registered.
#[napi]
pub fn cancel(id: i64) -> bool {
    u64::try_from(id).is_ok_and(door::cancel::cancel)
}

/// Lets the token `id` go, once the call that held it has settled.
#[napi]
pub fn release_cancel(id: i64) {
    if let Ok(id) = u64::try_from(id) {
        door::cancel::release(id);
    }
}

/// `ledger_core::door::description()` as JSON text.
#[napi]
pub fn description() -> String {
    door::description().to_string()
}
