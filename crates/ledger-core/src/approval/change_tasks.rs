//! A change's tracked Tasks file read under the rule its approval recorded,
//! and the warnings `approve` gives when a Tasks file was approved under a
//! rule that sees none of its task lines.

use serde::Serialize;

use crate::approval::envelope::{Binding, StateEnvelope};
use crate::approval::state::current_state;
use crate::error::{Error, Result};
use crate::openspec::change_set::ChangeSet;
use crate::own_file::{DOCUMENT_LIMIT, read_in_workspace};
use crate::path::WorkspacePath;
use crate::records::store::Store;
use crate::tasks::reader::{Tasks, read_tasks, unseen_tasks};
use crate::tasks::rule::TaskRule;

/// A change's tracked Tasks file and its tasks (`ledger tasks --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ChangeTasks {
    /// The change.
    pub change: String,
    /// The tracked file, relative to the workspace.
    pub path: WorkspacePath,
    /// Whether the file exists (a missing one has no tasks, as for OpenSpec).
    pub exists: bool,
    /// The tasks, under the change's rule.
    #[serde(flatten)]
    pub tasks: Tasks,
}

/// The file OpenSpec falls back to when a schema tracks none.
const DEFAULT_TRACKED: &str = "tasks.md";

impl ChangeSet {
    /// Reads the change's tracked Tasks file (the file of the tracked Tasks
    /// artifact, [`crate::openspec::ArtifactGraph::tracked`], else `tasks.md`, in the
    /// change's directory) under the rule [`ChangeSet::reading_task_rule`]
    /// picks with the state recorded in the workspace's store
    /// (`<workspace>/.ledger`; [`ChangeSet::tasks_in`] for another). A change
    /// found neither active nor archived is `unknown-change`; a tracked glob
    /// is not read (`invalid-argument`).
    pub fn tasks(&self) -> Result<ChangeTasks> {
        self.tasks_in(
            &Store::open(&self.workspace)?.with_settings(self.workspace_settings().clone()),
        )
    }

    /// [`ChangeSet::tasks`], with the change's state recorded in `store`.
    pub fn tasks_in(&self, store: &Store) -> Result<ChangeTasks> {
        self.require_present()?;
        let (_, envelope) = current_state(store, &self.change)?;
        self.tasks_recorded_in(&envelope)
    }

    /// [`ChangeSet::tasks`], with the rule the bindings of `envelope` recorded.
    pub fn tasks_recorded_in(&self, envelope: &StateEnvelope) -> Result<ChangeTasks> {
        self.require_present()?;
        let path = self.tracked_tasks_file()?;
        let bytes = read_in_workspace(
            self.workspace.as_std_path(),
            &path,
            "tasks file",
            DOCUMENT_LIMIT,
        )?;
        let rule = self.reading_task_rule(envelope);
        Ok(ChangeTasks {
            change: self.change.clone(),
            path,
            exists: bytes.is_some(),
            tasks: read_tasks(bytes.as_deref().unwrap_or_default(), rule),
        })
    }

    /// The rule a verb reads (and approves) the tracked Tasks file under: the
    /// one the caller chose, else the one the tracked artifact's binding in
    /// `envelope` recorded (so that `ledger tasks`, `state set` and a new
    /// approval read the file as it was approved), else
    /// [`ChangeSet::task_rule`] (the schema's, the project's, the default).
    pub fn reading_task_rule(&self, envelope: &StateEnvelope) -> TaskRule {
        let recorded = || {
            let tracked = self.graph.tracked()?;
            envelope.binding(&tracked.id)?.task_rule()
        };
        self.chosen_task_rule()
            .or_else(recorded)
            .unwrap_or_else(|| self.task_rule())
    }

    /// The change's tracked Tasks file, relative to the workspace.
    fn tracked_tasks_file(&self) -> Result<WorkspacePath> {
        // The tracked Tasks artifact's file (OpenSpec's rule, ArtifactGraph::tracked);
        // without one, OpenSpec's progress counts the top-level tasks.md.
        let tracked = match self.graph.tracked() {
            Some(artifact) if artifact.is_glob() => {
                return Err(Error::InvalidArgument {
                    message: format!(
                        "the schema {} tracks the glob '{}'; ledger reads one tracked Tasks file",
                        self.graph.schema().map_or("(built in code)", |s| s.place()),
                        crate::quote::escape(artifact.generates.as_bytes())
                    ),
                });
            }
            Some(artifact) => artifact.generates.as_str(),
            None => DEFAULT_TRACKED,
        };
        WorkspacePath::joined(&self.directory(), tracked)
    }

    /// The Tasks files of `binding`'s approved set that hold lines another
    /// rule reads as tasks but the rule they were approved under does not:
    /// each a likely wrong rule (an OpenSpec checklist approved under
    /// `task-checkbox-v1` counts no task, and ticking a box is a change).
    /// `approve` reports them as warnings. A file that cannot be read again
    /// gives none (its approval already read it; the warning is advice).
    pub fn task_rule_warnings(&self, binding: &Binding) -> Vec<TaskRuleWarning> {
        let Some(inventory) = &binding.inventory else {
            return Vec::new();
        };
        let scope = &inventory.scope;
        scope
            .tasks()
            .iter()
            .filter_map(|(path, rule)| {
                let rule = *rule;
                let read = read_in_workspace(
                    self.workspace.as_std_path(),
                    path,
                    "tasks file",
                    DOCUMENT_LIMIT,
                );
                let bytes = read.ok().flatten()?;
                unseen_tasks(&bytes, rule).map(|(other, lines)| TaskRuleWarning {
                    path: path.clone(),
                    rule,
                    other,
                    lines,
                })
            })
            .collect()
    }
}

/// A Tasks file approved under a rule that sees none of the task lines
/// another rule sees ([`ChangeSet::task_rule_warnings`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TaskRuleWarning {
    /// The Tasks file.
    pub path: WorkspacePath,
    /// The rule it was approved under.
    pub rule: TaskRule,
    /// The rule that reads the lines as tasks.
    pub other: TaskRule,
    /// The 1-based numbers of the lines `other` reads as tasks and `rule` does not.
    pub lines: Vec<usize>,
}

impl std::fmt::Display for TaskRuleWarning {
    /// One line: the file, the lines, both rules and what to do.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: Vec<String> = self.lines.iter().take(5).map(usize::to_string).collect();
        let more = if self.lines.len() > shown.len() {
            ", ..."
        } else {
            ""
        };
        write!(
            f,
            "{}: {} line(s) are tasks under {} but not under {}, the rule it was approved under (line {}{more}): ticking them is a change; if they are tasks, approve again under {}",
            crate::quote::quote(self.path.as_str()),
            self.lines.len(),
            self.other,
            self.rule,
            shown.join(", "),
            self.other,
        )
    }
}
