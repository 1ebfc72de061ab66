//! The approval wing: a person's approval of an artifact bound to the
//! fingerprint of its inventory, and the cascade — an approval stands only
//! while its bytes and every upstream approval stand (docs/approvals.md). Each
//! change's state is one [`StateEnvelope`] chain in the store: approvals
//! ([`Binding`]s), the handoff fields a resuming agent reads (role, outcome,
//! tasks, blockers), validation, retirement. Writes are compare-and-swap from
//! the state the writer read ([`WriteBasis`]).
//!
//! It stands on the OpenSpec, records and expansion wings and knows nothing of
//! gates or the lifecycle.
//!
//! ```
//! use ledger_core::approval::{Absence, ApprovalState, approve, status};
//! use ledger_core::openspec::{ChangeSet, DEFAULT_CHANGES_ROOT};
//! use ledger_core::records::Store;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
//! let change_dir = dir.path().join("openspec/changes/add-auth");
//! std::fs::create_dir_all(&change_dir)?;
//! std::fs::write(change_dir.join("proposal.md"), "# Why\n")?;
//!
//! let store = Store::open(workspace)?;
//! let change = ChangeSet::open(workspace, "add-auth", DEFAULT_CHANGES_ROOT, None)?;
//! approve(&store, &change, "proposal", "reviewer: ana", Absence::Refuse)?;
//! let row = |s: &ledger_core::approval::ApprovalStatus| s.artifacts[0].state;
//! assert_eq!(row(&status(&store, &change)?), ApprovalState::Approved);
//!
//! std::fs::write(change_dir.join("proposal.md"), "# Why not\n")?;
//! assert_eq!(row(&status(&store, &change)?), ApprovalState::Changed);
//! # Ok(())
//! # }
//! ```

pub(crate) mod baseline;
pub(crate) mod cascade;
pub(crate) mod change_tasks;
pub(crate) mod envelope;
pub(crate) mod handoff;
pub(crate) mod state;
pub(crate) mod write_basis;

pub use cascade::{
    Absence, ApprovalState, ApprovalStatus, Approved, ArtifactStatus, SchemaChange,
    SchemaChangeReason, Warning, approve, approve_advised, approve_with, evaluate, retire,
    retire_from, status, with_recorded_schema,
};
pub use change_tasks::{ChangeTasks, TaskRuleWarning};
pub use envelope::{
    Binding, Check, GateUse, Retirement, StateEnvelope, Validation, ValidationVerdict,
};
pub use handoff::{
    FieldChange, LogEntry, StatePatch, TaskIds, advance_state, differences, recorded_state_log,
    state_log,
};
pub use state::{CurrentState, STATE_KIND, changes, current_state, recorded_state, state_ref};
pub use write_basis::WriteBasis;
