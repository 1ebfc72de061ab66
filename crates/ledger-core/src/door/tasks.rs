//! Tasks files (docs/format.md §4), as the doors call them: the payload a
//! Tasks file is hashed with, and its tasks, under a task rule.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bytes, Verb};
use crate::{
    Result,
    tasks::{TaskRule, Tasks},
};

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
    Ok(Bytes(crate::tasks::normalize_tasks_with(&o.data.0, o.rule)))
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
    crate::tasks::read_tasks_file(std::path::Path::new(&o.path), o.rule)
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
    Ok(crate::tasks::read_tasks(&o.data.0, o.rule))
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::free("normalize_tasks", &["data"], normalize_tasks),
        Verb::free("read_tasks", &["path"], read_tasks),
        Verb::free("read_tasks_bytes", &["data"], read_tasks_bytes),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde_json::{Value, json};

    use crate::door::{Case, Hooks, respond};

    fn free(verb: &str, options: Value) -> Value {
        let reply = respond(
            None,
            verb,
            &options.to_string(),
            Case::Snake,
            &Hooks::default(),
        );
        serde_json::from_str(&reply).unwrap()
    }

    const TASKS: &[u8] = b"## 1. Core\n- [x] 1.1 Add login\n* [X] 1.2 Add tokens\n";

    #[test]
    fn bytes_are_normalized_and_read_under_the_rule_named() {
        let data = STANDARD.encode(TASKS);
        let default = free("normalize_tasks", json!({"data": data}));
        let bytes = STANDARD.decode(default["ok"].as_str().unwrap()).unwrap();
        assert_eq!(
            bytes,
            crate::tasks::normalize_tasks_with(TASKS, crate::tasks::TaskRule::TaskCheckboxV1)
        );
        let openspec = free(
            "normalize_tasks",
            json!({"data": data, "rule": "openspec-checkbox"}),
        );
        let bytes = STANDARD.decode(openspec["ok"].as_str().unwrap()).unwrap();
        assert_eq!(
            bytes,
            b"## 1. Core\n- [ ] 1.1 Add login\n* [ ] 1.2 Add tokens\n"
        );
        let read = free(
            "read_tasks_bytes",
            json!({"data": data, "rule": "openspec-checkbox"}),
        );
        assert_eq!(
            (read["ok"]["total"].as_u64(), read["ok"]["done"].as_u64()),
            (Some(2), Some(2)),
            "{read}"
        );
        assert_eq!(read["ok"]["tasks"][1]["id"], "1.2");
        let unknown = free(
            "read_tasks_bytes",
            json!({"data": data, "rule": "markdown"}),
        );
        assert_eq!(unknown["error"]["code"], "invalid-argument");
        let not_base64 = free("normalize_tasks", json!({"data": "***"}));
        assert_eq!(
            not_base64["error"]["code"], "invalid-argument",
            "{not_base64}"
        );
    }

    #[test]
    fn a_tasks_file_is_read_like_every_input() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tasks.md");
        std::fs::write(&file, TASKS).unwrap();
        let path = file.to_str().unwrap();
        let read = free(
            "read_tasks",
            json!({"path": path, "rule": "openspec-checkbox"}),
        );
        assert_eq!(read["ok"]["rule"], "openspec-checkbox", "{read}");
        assert_eq!(read["ok"]["tasks"][0]["line"], 2);
        let link = dir.path().join("link.md");
        crate::platform::symlink(&file, &link).unwrap();
        let through = free("read_tasks", json!({"path": link.to_str().unwrap()}));
        assert_eq!(through["error"]["code"], "unreadable", "{through}");
        let directory = free("read_tasks", json!({"path": dir.path().to_str().unwrap()}));
        assert_eq!(directory["error"]["code"], "special-file", "{directory}");
    }
}
