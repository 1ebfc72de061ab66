//! The lifecycle of a change after its approvals (docs/lifecycle.md), as the
//! doors call it: the handoff (`advance_state`, `state_log`), the verdict
//! (`record_validation`, `check_validation`) and the terminal check
//! (`finalize_check`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::approval::{started_from, write_basis};
use super::openspec::change_options;
use super::{Exclude, Verb, Workspace, text};
use crate::{
    Result,
    approval::{Check, CurrentState, LogEntry, StatePatch, TaskIds, ValidationVerdict},
    gate::Observe,
    lifecycle::{Finalization, GatePrerequisites, ValidationCheck, ValidationRequest},
};

change_options! {
    /// Advances the change's state envelope (the handoff, `ledger state set`):
    /// only the fields given change; the task ids are read from the tracked
    /// Tasks file unless `completed` or `remaining` is given. A new record
    /// after `expected` (the record the caller started from, `no-record` when it
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
        /// Completed task ids. Where the change has its Tasks file, the file
        /// is the record: ids that agree with it change nothing, and ids it
        /// contradicts are `invalid-argument` unless `tasks_reason` is given
        /// (then `completed` and `remaining` replace the file's lists).
        #[serde(default)]
        pub completed: Option<Vec<String>>,
        /// Remaining task ids (see `completed`).
        #[serde(default)]
        pub remaining: Option<Vec<String>>,
        /// Why the given task ids win over the Tasks file (kept as the check
        /// `task-ids`).
        #[serde(default)]
        pub tasks_reason: Option<String>,
        /// The state record the write started from (`no-record`: no state).
        #[schemars(with = "Option<crate::records::StartedFrom>")]
        #[serde(default)]
        pub expected: Option<String>,
    }
}

/// Where the patch's task ids come from: the file, unless the caller gave
/// either list (the core checks them against the file: [`TaskIds::Given`]).
fn task_ids(
    completed: Option<Vec<String>>,
    remaining: Option<Vec<String>>,
    reason: Option<String>,
) -> TaskIds {
    match (completed, remaining) {
        (None, None) => TaskIds::FromTasksFile,
        (completed, remaining) => TaskIds::Given {
            completed: completed.unwrap_or_default(),
            remaining: remaining.unwrap_or_default(),
            reason,
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
        tasks: task_ids(o.completed, o.remaining, o.tasks_reason),
    };
    let (record, state) =
        crate::approval::advance_state(ws.store()?, &change, &patch, expected.as_ref())?;
    Ok(CurrentState {
        record: Some(record),
        state,
    })
}

/// The change's chain of state records, newest first, each with what it
/// changed (`ledger state log --json`); `unknown-change` when nothing is
/// recorded and no such change exists.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateLogOptions {
    /// The change's name.
    pub change: String,
}

fn state_log(ws: &Workspace, o: StateLogOptions) -> Result<Vec<LogEntry>> {
    let change = ws.change(&o.change, None, None)?;
    crate::approval::recorded_state_log(ws.store()?, &change)
}

change_options! {
    /// Records a verdict with its PASS inventory in the change's envelope
    /// (`ledger validate record`). A PASS is refused with `validation-refused`
    /// unless every artifact is approved and every gate named is fresh now,
    /// and with `no-delivery` when it names no `roots` or `paths` and gives
    /// no `no_delivery` reason.
    pub struct RecordValidationOptions {
        /// `PASS` or `FAIL`.
        pub verdict: ValidationVerdict,
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
        /// Paths or directories left out of the delivery roots: each a path
        /// (the default reason is recorded) or `{path, reason}`, as every
        /// scope's `exclude` takes them.
        #[serde(default)]
        pub exclude: Vec<Exclude>,
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
        /// The state record the write started from (`no-record`: no state):
        /// `pointer-conflict` when another writer advanced it.
        #[schemars(with = "Option<crate::records::StartedFrom>")]
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
    request.exclusions = (o.exclude.into_iter())
        .map(|e| (e.path, e.reason))
        .collect();
    request.instructions = o.instructions;
    request.phase_records = o.phase_records;
    request.no_delivery = o.no_delivery;
    request.basis = write_basis(o.reviewed.as_deref(), o.expected.as_deref())?;
    request.gates_observing(ws.path(), &o.gates, &o.gate_prerequisites)?;
    let (record, state) = crate::lifecycle::record_validation(ws.store()?, &change, &request)?;
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
    crate::lifecycle::check_validation_with(ws.store()?, &change, &o.gate_prerequisites)
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
    crate::lifecycle::finalize_check(ws.store()?, &change, &o.expect)
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("advance_state", &["change"], advance_state).shown(text::state),
        Verb::method("state_log", &["change"], state_log),
        Verb::method("record_validation", &["change"], record_validation).shown(text::state),
        Verb::method("check_validation", &["change"], check_validation).shown(text::validation),
        Verb::method("finalize_check", &["change"], finalize_check).shown(text::finalization),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::door::testing::{call, code};
    use serde_json::json;

    use crate::door::Case;

    /// Change `add-auth` with every spec-driven artifact, and a delivery in `src/`.
    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let change = dir.path().join("openspec/changes/add-auth");
        std::fs::create_dir_all(change.join("specs/auth")).unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(change.join("proposal.md"), "# Why\n").unwrap();
        std::fs::write(change.join("design.md"), "# How\n").unwrap();
        std::fs::write(change.join("specs/auth/spec.md"), "# Auth\n").unwrap();
        std::fs::write(change.join("tasks.md"), "- [x] 1.1 [core] Add login\n").unwrap();
        std::fs::write(dir.path().join("src/login.txt"), "login\n").unwrap();
        dir
    }

    #[test]
    fn given_task_ids_agree_with_the_tasks_file_or_say_why_they_win() {
        let dir = workspace();
        let set = |o: serde_json::Value| call(&dir, "advance_state", o, Case::Snake);
        // tasks.md has `1.1` done: agreeing ids change nothing, one list alone empties none.
        let agreed = set(json!({"change": "add-auth", "completed": ["1.1"]}));
        assert_eq!(
            agreed["ok"]["state"]["tasks_completed"],
            json!(["1.1"]),
            "{agreed}"
        );
        assert_eq!(agreed["ok"]["state"]["tasks_remaining"], json!([]));
        for wrong in [json!({"completed": ["1.2"]}), json!({"remaining": ["1.1"]})] {
            let mut o = wrong.clone();
            o["change"] = json!("add-auth");
            let refused = set(o);
            assert_eq!(
                refused["error"]["code"], "invalid-argument",
                "{wrong}: {refused}"
            );
            assert!(
                refused["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("tasks.md")
            );
        }
        let forced = set(json!({
            "change": "add-auth", "completed": ["1.1", "1.2"], "tasks_reason": "1.2 landed in another repository",
        }));
        let state = &forced["ok"]["state"];
        assert_eq!(state["tasks_completed"], json!(["1.1", "1.2"]), "{forced}");
        let check = json!({"name": "task-ids", "result": "given, not read from the Tasks file: 1.2 landed in another repository"});
        assert!(
            state["checks"].as_array().unwrap().contains(&check),
            "{state}"
        );
    }

    #[test]
    fn the_handoff_advances_the_state_and_the_log_says_what_changed() {
        let dir = workspace();
        let set = json!({
            "change": "add-auth", "role": "impl", "areas": ["auth"],
            "checks": [{"name": "make test", "result": "PASS"}], "blockers": ["review"],
        });
        let advanced = call(&dir, "advance_state", set, Case::Snake);
        let state = &advanced["ok"]["state"];
        assert_eq!(state["role"], "impl", "{advanced}");
        assert_eq!(
            state["tasks_completed"],
            json!(["1.1"]),
            "read from tasks.md"
        );
        let first = advanced["ok"]["record"].as_str().unwrap().to_owned();
        let next = json!({"change": "add-auth", "clearBlockers": true, "completed": [], "expected": first});
        let cleared = call(&dir, "advance_state", next, Case::Camel);
        assert_eq!(cleared["ok"]["state"]["blockers"], json!([]), "{cleared}");
        // An empty list contradicts nothing: the Tasks file is the record.
        assert_eq!(cleared["ok"]["state"]["tasksCompleted"], json!(["1.1"]));
        // Started from the first record, which is no longer the head.
        let late = json!({"change": "add-auth", "role": "x", "expected": first});
        assert_eq!(
            code(&call(&dir, "advance_state", late, Case::Snake)),
            "pointer-conflict"
        );
        let log = call(
            &dir,
            "state_log",
            json!({"change": "add-auth"}),
            Case::Camel,
        );
        let log = log["ok"].as_array().unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log[1]["record"], first.as_str(), "newest first");
        assert!(log[0]["writtenAt"].is_string());
        let bad_check = json!({"change": "add-auth", "checks": [["make test", "PASS"]]});
        assert_eq!(
            code(&call(&dir, "advance_state", bad_check, Case::Snake)),
            "invalid-argument"
        );
    }

    #[test]
    fn a_pass_is_recorded_checked_and_finalized_against_the_workspace() {
        let dir = workspace();
        let pass = json!({"change": "add-auth", "verdict": "PASS", "source": "review:1", "roots": ["src"]});
        let early = call(&dir, "record_validation", pass.clone(), Case::Snake);
        assert_eq!(
            code(&early),
            "validation-refused",
            "nothing is approved yet: {early}"
        );
        for artifact in ["proposal", "specs", "design", "tasks"] {
            let options = json!({"change": "add-auth", "artifact": artifact, "source": "m"});
            assert!(call(&dir, "approve", options, Case::Snake)["ok"].is_object());
        }
        let lower = json!({"change": "add-auth", "verdict": "pass", "source": "r"});
        let reply = call(&dir, "record_validation", lower, Case::Snake);
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("verdict"),
            "{reply}"
        );
        let nothing = json!({"change": "add-auth", "verdict": "PASS", "source": "r"});
        assert_eq!(
            code(&call(&dir, "record_validation", nothing, Case::Snake)),
            "no-delivery"
        );
        let recorded = call(&dir, "record_validation", pass, Case::Snake);
        let validation = &recorded["ok"]["state"]["validation"];
        assert_eq!(validation["verdict"], "PASS", "{recorded}");
        let check = call(
            &dir,
            "check_validation",
            json!({"change": "add-auth"}),
            Case::Snake,
        );
        assert_eq!(check["ok"]["stands"], true, "{check}");
        assert_eq!(check["ok"]["fingerprint"], validation["fingerprint"]);
        let foreign =
            json!({"change": "add-auth", "gatePrerequisites": {"lint": {"x": {"literal": "1"}}}});
        let reply = call(&dir, "check_validation", foreign, Case::Camel);
        assert_eq!(
            code(&reply),
            "invalid-argument",
            "no gate `lint` in the verdict: {reply}"
        );
        std::fs::write(dir.path().join("src/login.txt"), "changed\n").unwrap();
        let moved = call(
            &dir,
            "check_validation",
            json!({"change": "add-auth"}),
            Case::Snake,
        );
        assert_eq!(moved["ok"]["stands"], false);
        let finalization = call(
            &dir,
            "finalize_check",
            json!({"change": "add-auth"}),
            Case::Snake,
        );
        let new_changes = finalization["ok"]["new_changes"].as_array().unwrap();
        assert_eq!(
            new_changes[0]["new"]["path"], "src/login.txt",
            "{finalization}"
        );
        assert_eq!(finalization["ok"]["clean"], false);
    }
}
