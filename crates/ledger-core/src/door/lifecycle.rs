//! The lifecycle of a change after its approvals (docs/lifecycle.md), as the
//! doors call it: the handoff (`advance_state`, `state_log`), the verdict
//! (`record_validation`, `check_validation`) and the terminal check
//! (`finalize_check`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::approval::{started_from, write_basis};
use super::openspec::change_options;
use super::{Verb, Workspace};
use crate::{
    Check, CurrentState, Finalization, GatePrerequisites, LogEntry, Observe, Result, StatePatch,
    TaskIds, ValidationCheck, ValidationRequest, Verdict,
};

change_options! {
    /// Advances the change's state envelope (the handoff, `ledger state set`):
    /// only the fields given change; the task ids are read from the tracked
    /// Tasks file unless `completed` or `remaining` is given. A new record
    /// after `expected` (the record the caller started from, `none` when it
    /// read no state; default: the head as read now): `pointer-conflict` when
    /// another writer advanced it.
    pub struct AdvanceStateOptions {
        /// The current role.
        #[serde(default)]
        pub role: Option<String>,
        /// The current outcome.
        #[serde(default)]
        pub outcome: Option<String>,
        /// The affected areas; given, they replace the recorded ones.
        #[serde(default)]
        pub areas: Option<Vec<String>>,
        /// Checks; each replaces the recorded one of the same name.
        #[serde(default)]
        pub checks: Vec<Check>,
        /// Blockers to add.
        #[serde(default)]
        pub blockers: Vec<String>,
        /// Remove every recorded blocker first.
        #[serde(default)]
        pub clear_blockers: bool,
        /// The one next allowed outcome.
        #[serde(default)]
        pub next: Option<String>,
        /// Completed task ids; with `remaining`, they replace the ids read
        /// from the tracked Tasks file.
        #[serde(default)]
        pub completed: Option<Vec<String>>,
        /// Remaining task ids (see `completed`).
        #[serde(default)]
        pub remaining: Option<Vec<String>>,
        /// The state record the write started from (`none`: no state).
        #[serde(default)]
        pub expected: Option<String>,
    }
}

/// Where the patch's task ids come from: the file, unless the caller gave
/// either list (the other one is then empty, as the CLI's flags make it).
fn task_ids(completed: Option<Vec<String>>, remaining: Option<Vec<String>>) -> TaskIds {
    match (completed, remaining) {
        (None, None) => TaskIds::FromTasksFile,
        (completed, remaining) => TaskIds::Given {
            completed: completed.unwrap_or_default(),
            remaining: remaining.unwrap_or_default(),
        },
    }
}

fn advance_state(ws: &Workspace, o: AdvanceStateOptions) -> Result<CurrentState> {
    let change = o.open(ws)?;
    let expected = started_from(o.expected.as_deref())?;
    let patch = StatePatch {
        role: o.role,
        outcome: o.outcome,
        areas: o.areas,
        checks: o.checks,
        blockers: o.blockers,
        clear_blockers: o.clear_blockers,
        next: o.next,
        tasks: task_ids(o.completed, o.remaining),
    };
    let (record, state) = crate::advance_state(ws.store(), &change, &patch, expected.as_ref())?;
    Ok(CurrentState {
        record: Some(record),
        state,
    })
}

/// The change's chain of state records, newest first, each with what it
/// changed (`ledger state log --json`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateLogOptions {
    /// The change's name.
    pub change: String,
}

fn state_log(ws: &Workspace, o: StateLogOptions) -> Result<Vec<LogEntry>> {
    crate::state_log(ws.store(), &o.change)
}

change_options! {
    /// Records a verdict with its PASS inventory in the change's envelope
    /// (`ledger validate record`). A PASS is refused with `validation-refused`
    /// unless every artifact is approved and every gate named is fresh now,
    /// and with `no-delivery` when it names no `roots` or `paths` and gives
    /// no `no_delivery` reason.
    pub struct RecordValidationOptions {
        /// `PASS` or `FAIL`.
        pub verdict: Verdict,
        /// Where the verdict was observed (a message id, a URL...).
        pub source: String,
        /// Git repositories at or below the workspace.
        #[serde(default)]
        pub repos: Vec<String>,
        /// Delivery roots.
        #[serde(default)]
        pub roots: Vec<String>,
        /// Delivery paths.
        #[serde(default)]
        pub paths: Vec<String>,
        /// Paths or directories left out of the delivery roots.
        #[serde(default)]
        pub exclude: Vec<String>,
        /// Local unversioned instruction files.
        #[serde(default)]
        pub instructions: Vec<String>,
        /// Gates the verdict relies on, fresh as `check_recorded_gate` finds them.
        #[serde(default)]
        pub gates: Vec<String>,
        /// Phase records of the change, excluded from the PASS: each one
        /// regular file, now and at every check.
        #[serde(default)]
        pub phase_records: Vec<String>,
        /// Why the change has no delivery files.
        #[serde(default)]
        pub no_delivery: Option<String>,
        /// How to observe each gate's prerequisites now: gate name →
        /// prerequisite name → how (as `check_recorded_gate` takes them).
        #[serde(default)]
        pub gate_prerequisites: BTreeMap<String, BTreeMap<String, Observe>>,
        /// The PASS fingerprint the reviewer saw: `fingerprint-moved` when
        /// the set has another one now.
        #[serde(default)]
        pub reviewed: Option<String>,
        /// The state record the write started from (`none`: no state):
        /// `pointer-conflict` when another writer advanced it.
        #[serde(default)]
        pub expected: Option<String>,
    }
}

fn record_validation(ws: &Workspace, o: RecordValidationOptions) -> Result<CurrentState> {
    let change = o.open(ws)?;
    let mut request = ValidationRequest::new(o.verdict, &o.source);
    request.repositories = o.repos;
    request.roots = o.roots;
    request.paths = o.paths;
    request.exclusions = o.exclude.into_iter().map(|p| (p, None)).collect();
    request.instructions = o.instructions;
    request.phase_records = o.phase_records;
    request.no_delivery = o.no_delivery;
    request.basis = write_basis(o.reviewed.as_deref(), o.expected.as_deref())?;
    request.gates_observing(ws.path(), &o.gates, &o.gate_prerequisites)?;
    let (record, state) = crate::record_validation(ws.store(), &change, &request)?;
    Ok(CurrentState {
        record: Some(record),
        state,
    })
}

change_options! {
    /// Whether the recorded PASS still stands: its inventory re-expanded, its
    /// gates checked, each one's prerequisites observed as
    /// `gate_prerequisites` says (`ledger validate check --json`).
    pub struct CheckValidationOptions {
        /// Gate name → prerequisite name → how to observe it now; a gate the
        /// verdict did not rely on is refused.
        #[serde(default)]
        pub gate_prerequisites: GatePrerequisites,
    }
}

fn check_validation(ws: &Workspace, o: CheckValidationOptions) -> Result<ValidationCheck> {
    let change = o.open(ws)?;
    crate::check_validation_with(ws.store(), &change, &o.gate_prerequisites)
}

change_options! {
    /// Every difference from the PASS after the terminal mutations, by class
    /// (`ledger finalize check --json`).
    pub struct FinalizeCheckOptions {
        /// Registry files the finalization is expected to change.
        #[serde(default)]
        pub expect: Vec<String>,
    }
}

fn finalize_check(ws: &Workspace, o: FinalizeCheckOptions) -> Result<Finalization> {
    let change = o.open(ws)?;
    crate::finalize_check(ws.store(), &change, &o.expect)
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("advance_state", &["change"], advance_state),
        Verb::method("state_log", &["change"], state_log),
        Verb::method("record_validation", &["change"], record_validation),
        Verb::method("check_validation", &["change"], check_validation),
        Verb::method("finalize_check", &["change"], finalize_check),
    ]
}
