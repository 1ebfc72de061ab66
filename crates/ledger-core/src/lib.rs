//! Content fingerprints of explicit file inventories, so that approvals and gate
//! results stay bound to exactly the bytes they were given for.
//!
//! The crate is a house in wings (docs/architecture.md). Each wing is a
//! module that owns one concept and uses only the wings below it:
//!
//! | wing | owns |
//! |---|---|
//! | [`tasks`] | Tasks files: task rules, their normalizers, the task reader |
//! | [`expand`] | the generic engine: a [`Scope`](expand::Scope) expands into an [`Inventory`](expand::Inventory) and its v1 [`Fingerprint`](expand::Fingerprint) (listing as Git does, reading without following symlinks, the digest cache) |
//! | [`records`] | inventory records, comparisons with the disk, the append-only [`Store`](records::Store) |
//! | [`verdict`] | an audit's verdict bound to the fingerprint of any scope, standing until that state changes, downgraded only explicitly |
//! | [`openspec`] | OpenSpec's model: schemas, artifact graphs, change sets, config, materials, the spec sync |
//! | [`approval`] | approvals bound to fingerprints, the cascade, the state envelope and handoff |
//! | [`gate`] | gate evidence: running a check over a scope and knowing whether it still holds |
//! | [`lifecycle`] | the validation PASS and finalization of a change |
//! | [`door`] | the top floor: every verb of the Python and JavaScript doors described once (options and output), one dispatch, the description their typed wrappers are generated from |
//!
//! Below them the ground floor: [`Error`] (a stable [`Error::code`] and the
//! path concerned), [`WorkspacePath`], [`quote`], [`Bytes`] (raw bytes as base64 in JSON),
//! and the platform layer (every operating-system call; where a platform cannot
//! prove a guarantee, the slow, safe answer: docs/architecture.md, The platform
//! layer). The common path is in
//! [`prelude`]. Each wing's page has a working example of its capability.
//!
//! ```
//! use ledger_core::expand::{Inventory, Scope};
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
mod bytes;
mod error;
mod js_space;
mod nofollow;
mod own_file;
mod path;
mod platform;
pub mod quote;
mod settings;

// The wings, from the bottom up (one per line, so that the order is kept):
// a wing uses only the wings below it (docs/architecture.md).
pub mod tasks;

pub mod expand;

pub mod records;

pub mod verdict;

pub mod openspec;

pub mod approval;

pub mod gate;

pub mod lifecycle;

// The top floor: what every front door (Python, Node) shares; it uses every
// wing and no wing uses it.
pub mod door;

/// Fuzz-target bodies, for the fuzz crate and the corpus replay test only
/// (feature `fuzzing`; not part of the API).
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

pub use bytes::Bytes;
pub use error::{DisplayPath, Error, GitSource, Result};
pub use path::WorkspacePath;
pub use platform::{OsStrBytes, probe};
pub use settings::{
    ALLOWED_ENV, KEY_ENV, MAX_THREADS, NO_CACHE_ENV, NonUtf8Env, ProgressSink, Settings,
    THREADS_ENV,
};

/// The common path in one import: declare a scope, expand it, keep and
/// compare the record; approve a change's artifacts and ask their status;
/// run and check a gate.
///
/// ```
/// use ledger_core::prelude::*;
///
/// # fn main() -> Result<()> {
/// let dir = tempfile::tempdir().map_err(|e| Error::InvalidArgument { message: e.to_string() })?;
/// let workspace = camino::Utf8Path::from_path(dir.path()).expect("UTF-8 temp dir");
/// let mut scope = Scope::new(workspace);
/// scope.add_root(".")?;
/// let inventory = Inventory::expand(&scope)?;
/// assert!(inventory.entries.is_empty());
/// # Ok(())
/// # }
/// ```
pub mod prelude {
    pub use crate::approval::{Absence, ApprovalState, ApprovalStatus, approve, status};
    pub use crate::expand::{Entry, Fingerprint, Inventory, Scope};
    pub use crate::gate::{Echo, Freshness, GateSpec, check_gate, run_gate};
    pub use crate::lifecycle::{check_validation, finalize_check, record_validation};
    pub use crate::openspec::ChangeSet;
    pub use crate::records::{Comparison, InventoryRecord, Store};
    pub use crate::{Error, Result, WorkspacePath};
}
