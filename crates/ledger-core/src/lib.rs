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

mod approval;
mod artifacts;
mod change_config;
mod compare;
pub mod door;
mod entry;
mod envelope;
mod error;
mod evidence;
mod finalize;
mod fingerprint;
/// Fuzz-target bodies, for the fuzz crate and the corpus replay test only
/// (feature `fuzzing`; not part of the API).
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod gate;
pub(crate) mod git;
mod graph;
mod handoff;
mod inventory;
mod js_space;
mod materials;
mod normalize;
mod normalize_openspec;
#[cfg(any(test, feature = "fuzzing"))]
mod normalize_reference;
mod output;
mod own_file;
mod path;
mod quote;
mod read;
mod read_queue;
mod record;
mod schema;
mod scope;
mod scope_file;
pub mod spec_sync;
mod store;
mod task_rule;
mod tasks;
mod threads;
mod validation;
mod walk;
mod write_basis;

// The workspace's test kit (tests/support/testkit.rs), included from inside the
// crate so that the packaged crate's unit tests build; each test uses a part of it.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../tests/support/testkit.rs"]
mod ledger_testkit;

pub use approval::{
    Absence, ApprovalState, ApprovalStatus, ArtifactStatus, CurrentState, STATE_KIND, SchemaChange,
    SchemaChangeReason, approve, approve_with, changes, current_state, evaluate, retire,
    retire_from, state_ref, status, with_recorded_schema,
};
pub use artifacts::{ARCHIVE_DIR, ChangeLocation, ChangeSet, DEFAULT_CHANGES_ROOT, SchemaChoice};
pub use change_config::{CHANGE_METADATA, ChangeSettings, ProjectConfig};
pub use compare::{Change, ChangeKind, Comparison};
pub use entry::{Content, Digest, Entry};
pub use envelope::{Binding, Check, GateUse, Retirement, StateEnvelope, Validation, Verdict};
pub use error::{DisplayPath, Error, GitSource, Result};
pub use evidence::{
    EVIDENCE_KIND, Evidence, Freshness, GateQuery, GateSpec, LatestEvidence, Observations, Observe,
    StaleReason, Stopped, check_gate, check_gate_observed, check_gate_query, gate_ref,
    latest_evidence, record_evidence,
};
pub use finalize::{ArchiveMove, Finalization, MovedFile, finalize_check};
pub use fingerprint::{Encoder, FORMAT_V1, Fingerprint, fingerprint_entries};
pub use gate::{
    Echo, Interrupt, KILL_GRACE, RunOptions, RunOutcome, run_gate, run_gate_with, wrapper_exit_code,
};
pub use graph::{Artifact, ArtifactGraph};
pub use handoff::{
    FieldChange, LogEntry, StatePatch, TaskIds, advance_state, differences, state_log,
};
pub use inventory::{Inventory, default_workspace, worktree_root};
pub use normalize::{normalize_tasks, normalize_tasks_with};
pub use output::{
    GateOutput, KeptOutput, OUTPUT_HEAD_BYTES, OUTPUT_LIMIT, OUTPUT_TAIL_BYTES, Truncation,
    evidence_output, gate_output,
};
pub use path::WorkspacePath;
pub use quote::{escape, quote};
pub use record::to_pretty_json;
pub use record::{
    InventoryRecord, OWN_RECORD_REASON, Observed, RECORD_FORMAT, RECORD_VERSION, TASK_RULES_VERSION,
};
pub use schema::{
    BUILTIN_SCHEMAS, DEFAULT_SCHEMA, NameOrigin, OPENSPEC_VERSION, SPEC_DRIVEN_YAML, SchemaRequest,
    SchemaSource, resolve as resolve_schema, resolve_name as resolve_schema_name,
};
pub use scope::{
    DEFAULT_EXCLUSION_REASON, Exclusion, STORE_DIR, STORE_EXCLUSION_REASON, Scope, ScopeLists,
};
pub use store::{
    CacheReport, CorruptFile, DanglingRef, NO_CACHE_ENV, RecordId, RefHead, STORED_RECORD_FORMAT,
    STORED_RECORD_VERSION, Store, StoreReport, StoredRecord, digest_cache_enabled,
    set_digest_cache,
};
pub use task_rule::TaskRule;
pub use tasks::{
    ChangeTasks, Task, TaskRuleWarning, Tasks, read_tasks, read_tasks_file, unseen_tasks,
};
pub use threads::{MAX_THREADS, READS_IN_FLIGHT, THREADS_ENV, pool_threads, set_threads, threads};
pub use validation::{
    COMPLETION_EVIDENCE, COMPLETION_EVIDENCE_REASON, GatePrerequisites, GateStanding,
    PHASE_RECORD_REASON, PhaseRecordKind, PhaseRecordStanding, ValidationCheck, ValidationRequest,
    capabilities, check_validation, check_validation_with, pass_scope, record_validation,
    specs_root,
};
pub use write_basis::{StartedFrom, WriteBasis};
