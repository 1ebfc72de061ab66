//! The expansion wing, ledger's generic engine: a [`Scope`] (a workspace, its
//! Git repositories, roots, extra paths, exclusions with reasons) expands into
//! an [`Inventory`] — the candidates listed exactly as
//! `git ls-files --cached --others --exclude-standard` would (in process, with
//! gix), each read without following symlinks, in parallel, and the v1
//! [`Fingerprint`] over them (docs/format.md).
//!
//! It stands on the ground floor and the tasks wing (a Tasks file is hashed
//! normalized) and knows nothing of OpenSpec, approvals or the record store;
//! it could be its own crate. It owns what expansion needs of `.ledger/`:
//! opening it safely (`ledger_dir`), refusing one that Git tracks (`trust`),
//! and the digest cache kept there (`cache`, docs/performance.md).
//!
//! Where a rule goes: what is listed (`git`, `walk`), how a path is read
//! (`read`, `read_queue`), what an entry is (`entry`), how entries are hashed
//! (`fingerprint`), how a scope is declared (`scope`, `scope_file`).
//!
//! ```
//! use ledger_core::expand::{Inventory, Scope};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("proposal.md"), "# Why\n")?;
//! let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
//! let mut scope = Scope::new(workspace);
//! scope.add_root(".")?;
//! let inventory = Inventory::expand(&scope)?;
//! assert_eq!(inventory.entries.len(), 1);
//! assert_eq!(Inventory::expand(&scope)?.fingerprint, inventory.fingerprint);
//! # Ok(())
//! # }
//! ```

pub(crate) mod cache;
pub(crate) mod call;
pub(crate) mod disk_waits;
pub(crate) mod entry;
pub(crate) mod exclusion;
pub(crate) mod fingerprint;
pub(crate) mod git;
pub(crate) mod inventory;
pub(crate) mod ledger_dir;
pub(crate) mod overlap;
pub(crate) mod progress;
pub(crate) mod read;
pub(crate) mod read_queue;
pub(crate) mod revision;
pub(crate) mod scope;
pub(crate) mod scope_file;
pub(crate) mod threads;
pub(crate) mod trust;
pub(crate) mod walk;
pub(crate) mod walk_memo;

pub use crate::settings::{MAX_THREADS, NO_CACHE_ENV, THREADS_ENV};
pub use cache::CacheReport;
pub use entry::{Content, Digest, Entry};
pub use exclusion::ExclusionMatch;
pub use fingerprint::{Encoder, FORMAT_V1, Fingerprint, fingerprint_entries};
pub use git::{GitReads, git_reads};
pub use inventory::{Inventory, default_workspace, exclusion_matches, opened_once, worktree_root};
pub use overlap::{FileSet, Overlap, ScopeSize, SharedPath, overlap, overlap_sets};
pub use progress::{Progress, progress};
pub use revision::{AtRevision, ObservedHead};
pub use scope::{
    DEFAULT_EXCLUSION_REASON, Exclusion, STORE_DIR, STORE_EXCLUSION_REASON, Scope, ScopeLists,
};
pub use threads::{READS_IN_FLIGHT, pool_threads};
