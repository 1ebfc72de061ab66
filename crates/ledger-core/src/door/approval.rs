//! Approvals of an OpenSpec change, as the doors call them (docs/approvals.md).

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Verb, Workspace};
use crate::{ApprovalStatus, Result};

/// Each artifact's approval: approved, unbound, changed (with the changed
/// paths), reset, blocked, archived or gone, with its cause (`ledger status --json`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusOptions {
    /// The change's name (its directory under the changes root).
    pub change: String,
    /// Where changes live, relative to the workspace; default `openspec/changes`.
    #[serde(default)]
    pub changes_root: Option<String>,
    /// The artifact schema: a name (`openspec/schemas/<name>/schema.yaml`, else
    /// built in) or a path to a `schema.yaml`; default: the change's
    /// `.openspec.yaml`, else `openspec/config.yaml`, else spec-driven.
    #[serde(default)]
    pub schema: Option<String>,
}

fn status(ws: &Workspace, options: StatusOptions) -> Result<ApprovalStatus> {
    let change = ws.change(
        &options.change,
        options.changes_root.as_deref(),
        options.schema.as_deref(),
    )?;
    crate::status(ws.store(), &change)
}

/// The verbs of this file.
pub(super) fn verbs() -> Vec<Verb> {
    vec![Verb::method("status", &["change"], status)]
}
