//! Running a call off the JavaScript thread, or on it.
//!
//! Each heavy function is written once, as an `*_impl` function returning
//! `Result<T, Failure>`, and exported twice (oxc's `minify` / `minifySync` /
//! `minify_impl`): `name()` wraps it in a [`Work`] and returns napi's
//! `AsyncTask` — a Promise whose work runs on the libuv thread pool, so the
//! event loop keeps turning — and `nameSync()` runs it with [`block`] on the
//! JavaScript thread. Both go through [`guard`], so a panic is an error in both.

use napi::bindgen_prelude::{
    AsyncTask, FnArgs, Function, JsObjectValue, Object, ToNapiValue, TypeName, Unknown,
};
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

/// A result with the warnings the core gave with it (an approval under a task
/// rule that misses task lines): each becomes a Node process warning on the
/// JavaScript thread, then the value is returned.
pub struct Warned<T> {
    /// The result.
    pub value: T,
    /// One line each, as the CLI prints them after `warning: `.
    pub warnings: Vec<String>,
}

/// One call that may warn, to be run on the libuv thread pool.
pub struct WarnedWork<T> {
    job: Option<Job<Warned<T>>>,
}

impl<T> Task for WarnedWork<T>
where
    T: ToNapiValue + TypeName + Send + 'static,
{
    type Output = Result<Warned<T>, Failure>;
    type JsValue = T;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(match self.job.take() {
            Some(job) => guard(job),
            None => Err(Failure::Panic("the task was computed twice".to_owned())),
        })
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<T> {
        let warned = output.map_err(|failure| to_js(&env, failure))?;
        emit_warnings(&env, &warned.warnings)?;
        Ok(warned.value)
    }
}

/// [`spawn`] for a call that may warn.
pub fn spawn_warned<T>(
    job: impl FnOnce() -> Result<Warned<T>, Failure> + Send + 'static,
) -> AsyncTask<WarnedWork<T>>
where
    T: ToNapiValue + TypeName + Send + 'static,
{
    AsyncTask::new(WarnedWork {
        job: Some(Box::new(job)),
    })
}

/// [`block`] for a call that may warn.
pub fn block_warned<T>(
    env: &Env,
    job: impl FnOnce() -> Result<Warned<T>, Failure>,
) -> napi::Result<T> {
    let warned = block(env, job)?;
    emit_warnings(env, &warned.warnings)?;
    Ok(warned.value)
}

/// `process.emitWarning(warning, 'LedgerWarning', 'task-rule')` for each
/// warning: Node's own channel, which prints it once to stderr unless the
/// program listens for `'warning'` or runs with `--no-warnings`.
fn emit_warnings(env: &Env, warnings: &[String]) -> napi::Result<()> {
    if warnings.is_empty() {
        return Ok(());
    }
    let process: Object = env.get_global()?.get_named_property("process")?;
    let emit: Function<FnArgs<(String, &str, &str)>, Unknown> =
        process.get_named_property("emitWarning")?;
    for warning in warnings {
        emit.apply(
            process,
            FnArgs::from((warning.clone(), "LedgerWarning", "task-rule")),
        )?;
    }
    Ok(())
}
