//! Approvals of an OpenSpec change, as the doors call them (docs/approvals.md).

use schemars::JsonSchema;
use serde::Deserialize;

use super::openspec::change_options;
use super::{Verb, Workspace};
use crate::{ApprovalStatus, Binding, CurrentState, RecordId, Result, StartedFrom, WriteBasis};

change_options! {
    /// Each artifact's approval: approved, unbound, changed (with the changed
    /// paths), reset, blocked, archived or gone, with its cause (`ledger status --json`).
    pub struct StatusOptions {}
}

fn status(ws: &Workspace, options: StatusOptions) -> Result<ApprovalStatus> {
    let change = options.open(ws)?;
    crate::status(ws.store(), &change)
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
        /// The state record the write started from (`none`: no state was
        /// recorded): `pointer-conflict` when another writer advanced it.
        /// Default: the head as read now.
        #[serde(default)]
        pub expected: Option<String>,
    }
}

fn approve(ws: &Workspace, o: ApproveOptions) -> Result<Binding> {
    let change = o.open(ws)?;
    let basis = write_basis(o.reviewed.as_deref(), o.expected.as_deref())?;
    let binding = crate::approve_with(
        ws.store(),
        &change,
        &o.artifact,
        &o.source,
        o.absent.into(),
        &basis,
    )?;
    for warning in change.task_rule_warnings(&binding) {
        ws.warn(warning.to_string());
    }
    Ok(binding)
}

/// What a write is based on: `reviewed` (a fingerprint) and `expected` (a
/// record id or `none`), parsed by the core (`bad-fingerprint`, `bad-record-id`).
pub(super) fn write_basis(reviewed: Option<&str>, expected: Option<&str>) -> Result<WriteBasis> {
    Ok(WriteBasis {
        reviewed: reviewed.map(str::parse).transpose()?,
        started_from: started_from(expected)?,
    })
}

/// `expected`: a record id, or `none` for no recorded state.
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
    /// The state record the caller started from (`none`: no state):
    /// `pointer-conflict` when another writer advanced it. Default: the head
    /// as read now.
    #[serde(default)]
    pub expected: Option<String>,
}

fn retire(ws: &Workspace, o: RetireOptions) -> Result<RecordId> {
    let from = started_from(o.expected.as_deref())?;
    crate::retire_from(ws.store(), &o.change, &o.reason, from.as_ref())
}

/// The state envelope a change's pointer names, and its record (`ledger state
/// show`); `record` is null and the envelope empty when none is recorded.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CurrentStateOptions {
    /// The change's name.
    pub change: String,
}

fn current_state(ws: &Workspace, o: CurrentStateOptions) -> Result<CurrentState> {
    crate::current_state(ws.store(), &o.change).map(CurrentState::from)
}

/// The verbs of this file.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("status", &["change"], status),
        Verb::method("approve", &["change", "artifact"], approve),
        Verb::method("retire", &["change"], retire),
        Verb::method("current_state", &["change"], current_state),
    ]
}
