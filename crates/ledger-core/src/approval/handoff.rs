//! Writing the handoff (docs/lifecycle.md, Handoff): a typed patch of a change's
//! state envelope, written as a new immutable record after the head the writer
//! started from, and the chain of those records read back for an investigation.

use std::time::SystemTime;

use serde::Serialize;

use crate::approval::envelope::{Check, StateEnvelope};
use crate::approval::state::{STATE_KIND, commit_state, state_ref};
use crate::approval::write_basis::state_from;
use crate::error::{Error, Result};
use crate::openspec::change_set::{ChangeLocation, ChangeSet};
use crate::quote::quote;
use crate::records::store::StartedFrom;
use crate::records::store::{RecordId, Store};

/// Where the completed and remaining task ids of a patch come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TaskIds {
    /// Read from the change's tracked Tasks file, under the change's task rule
    /// ([`ChangeSet::tasks`]); a change whose directory is gone keeps the ids
    /// its envelope holds.
    #[default]
    FromTasksFile,
    /// Given by the caller. Where the change has its Tasks file, the file is
    /// the record: ids that agree with it change nothing (both lists are the
    /// file's, so one list alone never empties the other), and an id the file
    /// contradicts (given done, open there; given open, done there; or not
    /// there) is refused with `invalid-argument` unless `reason` says why the
    /// caller's lists win — then they replace the file's, in this order, and
    /// the reason is kept as the check `task-ids`. Without a Tasks file the
    /// lists are taken as given.
    Given {
        /// The ids of the tasks done.
        completed: Vec<String>,
        /// The ids of the tasks not done.
        remaining: Vec<String>,
        /// Why these lists win over the Tasks file, when they contradict it.
        reason: Option<String>,
    },
}

/// What a handoff changes in the envelope; every field left `None` (or empty)
/// keeps the envelope's value, except the task ids, which are read afresh
/// unless given.
///
/// * `role`, `outcome`, `next`: replaced when given;
/// * `areas`: the affected areas, replaced as a whole when given;
/// * `checks`: each replaces the check of the same name, or is appended;
/// * `blockers`: appended (a blocker already listed is not repeated), after
///   all were removed when `clear_blockers` is set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatePatch {
    /// The current role, e.g. `implementation`.
    pub role: Option<String>,
    /// The current outcome, e.g. `tasks in progress`.
    pub outcome: Option<String>,
    /// The repositories or areas the change touches.
    pub areas: Option<Vec<String>>,
    /// Short observed checks.
    pub checks: Vec<Check>,
    /// Blockers to add.
    pub blockers: Vec<String>,
    /// Remove every blocker before adding `blockers`.
    pub clear_blockers: bool,
    /// The one next allowed outcome.
    pub next: Option<String>,
    /// Where the task ids come from.
    pub tasks: TaskIds,
}

impl StatePatch {
    /// Refuses empty texts (`invalid-argument`): an empty role or a check
    /// without a name says nothing a next session could act on.
    fn validate(&self) -> Result<()> {
        let named = [
            ("role", self.role.as_deref()),
            ("outcome", self.outcome.as_deref()),
            ("next outcome", self.next.as_deref()),
        ];
        let listed = self
            .areas
            .iter()
            .flatten()
            .map(|a| ("area", Some(a.as_str())));
        let blockers = self.blockers.iter().map(|b| ("blocker", Some(b.as_str())));
        let checks = self
            .checks
            .iter()
            .map(|c| ("check name", Some(c.name.as_str())));
        for (what, text) in named
            .into_iter()
            .chain(listed)
            .chain(blockers)
            .chain(checks)
        {
            if text.is_some_and(|t| t.trim().is_empty()) {
                return Err(Error::InvalidArgument {
                    message: format!("a handoff's {what} cannot be empty"),
                });
            }
        }
        Ok(())
    }

    /// Applies the patch to `envelope`; `tasks` are the ids read for it.
    fn apply(&self, envelope: &mut StateEnvelope, tasks: Option<(Vec<String>, Vec<String>)>) {
        let set = |field: &mut String, value: &Option<String>| {
            if let Some(value) = value {
                field.clone_from(value);
            }
        };
        set(&mut envelope.role, &self.role);
        set(&mut envelope.outcome, &self.outcome);
        if let Some(areas) = &self.areas {
            envelope.affected_areas = dedup(areas);
        }
        for check in &self.checks {
            match envelope.checks.iter_mut().find(|c| c.name == check.name) {
                Some(existing) => existing.result.clone_from(&check.result),
                None => envelope.checks.push(check.clone()),
            }
        }
        if self.clear_blockers {
            envelope.blockers.clear();
        }
        for blocker in &self.blockers {
            if !envelope.blockers.contains(blocker) {
                envelope.blockers.push(blocker.clone());
            }
        }
        if let Some(next) = &self.next {
            envelope.next_outcome = Some(next.clone());
        }
        if let Some((completed, remaining)) = tasks {
            envelope.tasks_completed = completed;
            envelope.tasks_remaining = remaining;
        }
    }
}

/// `items` without repeats, in their first order.
fn dedup(items: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        if !out.contains(item) {
            out.push(item.clone());
        }
    }
    out
}

/// The task ids `source` names for `change`: `None` keeps the envelope's.
/// The file is read under the rule the envelope's tasks binding recorded
/// ([`ChangeSet::reading_task_rule`]).
fn task_ids(
    change: &ChangeSet,
    envelope: &StateEnvelope,
    source: &TaskIds,
) -> Result<Option<(Vec<String>, Vec<String>)>> {
    match source {
        TaskIds::Given { .. } if change.location == ChangeLocation::Missing => {
            Ok(given_ids(source))
        }
        TaskIds::Given {
            completed,
            remaining,
            reason,
        } => {
            let read = change.tasks_recorded_in(envelope)?;
            if !read.exists {
                return Ok(given_ids(source));
            }
            let done = read.tasks.completed_ids();
            let open = read.tasks.remaining_ids();
            let mut contradictions = Vec::new();
            for id in completed.iter().filter(|id| !done.contains(&id.as_str())) {
                let there = if open.contains(&id.as_str()) {
                    "open"
                } else {
                    "not listed"
                };
                contradictions.push(format!("{} is given as done but is {there}", quote(id)));
            }
            for id in remaining.iter().filter(|id| !open.contains(&id.as_str())) {
                let there = if done.contains(&id.as_str()) {
                    "done"
                } else {
                    "not listed"
                };
                contradictions.push(format!("{} is given as open but is {there}", quote(id)));
            }
            if contradictions.is_empty() || reason.is_some() {
                return Ok(match contradictions.is_empty() {
                    true => Some((owned(done), owned(open))),
                    false => given_ids(source),
                });
            }
            Err(Error::InvalidArgument {
                message: format!(
                    "the task ids contradict the Tasks file {}: {}; tick the file (it is the record), or give the lists with a reason why they win",
                    quote(read.path.as_str()),
                    contradictions.join(", ")
                ),
            })
        }
        TaskIds::FromTasksFile if change.location == ChangeLocation::Missing => Ok(None),
        TaskIds::FromTasksFile => {
            let read = change.tasks_recorded_in(envelope)?;
            let owned = |ids: Vec<&str>| ids.into_iter().map(str::to_owned).collect();
            Ok(Some((
                owned(read.tasks.completed_ids()),
                owned(read.tasks.remaining_ids()),
            )))
        }
    }
}

/// The lists `source` gives, as given.
fn given_ids(source: &TaskIds) -> Option<(Vec<String>, Vec<String>)> {
    match source {
        TaskIds::Given {
            completed,
            remaining,
            ..
        } => Some((completed.clone(), remaining.clone())),
        TaskIds::FromTasksFile => None,
    }
}

fn owned(ids: Vec<&str>) -> Vec<String> {
    ids.into_iter().map(str::to_owned).collect()
}

/// Advances a change's state envelope by `patch`: a new immutable record after
/// `expected` (the record the writer started from, [`StartedFrom::Nothing`]
/// when it read no state; `None`: the head as read now), and the pointer moved to it by compare-and-swap. Every field the patch
/// does not name — bindings, validation — is kept; a retired change is taken
/// up again. Returns the new record and its envelope.
///
/// Refused with `unknown-change` for a change neither on disk nor recorded,
/// `invalid-argument` for an empty text, and `pointer-conflict` (naming both
/// records; the new record stays as an orphan) when the pointer no longer
/// names the record the writer started from.
pub fn advance_state(
    store: &Store,
    change: &ChangeSet,
    patch: &StatePatch,
    expected: Option<&StartedFrom>,
) -> Result<(RecordId, StateEnvelope)> {
    patch.validate()?;
    let change = &change.located_now()?;
    let (base, mut envelope) = state_from(store, &change.change, expected)?;
    if base.is_none() {
        change.require_present()?;
    }
    let tasks = task_ids(change, &envelope, &patch.tasks)?;
    patch.apply(&mut envelope, tasks);
    if let TaskIds::Given {
        reason: Some(reason),
        ..
    } = &patch.tasks
    {
        // Kept with the lists it justified; replaced by the next one given.
        envelope.checks.retain(|c| c.name != TASK_IDS_CHECK);
        envelope.checks.push(Check {
            name: TASK_IDS_CHECK.to_owned(),
            result: format!("given, not read from the Tasks file: {reason}"),
        });
    }
    envelope.retired = None;
    let id = commit_state(store, &change.change, base.as_ref(), &envelope)?;
    Ok((id, envelope))
}

/// The check that keeps why given task ids won over the Tasks file.
pub const TASK_IDS_CHECK: &str = "task-ids";

/// One field of the envelope that differs from the record before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FieldChange {
    /// The envelope's field, e.g. `role` or `bindings`.
    pub field: String,
    /// What changed, for a person: `implementation -> validation`.
    pub summary: String,
}

/// One record of a change's state chain, and what it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LogEntry {
    /// The record.
    pub record: RecordId,
    /// When it was written (RFC 3339 UTC).
    pub written_at: String,
    /// Every field that differs from the record before it (from an empty
    /// envelope for the first).
    pub changes: Vec<FieldChange>,
}

/// The chain of a change's state records, newest first, each with what it
/// changed. Normal reads never need it ([`current_state`](crate::approval::current_state) reads the head only);
/// it is for investigating a concrete discrepancy. A missing or corrupt record
/// on the way ends the walk with its error.
pub fn state_log(store: &Store, change: &str) -> Result<Vec<LogEntry>> {
    let ids = store.history(&state_ref(change))?;
    let mut records = Vec::with_capacity(ids.len());
    for id in &ids {
        // As stored: the log compares consecutive envelopes, and both sides
        // of a change are in the same (stored) terms.
        records.push(store.read_record_of_kind::<StateEnvelope>(id, STATE_KIND)?);
    }
    let empty = StateEnvelope::new(change);
    let entries = ids
        .iter()
        .zip(&records)
        .enumerate()
        .map(|(i, (id, record))| {
            let before = records.get(i + 1).map_or(&empty, |r| &r.body);
            LogEntry {
                record: *id,
                written_at: record.written_at.clone(),
                changes: differences(before, &record.body),
            }
        })
        .collect();
    Ok(entries)
}

/// [`state_log`] of a change as the caller names it: `unknown-change` when
/// nothing is recorded and the change is neither active nor archived.
pub fn recorded_state_log(store: &Store, change: &ChangeSet) -> Result<Vec<LogEntry>> {
    let log = state_log(store, &change.change)?;
    if log.is_empty() {
        change.require_present()?;
    }
    Ok(log)
}

/// What differs between two envelopes, field by field, in the envelope's order.
pub fn differences(before: &StateEnvelope, after: &StateEnvelope) -> Vec<FieldChange> {
    let mut out = Vec::new();
    let mut push = |field: &str, summary: String| {
        out.push(FieldChange {
            field: field.to_owned(),
            summary,
        })
    };
    if before.role != after.role {
        push("role", arrow(&before.role, &after.role));
    }
    if before.outcome != after.outcome {
        push("outcome", arrow(&before.outcome, &after.outcome));
    }
    if before.affected_areas != after.affected_areas {
        push(
            "affected_areas",
            list_change(&before.affected_areas, &after.affected_areas),
        );
    }
    if before.bindings != after.bindings {
        push("bindings", bindings_change(before, after));
    }
    if before.tasks_completed != after.tasks_completed {
        push(
            "tasks_completed",
            list_change(&before.tasks_completed, &after.tasks_completed),
        );
    }
    if before.tasks_remaining != after.tasks_remaining {
        push(
            "tasks_remaining",
            list_change(&before.tasks_remaining, &after.tasks_remaining),
        );
    }
    if before.checks != after.checks {
        let shown = |checks: &[Check]| -> Vec<String> {
            checks
                .iter()
                .map(|c| format!("{}={}", c.name, c.result))
                .collect()
        };
        push(
            "checks",
            list_change(&shown(&before.checks), &shown(&after.checks)),
        );
    }
    if before.blockers != after.blockers {
        push("blockers", list_change(&before.blockers, &after.blockers));
    }
    if before.next_outcome != after.next_outcome {
        let text = |n: &Option<String>| n.clone().unwrap_or_default();
        push(
            "next_outcome",
            arrow(&text(&before.next_outcome), &text(&after.next_outcome)),
        );
    }
    if before.validation != after.validation {
        let summary = match &after.validation {
            Some(v) => format!(
                "{} on {} ({} paths)",
                v.verdict.as_str(),
                v.fingerprint,
                v.inventory.entries.len()
            ),
            None => "removed".to_owned(),
        };
        push("validation", summary);
    }
    if before.retired != after.retired {
        let summary = match &after.retired {
            Some(r) => format!("retired: {}", quote(&r.reason)),
            None => "taken up again".to_owned(),
        };
        push("retired", summary);
    }
    out
}

/// `before -> after`, each quoted, `(none)` for an empty text.
fn arrow(before: &str, after: &str) -> String {
    let shown = |t: &str| {
        if t.is_empty() {
            "(none)".to_owned()
        } else {
            quote(t).into_owned()
        }
    };
    format!("{} -> {}", shown(before), shown(after))
}

/// `+added -removed` of two lists (a reordering alone reads `reordered`).
fn list_change(before: &[String], after: &[String]) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(
        after
            .iter()
            .filter(|a| !before.contains(a))
            .map(|a| format!("+{}", quote(a))),
    );
    parts.extend(
        before
            .iter()
            .filter(|b| !after.contains(b))
            .map(|b| format!("-{}", quote(b))),
    );
    if parts.is_empty() {
        "reordered".to_owned()
    } else {
        parts.join(" ")
    }
}

/// Which artifacts were approved, approved again, or lost their binding.
fn bindings_change(before: &StateEnvelope, after: &StateEnvelope) -> String {
    let mut parts = Vec::new();
    for binding in &after.bindings {
        match before.binding(&binding.artifact) {
            None => parts.push(format!("approved {}", quote(&binding.artifact))),
            Some(old) if old != binding => {
                parts.push(format!("approved {} again", quote(&binding.artifact)));
            }
            Some(_) => {}
        }
    }
    for binding in &before.bindings {
        if after.binding(&binding.artifact).is_none() {
            parts.push(format!("dropped {}", quote(&binding.artifact)));
        }
    }
    if parts.is_empty() {
        "reordered".to_owned()
    } else {
        parts.join(", ")
    }
}

/// Now, as RFC 3339 UTC to the second.
pub(crate) fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}
