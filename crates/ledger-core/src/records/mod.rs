//! The records wing: what an expansion becomes once kept. An
//! [`InventoryRecord`] is an inventory written down (its scope, entries and
//! fingerprint, docs/records.md); a [`Comparison`] says which paths of a record
//! changed since, against the disk now; the [`Store`] keeps records under
//! content-derived names with compare-and-swap refs, and `store check` lists
//! what is wrong with it (docs/approvals.md, The record store).
//!
//! It stands on the expansion wing and knows nothing of OpenSpec, approvals or
//! gates: those wings write their records through it.
//!
//! ```
//! use ledger_core::records::Store;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
//! let store = Store::open(workspace)?;
//! let first = store.commit("notes/review", "note", None, &"drafted")?;
//! assert_eq!(store.head("notes/review")?, Some(first));
//! # Ok(())
//! # }
//! ```

pub(crate) mod compare;
pub(crate) mod record;
pub mod signing;
pub(crate) mod started_from;
pub(crate) mod store;

pub use compare::{Change, ChangeKind, Comparison};
pub use record::{
    InventoryRecord, OWN_RECORD_REASON, Observed, RECORD_FORMAT, RECORD_VERSION,
    TASK_RULES_VERSION, to_pretty_json,
};
pub use started_from::StartedFrom;
pub use store::{
    ABANDONED_AFTER, CorruptFile, DECISIONS, DanglingRef, Divergence, GIT_STORE_DIR, Orphan,
    OrphanChoice, OrphanDecision, Provenance, RecordId, RefHead, RefLock, RemoteSetup,
    STORED_RECORD_FORMAT, STORED_RECORD_VERSION, Store, StoreReport, StoredRecord, UNLOCK_FLOOR,
    Unlocked,
};
