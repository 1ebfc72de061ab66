//! A Tasks file read into its tasks (docs/format.md §4.3): `readTasks` for a
//! file, `changeTasks` for a change's tracked one (`ledger tasks --json`).

use std::path::Path;

use napi::Env;
use napi::bindgen_prelude::{AsyncTask, Buffer};
use napi_derive::napi;

use crate::approval::ChangeOptions;
use crate::error::Failure;
use crate::fingerprint::RuleOptions;
use crate::json::{Json, json};
use crate::scope::parse_rule;
use crate::task::{Work, block, spawn};

fn read_tasks_impl(path: &str, options: Option<RuleOptions>) -> Result<Json, Failure> {
    let rule = parse_rule(options.and_then(|o| o.rule).as_deref())?;
    json(&ledger_core::read_tasks_file(Path::new(path), rule)?)
}

/// The tasks of the Tasks file at `path` under `options.rule` (default
/// `task-checkbox-v1`): id, done, line and text of each, and the totals. The
/// file is read like every input: not through a symlink, a regular file,
/// bounded (`unreadable`, `special-file`, `too-large`).
#[napi(ts_return_type = "Promise<Tasks>")]
pub fn read_tasks(path: String, options: Option<RuleOptions>) -> AsyncTask<Work<Json>> {
    spawn(move || read_tasks_impl(&path, options))
}

/// `readTasks`, blocking the JavaScript thread.
#[napi(ts_return_type = "Tasks")]
pub fn read_tasks_sync(env: Env, path: String, options: Option<RuleOptions>) -> napi::Result<Json> {
    block(&env, || read_tasks_impl(&path, options))
}

/// The tasks of a Tasks file's bytes under `options.rule` (as `readTasks`).
#[napi(ts_return_type = "Tasks")]
pub fn read_tasks_buffer(
    env: Env,
    data: Buffer,
    options: Option<RuleOptions>,
) -> napi::Result<Json> {
    block(&env, || {
        let rule = parse_rule(options.and_then(|o| o.rule).as_deref())?;
        json(&ledger_core::read_tasks(&data, rule))
    })
}

/// Every task rule's name, the default first.
#[napi(ts_return_type = "TaskRule[]")]
pub fn task_rules() -> Vec<&'static str> {
    ledger_core::TaskRule::ALL
        .map(ledger_core::TaskRule::as_str)
        .to_vec()
}

fn change_tasks_impl(options: &ChangeOptions) -> Result<Json, Failure> {
    json(&options.change_set()?.tasks_in(&options.store())?)
}

/// A change's tracked Tasks file read under its rule (`options.taskRule`,
/// else the one the `tasks` approval recorded, else the schema's, else
/// `task-checkbox-v1`); a missing file has no tasks (`ledger tasks --json`).
#[napi(ts_return_type = "Promise<ChangeTasks>")]
pub fn change_tasks(options: ChangeOptions) -> AsyncTask<Work<Json>> {
    spawn(move || change_tasks_impl(&options))
}

/// `changeTasks`, blocking the JavaScript thread.
#[napi(ts_return_type = "ChangeTasks")]
pub fn change_tasks_sync(env: Env, options: ChangeOptions) -> napi::Result<Json> {
    block(&env, || change_tasks_impl(&options))
}
