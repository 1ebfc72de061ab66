//! Approvals of an OpenSpec change, as the doors call them (docs/approvals.md).

use schemars::JsonSchema;
use serde::Deserialize;

use super::openspec::change_options;
use super::{Verb, Workspace, text};
use crate::{
    Result,
    approval::{ApprovalStatus, Approved, CurrentState, WriteBasis},
    records::{RecordId, StartedFrom},
};

change_options! {
    /// Each artifact's approval: approved, unbound, changed (with the changed
    /// paths), reset, blocked, archived or gone, with its cause (`ledger status --json`).
    pub struct StatusOptions {}
}

fn status(ws: &Workspace, options: StatusOptions) -> Result<ApprovalStatus> {
    let change = options.open(ws)?;
    crate::approval::status(ws.store()?, &change)
}

change_options! {
    /// Binds `artifact`'s current fingerprint to the owner's decision observed
    /// at `source` (a message id, a URL...), and advances the change's state
    /// pointer. `absent` approves a set none of whose files exist (refused
    /// otherwise). `reviewed` and `expected` name what was reviewed and the
    /// record the write started from; a mismatch records nothing. A Tasks file
    /// holding lines the other task rule reads as tasks and the chosen one
    /// does not is approved with a warning (docs/approvals.md).
    pub struct ApproveOptions {
        /// The artifact's id, e.g. `proposal`.
        pub artifact: String,
        /// Where the owner's decision was observed.
        pub source: String,
        /// Approve a set none of whose files exist.
        #[serde(default)]
        pub absent: bool,
        /// The fingerprint the reviewer saw: `fingerprint-moved`, naming the
        /// changed paths, when the set has another one now.
        #[serde(default)]
        pub reviewed: Option<String>,
        /// The state record the write started from (`no-record`: no
        /// state was recorded): `pointer-conflict` when another writer advanced it.
        /// Default: the head as read now.
        #[schemars(with = "Option<crate::records::StartedFrom>")]
        #[serde(default)]
        pub expected: Option<String>,
    }
}

fn approve(ws: &Workspace, o: ApproveOptions) -> Result<Approved> {
    let change = o.open(ws)?;
    let basis = write_basis(o.reviewed.as_deref(), o.expected.as_deref())?;
    let approved = crate::approval::approve_advised(
        ws.store()?,
        &change,
        &o.artifact,
        &o.source,
        o.absent.into(),
        &basis,
    )?;
    // Also the host's own warning (Python's `warnings`, Node's `process.emitWarning`).
    for warning in &approved.warnings {
        ws.warn(warning.code, warning.message.clone());
    }
    Ok(approved)
}

/// What a write is based on: `reviewed` (a fingerprint) and `expected` (a
/// record id or `no-record`), parsed by the core (`bad-fingerprint`, `bad-record-id`).
pub(super) fn write_basis(reviewed: Option<&str>, expected: Option<&str>) -> Result<WriteBasis> {
    Ok(WriteBasis {
        reviewed: reviewed.map(str::parse).transpose()?,
        started_from: started_from(expected)?,
    })
}

/// `expected`: a record id, or `no-record` for no recorded state.
pub(super) fn started_from(expected: Option<&str>) -> Result<Option<StartedFrom>> {
    expected.map(str::parse).transpose()
}

/// Retires a change's state (`ledger state retire`): a new record without
/// bindings that says why; the records before it stay. Returns its id.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetireOptions {
    /// The change's name.
    pub change: String,
    /// Why the change is retired.
    pub reason: String,
    /// The state record the caller started from (`no-record`: no state):
    /// `pointer-conflict` when another writer advanced it. Default: the head
    /// as read now.
    #[schemars(with = "Option<crate::records::StartedFrom>")]
    #[serde(default)]
    pub expected: Option<String>,
}

fn retire(ws: &Workspace, o: RetireOptions) -> Result<RecordId> {
    let from = started_from(o.expected.as_deref())?;
    crate::approval::retire_from(ws.store()?, &o.change, &o.reason, from.as_ref())
}

/// The state envelope a change's pointer names, and its record (`ledger state
/// show`); `record` is null and the envelope empty when none is recorded for
/// a change that exists; `unknown-change` when neither is there.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CurrentStateOptions {
    /// The change's name.
    pub change: String,
}

fn current_state(ws: &Workspace, o: CurrentStateOptions) -> Result<CurrentState> {
    let change = ws.change(&o.change, None, None)?;
    crate::approval::recorded_state(ws.store()?, &change).map(CurrentState::from)
}

/// The verbs of this file.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("status", &["change"], status).shown(text::status),
        Verb::method("approve", &["change", "artifact"], approve).shown(text::approved),
        Verb::method("retire", &["change"], retire),
        Verb::method("current_state", &["change"], current_state).shown(text::state),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::door::testing::call;
    use serde_json::{Value, json};

    use crate::door::Case;

    const TASKS: &str =
        "## 1. Core\n- [ ] 1.1 Add login\n  - [ ] 1.1.1 Test it\n* [ ] 1.2 Add tokens\n";

    /// A workspace holding change `add-auth` with every spec-driven artifact.
    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let change = dir.path().join("openspec/changes/add-auth");
        std::fs::create_dir_all(change.join("specs/auth")).unwrap();
        std::fs::write(change.join("proposal.md"), "# Why\n").unwrap();
        std::fs::write(change.join("design.md"), "# How\n").unwrap();
        std::fs::write(change.join("specs/auth/spec.md"), "# Auth\n").unwrap();
        std::fs::write(change.join("tasks.md"), TASKS).unwrap();
        dir
    }

    #[test]
    fn approve_binds_the_set_and_the_state_pointer_follows() {
        let dir = workspace();
        let snake = Case::Snake;
        let approved = call(
            &dir,
            "approve",
            json!({"change": "add-auth", "artifact": "proposal", "source": "msg:1"}),
            snake,
        );
        let binding = &approved["ok"];
        assert_eq!(binding["artifact"], "proposal", "{approved}");
        assert!(approved.get("warnings").is_none(), "{approved}");
        let state = call(&dir, "current_state", json!({"change": "add-auth"}), snake);
        let bound = &state["ok"]["state"]["bindings"][0];
        assert_eq!(bound["fingerprint"], binding["fingerprint"]);
        let record = state["ok"]["record"].as_str().unwrap();
        let head = call(
            &dir,
            "head",
            json!({"reference": "changes/add-auth"}),
            snake,
        );
        assert_eq!(head["ok"], record);
        let status = call(&dir, "status", json!({"change": "add-auth"}), Case::Camel);
        assert_eq!(
            status["ok"]["artifacts"][0]["state"], "approved",
            "{status}"
        );
        assert_eq!(status["ok"]["stateRecord"], record);
        // Started from no state, while there is one now: nothing is recorded.
        let stale = json!({"change": "add-auth", "artifact": "design", "source": "m", "expected": "no-record"});
        let refused = call(&dir, "approve", stale, snake);
        assert_eq!(refused["error"]["code"], "pointer-conflict", "{refused}");
        let after = call(&dir, "current_state", json!({"change": "add-auth"}), snake);
        assert_eq!(after["ok"]["record"], record);
    }

    #[test]
    fn the_write_basis_is_parsed_by_the_core_and_a_moved_set_refused() {
        let dir = workspace();
        let with = |extra: Value| {
            let mut options = json!({"change": "add-auth", "artifact": "proposal", "source": "m"});
            options
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            call(&dir, "approve", options, Case::Snake)
        };
        let code = |reply: Value| reply["error"]["code"].as_str().unwrap().to_owned();
        assert_eq!(code(with(json!({"expected": "head"}))), "bad-record-id");
        assert_eq!(
            code(with(json!({"reviewed": "sha256:xyz"}))),
            "bad-fingerprint"
        );
        let other = format!("sha256:{}", "0".repeat(64));
        assert_eq!(code(with(json!({"reviewed": other}))), "fingerprint-moved");
        assert_eq!(code(with(json!({"absent": "yes"}))), "invalid-argument");
        // The fingerprint the reviewer saw, when it is the set's, is approved.
        let scope = call(
            &dir,
            "change_inventory",
            json!({"change": "add-auth", "artifact": "proposal"}),
            Case::Snake,
        );
        let seen = scope["ok"]["fingerprint"].clone();
        assert_eq!(with(json!({"reviewed": seen}))["ok"]["fingerprint"], seen);
    }

    #[test]
    fn a_rule_that_misses_task_lines_warns_and_the_chosen_rule_does_not() {
        let dir = workspace();
        let tasks = json!({"change": "add-auth", "artifact": "tasks", "source": "msg"});
        let warned = call(&dir, "approve", tasks.clone(), Case::Snake);
        let warnings = warned["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 1, "{warned}");
        assert_eq!(warnings[0]["code"], "task-rule", "{warned}");
        let warning = warnings[0]["message"].as_str().unwrap();
        assert!(
            warning.contains(
                "3 line(s) are tasks under openspec-checkbox but not under task-checkbox-v1"
            ),
            "{warning}"
        );
        // The result carries them too, for a tool to show with it.
        assert_eq!(&warned["ok"]["warnings"], &warned["warnings"], "{warned}");
        let mut chosen = tasks;
        chosen["taskRule"] = json!("openspec-checkbox");
        let quiet = call(&dir, "approve", chosen, Case::Camel);
        assert!(
            quiet["ok"].is_object() && quiet.get("warnings").is_none(),
            "{quiet}"
        );
        assert_eq!(quiet["ok"]["warnings"], json!([]), "{quiet}");
    }

    #[test]
    fn retire_needs_a_reason_and_current_state_of_an_unknown_change_is_empty() {
        let dir = workspace();
        let empty = call(
            &dir,
            "current_state",
            json!({"change": "nothing"}),
            Case::Snake,
        );
        assert_eq!(empty["ok"]["record"], Value::Null, "{empty}");
        let blank = call(
            &dir,
            "retire",
            json!({"change": "add-auth", "reason": " "}),
            Case::Snake,
        );
        assert_eq!(blank["error"]["code"], "invalid-argument", "{blank}");
        call(
            &dir,
            "approve",
            json!({"change": "add-auth", "artifact": "proposal", "source": "m"}),
            Case::Snake,
        );
        let retired = call(
            &dir,
            "retire",
            json!({"change": "add-auth", "reason": "dropped"}),
            Case::Snake,
        );
        let id = retired["ok"].as_str().unwrap();
        let state = call(
            &dir,
            "current_state",
            json!({"change": "add-auth"}),
            Case::Snake,
        );
        assert_eq!(state["ok"]["record"], id);
        assert_eq!(state["ok"]["state"]["bindings"], json!([]));
    }
}
