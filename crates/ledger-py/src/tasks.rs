//! `read_tasks()`, `read_tasks_bytes()`, `ledger.Task`, `ledger.Tasks` and
//! `ledger.ChangeTasks` (core `tasks`): a Tasks file read into its tasks under
//! a task rule (docs/format.md §4.3).

use std::path::PathBuf;

use ledger_core::{ChangeTasks, Task, TaskRule, Tasks, to_pretty_json};
use pyo3::prelude::*;

use crate::args::{self, PathArg};
use crate::{errors, repr};

/// One task line of a Tasks file.
#[pyclass(frozen, eq, hash, get_all, skip_from_py_object)]
#[pyo3(name = "Task", module = "ledger")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyTask {
    /// `1.1`, `2.10`, `1.2a` when the text starts with one (OpenSpec's `TASK_ID`).
    id: Option<String>,
    /// Whether the box holds `x` or `X`.
    done: bool,
    /// The 1-based line number.
    line: usize,
    /// The text after the box, as OpenSpec's `description`.
    text: String,
}

impl From<&Task> for PyTask {
    fn from(t: &Task) -> Self {
        PyTask {
            id: t.id.clone(),
            done: t.done,
            line: t.line,
            text: t.text.clone(),
        }
    }
}

#[pymethods]
impl PyTask {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["id", "done", "line", "text"])
    }
}

/// The tasks of one Tasks file under one rule, in document order.
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "Tasks", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyTasks {
    /// The rule the file was read under.
    #[pyo3(get)]
    rule: &'static str,
    /// How many tasks there are.
    #[pyo3(get)]
    total: usize,
    /// How many are done.
    #[pyo3(get)]
    done: usize,
    /// Every task line.
    #[pyo3(get)]
    tasks: Vec<PyTask>,
    inner: Tasks,
}

impl From<Tasks> for PyTasks {
    fn from(inner: Tasks) -> Self {
        PyTasks {
            rule: inner.rule.as_str(),
            total: inner.total,
            done: inner.done,
            tasks: inner.tasks.iter().map(PyTask::from).collect(),
            inner,
        }
    }
}

#[pymethods]
impl PyTasks {
    /// The ids of the done tasks, in document order (tasks without an id left out).
    fn completed_ids(&self) -> Vec<&str> {
        self.inner.completed_ids()
    }

    /// The ids of the tasks not done, in document order (tasks without an id left out).
    fn remaining_ids(&self) -> Vec<&str> {
        self.inner.remaining_ids()
    }

    /// The tasks as JSON (`rule`, `total`, `done`, `tasks`).
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["rule", "total", "done"])
    }
}

/// A change's tracked Tasks file and its tasks, under the change's rule
/// (`ChangeSet.tasks()`, `ledger tasks --json`).
#[pyclass(frozen, eq, skip_from_py_object)]
#[pyo3(name = "ChangeTasks", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyChangeTasks {
    /// The change.
    #[pyo3(get)]
    change: String,
    /// The tracked file, relative to the workspace.
    #[pyo3(get)]
    path: String,
    /// Whether the file exists (a missing one has no tasks, as for OpenSpec).
    #[pyo3(get)]
    exists: bool,
    /// The rule the file was read under.
    #[pyo3(get)]
    rule: &'static str,
    /// How many tasks there are.
    #[pyo3(get)]
    total: usize,
    /// How many are done.
    #[pyo3(get)]
    done: usize,
    /// Every task line.
    #[pyo3(get)]
    tasks: Vec<PyTask>,
    inner: ChangeTasks,
}

impl From<ChangeTasks> for PyChangeTasks {
    fn from(inner: ChangeTasks) -> Self {
        let t = &inner.tasks;
        PyChangeTasks {
            change: inner.change.clone(),
            path: inner.path.as_str().to_owned(),
            exists: inner.exists,
            rule: t.rule.as_str(),
            total: t.total,
            done: t.done,
            tasks: t.tasks.iter().map(PyTask::from).collect(),
            inner,
        }
    }
}

#[pymethods]
impl PyChangeTasks {
    /// The ids of the done tasks, in document order (tasks without an id left out).
    fn completed_ids(&self) -> Vec<&str> {
        self.inner.tasks.completed_ids()
    }

    /// The ids of the tasks not done, in document order (tasks without an id left out).
    fn remaining_ids(&self) -> Vec<&str> {
        self.inner.tasks.remaining_ids()
    }

    /// The tasks as JSON, exactly as `ledger tasks --json` prints them.
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["change", "path", "total", "done"])
    }
}

/// The tasks of the Tasks file at `path` under `rule` (default
/// `task-checkbox-v1`). The file is read like every input: not through a
/// symlink, a regular file, bounded (`UnreadableError`, `SpecialFileError`,
/// `TooLargeError`); another rule is `InvalidArgumentError`.
#[pyfunction]
#[pyo3(signature = (path, rule = TaskRule::default().as_str()))]
#[pyo3(text_signature = "(path, rule='task-checkbox-v1')")]
pub fn read_tasks(py: Python<'_>, path: PathArg, rule: &str) -> PyResult<PyTasks> {
    let rule = args::task_rule(py, rule)?;
    let path = PathBuf::from(path.0);
    errors::detached(py, move || ledger_core::read_tasks_file(&path, rule)).map(PyTasks::from)
}

/// The tasks of a Tasks file's bytes under `rule` (default `task-checkbox-v1`).
#[pyfunction]
#[pyo3(signature = (data, rule = TaskRule::default().as_str()))]
#[pyo3(text_signature = "(data, rule='task-checkbox-v1')")]
pub fn read_tasks_bytes(py: Python<'_>, data: Vec<u8>, rule: &str) -> PyResult<PyTasks> {
    let rule = args::task_rule(py, rule)?;
    errors::detached(py, move || Ok(ledger_core::read_tasks(&data, rule))).map(PyTasks::from)
}
