//! A hook for the binding's own tests: a panic inside a call must become an
//! `Error` with code `'panic'` (async: a rejection), never a crash of Node.
//! The core never panics on purpose, so no real input reaches that path; these
//! two functions do. They are left out of `index.d.ts` and of the `binding.js`
//! loader (`skip_typescript`): only a test that loads the `.node` file
//! directly sees them.

use napi::Env;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::error::Failure;
use crate::task::{Work, block, spawn};

#[allow(clippy::panic)] // the point of this function
fn panic_impl(message: String) -> Result<String, Failure> {
    panic!("{message}")
}

/// Panics on the libuv thread pool.
#[napi(js_name = "__panicForTest", skip_typescript)]
pub fn panic_for_test(message: String) -> AsyncTask<Work<String>> {
    spawn(move || panic_impl(message))
}

/// Panics on the JavaScript thread.
#[napi(js_name = "__panicForTestSync", skip_typescript)]
pub fn panic_for_test_sync(env: Env, message: String) -> napi::Result<String> {
    block(&env, || panic_impl(message))
}
