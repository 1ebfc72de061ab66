//! The gate wing: a check (tests, lint, a build) run over a scope and kept as
//! [`Evidence`] bound to the scope's fingerprint, its argv, cwd and observed
//! prerequisites, so that a later `check` says whether it still holds or why
//! not ([`Freshness`], docs/gates.md). Running a gate (`run`) supervises its
//! process group and keeps its output (`output`, up to a bound, 1 MiB unless
//! set, in the store).
//!
//! It stands on the records and expansion wings and knows nothing of OpenSpec
//! or approvals.
//!
//! ```
//! use ledger_core::expand::Scope;
//! use ledger_core::gate::{Echo, GateSpec, check_gate, run_gate};
//! use ledger_core::records::Store;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
//! std::fs::write(dir.path().join("lib.rs"), "fn main() {}\n")?;
//! let mut scope = Scope::new(workspace);
//! scope.add_root(".")?;
//! let spec = GateSpec::new("check", vec!["true".into()], ".", scope, Default::default())?;
//! let store = Store::open(workspace)?;
//! let outcome = run_gate(&store, &spec, Echo::Off)?;
//! assert_eq!(outcome.exit_code(), 0);
//! assert!(check_gate(&store, &spec)?.fresh);
//!
//! // A change to the gate's inputs makes its evidence stale.
//! std::fs::write(dir.path().join("lib.rs"), "fn main() { todo!() }\n")?;
//! assert!(!check_gate(&store, &spec)?.fresh);
//! # Ok(())
//! # }
//! ```

pub(crate) mod check;
pub(crate) mod declared;
pub(crate) mod evidence;
pub(crate) mod output;
pub mod process;
pub(crate) mod reuse;
pub(crate) mod run;
pub(crate) mod stored_output;

pub use check::{check_gate, check_gate_observed, check_gate_query};
pub use declared::{
    DECLARATIONS_FILE, Declarations, DeclaredExclusion, DeclaredGate, DeclaredRun, DeclaredRuns,
    DeclaredStatus, check_declared, run_declared,
};
pub use evidence::{
    EVIDENCE_KIND, Evidence, Freshness, GateQuery, GateSpec, LatestEvidence, Observations, Observe,
    StaleReason, Stopped, gate_ref, latest_evidence, record_evidence,
};
pub use output::{
    KeptOutput, OUTPUT_HEAD_BYTES, OUTPUT_LIMIT, OUTPUT_TAIL_BYTES, OutputBound, Truncation,
};
pub use process::{Echo, Interrupt, KILL_GRACE, RunOptions, wrapper_exit_code};
pub use reuse::{ReusePolicy, limit_reuse, policy_ref, reuse_policy};
pub use run::{RunOutcome, run_gate, run_gate_with};
pub use stored_output::{GateOutput, evidence_output, gate_output};
