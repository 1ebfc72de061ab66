//! A hook for the binding's own tests: a panic inside a verb must become an
//! `Error` with code `'panic'` (async: a rejection), never a crash of Node.
//! The core never panics on purpose, so no real input reaches that path; the
//! core's test verb `_panic` does, through the same `door::respond`, and these
//! two functions throw its reply as the error it describes. They are left out
//! of the typed API (`skip_typescript`): only a test that loads the `.node`
//! file directly sees them.

use ledger_core::door::{self, Case, Hooks};
use napi::bindgen_prelude::{AsyncTask, JsObjectValue, Object};
use napi::{Env, JsError, JsValue, Task};
use napi_derive::napi;

/// The reply of a panicking verb.
fn reply(message: &str) -> String {
    let options = serde_json::json!({ "message": message }).to_string();
    door::respond(None, "_panic", &options, Case::Camel, &Hooks::default())
}

/// The JavaScript `Error` a reply's `error` describes, with its `code`.
fn thrown(env: &Env, reply: &str) -> napi::Error {
    let parsed: serde_json::Value = serde_json::from_str(reply).unwrap_or_default();
    let error = &parsed["error"];
    let code = error["code"].as_str().unwrap_or("panic").to_owned();
    let message = error["message"].as_str().unwrap_or(reply).to_owned();
    let value = JsError::from(napi::Error::new(code, message)).into_unknown(*env);
    let raw = value.value();
    let mut object = Object::from_raw(raw.env, raw.value);
    // The path of a panic is null, as the generated LedgerError's is.
    let _ = object.set_named_property("path", ());
    napi::Error::from(value)
}

/// A panic on the libuv thread pool.
pub struct Panic {
    message: String,
}

impl Task for Panic {
    type Output = String;
    type JsValue = ();

    fn compute(&mut self) -> napi::Result<String> {
        Ok(reply(&self.message))
    }

    fn resolve(&mut self, env: Env, output: String) -> napi::Result<()> {
        Err(thrown(&env, &output))
    }
}

/// Panics on the libuv thread pool.
#[napi(js_name = "__panicForTest", skip_typescript)]
pub fn panic_for_test(message: String) -> AsyncTask<Panic> {
    AsyncTask::new(Panic { message })
}

/// Panics on the JavaScript thread.
#[napi(js_name = "__panicForTestSync", skip_typescript)]
pub fn panic_for_test_sync(env: Env, message: String) -> napi::Result<()> {
    Err(thrown(&env, &reply(&message)))
}
