//! Content fingerprints of explicit file inventories, so that approvals and gate
//! results stay bound to exactly the bytes they were given for.
//!
//! 1. Declare a [`Scope`]: a workspace, its Git repositories, roots, extra paths,
//!    exclusions with reasons.
//! 2. [`Inventory::expand`] lists the candidates exactly as
//!    `git ls-files --cached --others --exclude-standard` would (in process, with
//!    gix), reads every file in parallel without following symlinks, and computes
//!    the v1 [`Fingerprint`].
//! 3. Store the fingerprint next to the approval or gate result; expand again
//!    later and compare.
//!
//! ```
//! use ledger_core::{Inventory, Scope};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("proposal.md"), "# Why\n")?;
//! let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
//!
//! // Outside Git, a root is walked in full.
//! let mut scope = Scope::new(workspace);
//! scope.add_root(".")?;
//! let inventory = Inventory::expand(&scope)?;
//! assert_eq!(inventory.entries.len(), 1);
//! assert_eq!(inventory.entries[0].kind(), "file");
//!
//! // The same bytes give the same fingerprint; any change gives another.
//! assert_eq!(Inventory::expand(&scope)?.fingerprint, inventory.fingerprint);
//! std::fs::write(dir.path().join("proposal.md"), "# Why not\n")?;
//! assert_ne!(Inventory::expand(&scope)?.fingerprint, inventory.fingerprint);
//! # Ok(())
//! # }
//! ```
//!
//! Errors carry a stable [`Error::code`] and the path they concern; a blocked
//! expansion never yields a fingerprint.

// The ground floor: what every wing may use, and that uses no wing.
mod error;
mod js_space;
mod nofollow;
mod own_file;
mod path;
pub mod quote;

// The wings, from the bottom up: a wing uses only the wings below it
// (docs/architecture.md).
pub mod approval;
pub mod expand;
pub mod gate;
pub mod lifecycle;
pub mod openspec;
pub mod records;
pub mod tasks;

/// Fuzz-target bodies, for the fuzz crate and the corpus replay test only
/// (feature `fuzzing`; not part of the API).
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

// The workspace's test kit (tests/support/testkit.rs), included from inside the
// crate so that the packaged crate's unit tests build; each test uses a part of it.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../tests/support/testkit.rs"]
mod ledger_testkit;

pub use error::{DisplayPath, Error, GitSource, Result};
pub use path::WorkspacePath;

// TRANSITION: the flat names of before the wings.
pub use approval::{
    Absence, ApprovalState, ApprovalStatus, ArtifactStatus, CurrentState, STATE_KIND, SchemaChange,
    SchemaChangeReason, approve, approve_with, changes, current_state, evaluate, retire,
    retire_from, state_ref, status, with_recorded_schema,
};
pub use approval::{Binding, Check, GateUse, Retirement, StateEnvelope, Validation, Verdict};
pub use approval::{ChangeTasks, TaskRuleWarning};
pub use approval::{
    FieldChange, LogEntry, StatePatch, TaskIds, advance_state, differences, state_log,
};
pub use approval::{StartedFrom, WriteBasis};
pub use expand::{CacheReport, NO_CACHE_ENV, digest_cache_enabled, set_digest_cache};
pub use expand::{Content, Digest, Entry};
pub use expand::{
    DEFAULT_EXCLUSION_REASON, Exclusion, STORE_DIR, STORE_EXCLUSION_REASON, Scope, ScopeLists,
};
pub use expand::{Encoder, FORMAT_V1, Fingerprint, fingerprint_entries};
pub use expand::{Inventory, default_workspace, worktree_root};
pub use expand::{MAX_THREADS, READS_IN_FLIGHT, THREADS_ENV, pool_threads, set_threads, threads};
pub use gate::{
    EVIDENCE_KIND, Evidence, Freshness, GateQuery, GateSpec, LatestEvidence, Observations, Observe,
    StaleReason, Stopped, check_gate, check_gate_observed, check_gate_query, gate_ref,
    latest_evidence, record_evidence,
};
pub use gate::{
    Echo, Interrupt, KILL_GRACE, RunOptions, RunOutcome, run_gate, run_gate_with, wrapper_exit_code,
};
pub use gate::{
    GateOutput, KeptOutput, OUTPUT_HEAD_BYTES, OUTPUT_LIMIT, OUTPUT_TAIL_BYTES, Truncation,
    evidence_output, gate_output,
};
pub use lifecycle::{ArchiveMove, Finalization, MovedFile, finalize_check};
pub use lifecycle::{
    COMPLETION_EVIDENCE, COMPLETION_EVIDENCE_REASON, GatePrerequisites, GateStanding,
    PHASE_RECORD_REASON, PhaseRecordKind, PhaseRecordStanding, ValidationCheck, ValidationRequest,
    capabilities, check_validation, check_validation_with, pass_scope, record_validation,
    specs_root,
};
pub use openspec::{ARCHIVE_DIR, ChangeLocation, ChangeSet, DEFAULT_CHANGES_ROOT, SchemaChoice};
pub use openspec::{Artifact, ArtifactGraph};
pub use openspec::{
    BUILTIN_SCHEMAS, DEFAULT_SCHEMA, NameOrigin, OPENSPEC_VERSION, SPEC_DRIVEN_YAML, SchemaRequest,
    SchemaSource, resolve as resolve_schema, resolve_name as resolve_schema_name,
};
pub use openspec::{CHANGE_METADATA, ChangeSettings, ProjectConfig};
pub use quote::{escape, quote};
pub use records::to_pretty_json;
pub use records::{Change, ChangeKind, Comparison};
pub use records::{
    CorruptFile, DanglingRef, RecordId, RefHead, STORED_RECORD_FORMAT, STORED_RECORD_VERSION,
    Store, StoreReport, StoredRecord,
};
pub use records::{
    InventoryRecord, OWN_RECORD_REASON, Observed, RECORD_FORMAT, RECORD_VERSION, TASK_RULES_VERSION,
};
pub use tasks::TaskRule;
pub use tasks::{Task, Tasks, read_tasks, read_tasks_file, unseen_tasks};
pub use tasks::{normalize_tasks, normalize_tasks_with};
