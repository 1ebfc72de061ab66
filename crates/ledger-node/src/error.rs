//! The one place where a failure becomes a JavaScript `Error`.
//!
//! Every error of the core reaches JavaScript as an `Error` whose `code` is the
//! core's stable code (`'conflict'`, `'special-file'`, ...; see
//! `ledger_core::Error::CODES` and docs/errors.md), whose message is the core's
//! message (naming the path), and, when the error concerns a path, with that
//! path as `err.path`. A panic inside the core becomes an `Error` with code
//! `'panic'` instead of unwinding into Node (which would abort the process).

use std::panic::{AssertUnwindSafe, catch_unwind};

use napi::bindgen_prelude::{JsObjectValue, Object};
use napi::{Env, JsError, JsValue};
use napi_derive::napi;

/// Why a call did not produce its result.
#[derive(Debug)]
pub enum Failure {
    /// The core refused, with its coded error.
    Core(ledger_core::Error),
    /// The core (or this binding) panicked: a bug, reported instead of a crash.
    Panic(String),
}

impl From<ledger_core::Error> for Failure {
    fn from(e: ledger_core::Error) -> Self {
        Failure::Core(e)
    }
}

/// The `code` of a JavaScript error: napi-rs puts `Error<S>`'s status there,
/// for any `S: AsRef<str>`.
#[derive(Debug, Clone, Copy)]
pub struct Code(&'static str);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0
    }
}

/// The code of a panic; not one of the core's codes, since the core never
/// chooses to panic.
pub const PANIC: &str = "panic";

/// Runs `job`, turning a panic into [`Failure::Panic`]. Every call into the
/// core goes through here, on whichever thread it runs (the libuv pool for the
/// async functions, the JavaScript thread for their `*Sync` twins).
pub fn guard<T>(job: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    // AssertUnwindSafe: after a panic nothing the job touched is used again;
    // its inputs were moved into it and its partial results are dropped.
    catch_unwind(AssertUnwindSafe(job)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_owned());
        Err(Failure::Panic(message))
    })
}

/// The code, message and path of a failure, as JavaScript sees them.
fn parts(failure: &Failure) -> (&'static str, String, Option<String>) {
    match failure {
        Failure::Core(e) => (e.code(), e.to_string(), e.path().map(str::to_owned)),
        Failure::Panic(message) => (
            PANIC,
            format!("ledger panicked: {message}; this is a bug in ledger, please report it"),
            None,
        ),
    }
}

/// Builds the JavaScript `Error` of `failure`: a `napi::Error<Code>` (so that
/// napi-rs sets `code`), made into a JS object on the JavaScript thread to add
/// `path`, and handed back to napi-rs as an error that holds that very object.
pub fn to_js(env: &Env, failure: Failure) -> napi::Error {
    let (code, message, path) = parts(&failure);
    let error = napi::Error::new(Code(code), message.clone());
    let value = JsError::from(error).into_unknown(*env);
    if let Some(path) = path {
        let raw = value.value();
        let mut object = Object::from_raw(raw.env, raw.value);
        if object.set_named_property("path", path).is_err() {
            return napi::Error::from_reason(format!("error[{code}]: {message}"));
        }
    }
    napi::Error::from(value)
}

/// Every code the core can return (`ledger_core::Error::CODES`), plus
/// `'panic'`: the values `err.code` can take besides napi-rs's own argument
/// errors (e.g. `'InvalidArg'` for an option of the wrong type).
#[napi(ts_return_type = "ErrorCode[]")]
pub fn error_codes() -> Vec<String> {
    ledger_core::Error::CODES
        .iter()
        .chain([&PANIC])
        .map(|c| (*c).to_owned())
        .collect()
}
