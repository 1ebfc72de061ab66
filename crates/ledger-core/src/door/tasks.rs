//! Tasks files (docs/format.md §4), as the doors call them: the payload a
//! Tasks file is hashed with, and its tasks, under a task rule.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bytes, Verb};
use crate::{Result, TaskRule, Tasks};

/// The payload a Tasks file is hashed with under `rule`: under
/// `task-checkbox-v1` (the default) every canonical checked task
/// (`- [x] 1.2 [area] ...`) unchecked, under `openspec-checkbox` the `x`/`X`
/// of every task OpenSpec counts turned into a space; every other byte kept.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NormalizeTasksOptions {
    /// The file's bytes.
    pub data: Bytes,
    /// The task rule.
    #[serde(default)]
    pub rule: TaskRule,
}

fn normalize_tasks(o: NormalizeTasksOptions) -> Result<Bytes> {
    Ok(Bytes(crate::normalize_tasks_with(&o.data.0, o.rule)))
}

/// The tasks of the Tasks file at `path` under `rule`: id, done, line and
/// text of each, and the totals. The file is read like every input: not
/// through a symlink, a regular file, bounded (`unreadable`, `special-file`,
/// `too-large`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadTasksOptions {
    /// The file (relative to the current directory, or absolute).
    pub path: String,
    /// The task rule.
    #[serde(default)]
    pub rule: TaskRule,
}

fn read_tasks(o: ReadTasksOptions) -> Result<Tasks> {
    crate::read_tasks_file(std::path::Path::new(&o.path), o.rule)
}

/// The tasks of a Tasks file's bytes under `rule` (as `read_tasks`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadTasksBytesOptions {
    /// The file's bytes.
    pub data: Bytes,
    /// The task rule.
    #[serde(default)]
    pub rule: TaskRule,
}

fn read_tasks_bytes(o: ReadTasksBytesOptions) -> Result<Tasks> {
    Ok(crate::read_tasks(&o.data.0, o.rule))
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::free("normalize_tasks", &["data"], normalize_tasks),
        Verb::free("read_tasks", &["path"], read_tasks),
        Verb::free("read_tasks_bytes", &["data"], read_tasks_bytes),
    ]
}
