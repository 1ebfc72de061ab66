//! Running a call off the JavaScript thread, or on it.
//!
//! Each heavy function is written once, as an `*_impl` function returning
//! `Result<T, Failure>`, and exported twice (oxc's `minify` / `minifySync` /
//! `minify_impl`): `name()` wraps it in a [`Work`] and returns napi's
//! `AsyncTask` — a Promise whose work runs on the libuv thread pool, so the
//! event loop keeps turning — and `nameSync()` runs it with [`block`] on the
//! JavaScript thread. Both go through [`guard`], so a panic is an error in both.

use napi::bindgen_prelude::{AsyncTask, ToNapiValue, TypeName};
use napi::{Env, Task};

use crate::error::{Failure, guard, to_js};

type Job<T> = Box<dyn FnOnce() -> Result<T, Failure> + Send>;

/// One call of a core function, to be run on the libuv thread pool.
pub struct Work<T> {
    job: Option<Job<T>>,
}

impl<T> Task for Work<T>
where
    T: ToNapiValue + TypeName + Send + 'static,
{
    /// The failure travels back to the JavaScript thread as a Rust value: a JS
    /// error object can only be built there (in `resolve`), with its `path`.
    type Output = Result<T, Failure>;
    type JsValue = T;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(match self.job.take() {
            Some(job) => guard(job),
            None => Err(Failure::Panic("the task was computed twice".to_owned())),
        })
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<T> {
        output.map_err(|failure| to_js(&env, failure))
    }
}

/// The Promise of `job`'s result; `job` runs on the libuv thread pool.
pub fn spawn<T>(job: impl FnOnce() -> Result<T, Failure> + Send + 'static) -> AsyncTask<Work<T>>
where
    T: ToNapiValue + TypeName + Send + 'static,
{
    AsyncTask::new(Work {
        job: Some(Box::new(job)),
    })
}

/// `job`'s result, computed now on the JavaScript thread (the `*Sync` twins).
pub fn block<T>(env: &Env, job: impl FnOnce() -> Result<T, Failure>) -> napi::Result<T> {
    guard(job).map_err(|failure| to_js(env, failure))
}
