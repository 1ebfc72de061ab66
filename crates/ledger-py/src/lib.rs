//! The Python binding of ledger: `import ledger` gives the whole model of
//! `ledger-core` in process — fingerprints, inventories and their records,
//! comparisons, approvals, the record store and gate evidence.
//!
//! The crate is empty unless the `python` feature is on (maturin turns it on),
//! so that `cargo test --workspace` needs no Python. Each module wraps one core
//! module and only translates: arguments into owned Rust values (`args` when
//! they are paths), the core call with the GIL released, the result into a
//! Python object, and every error through the single translation in `errors`.
//!
//! ```python
//! import ledger
//!
//! inv = ledger.inventory("/path/to/checkout", roots=["src"])
//! print(inv.fingerprint, len(inv.entries))
//! assert ledger.fingerprint("/path/to/checkout", roots=["src"]) == inv.fingerprint
//! print(inv.compare().matches)  # later: is it still what is on disk?
//! ```

#[cfg(feature = "python")]
mod approval;
#[cfg(feature = "python")]
mod args;
#[cfg(feature = "python")]
mod artifacts;
#[cfg(feature = "python")]
mod compare;
#[cfg(feature = "python")]
mod entry;
#[cfg(feature = "python")]
mod envelope;
#[cfg(feature = "python")]
mod errors;
#[cfg(feature = "python")]
mod evidence;
#[cfg(feature = "python")]
mod fingerprint;
#[cfg(feature = "python")]
mod gate;
#[cfg(feature = "python")]
mod graph;
#[cfg(feature = "python")]
mod inventory;
#[cfg(feature = "python")]
mod normalize;
#[cfg(feature = "python")]
mod scope;
#[cfg(feature = "python")]
mod store;

/// The native module `ledger._ledger`; `python/ledger/__init__.py` re-exports it.
#[cfg(feature = "python")]
#[pyo3::pymodule]
#[pyo3(name = "_ledger")]
mod ledger_module {
    use pyo3::prelude::*;

    #[pymodule_export]
    use crate::approval::{
        PyApprovalStatus, PyArtifactStatus, approve, current_state, retire, status,
    };
    #[pymodule_export]
    use crate::artifacts::PyChangeSet;
    #[pymodule_export]
    use crate::compare::{PyChange, PyComparison};
    #[pymodule_export]
    use crate::entry::PyEntry;
    #[pymodule_export]
    use crate::envelope::{PyBinding, PyStateEnvelope, PyValidation};
    #[pymodule_export]
    use crate::errors::panic_for_test;
    #[pymodule_export]
    use crate::evidence::{
        PyEvidence, PyFreshness, PyGateSpec, PyObserve, PyStaleReason, check_gate,
        check_recorded_gate, latest_evidence,
    };
    #[pymodule_export]
    use crate::fingerprint::{fingerprint_entries, parse_fingerprint};
    #[pymodule_export]
    use crate::gate::{PyRunOutcome, run_gate};
    #[pymodule_export]
    use crate::graph::{PyArtifact, PyArtifactGraph};
    #[pymodule_export]
    use crate::inventory::{PyInventory, fingerprint, inventory, worktree_root};
    #[pymodule_export]
    use crate::normalize::normalize_tasks;
    #[pymodule_export]
    use crate::scope::PyScope;
    #[pymodule_export]
    use crate::store::{PyStore, PyStoreReport};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        crate::errors::register(m)?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add("ERROR_CODES", ledger_core::Error::CODES.to_vec())?;
        m.add("FORMAT_V1", ledger_core::FORMAT_V1)?;
        m.add("RECORD_FORMAT", ledger_core::RECORD_FORMAT)?;
        m.add("RECORD_VERSION", ledger_core::RECORD_VERSION)?;
        m.add("STORE_DIR", ledger_core::STORE_DIR)?;
        m.add("DEFAULT_CHANGES_ROOT", ledger_core::DEFAULT_CHANGES_ROOT)?;
        m.add(
            "DEFAULT_EXCLUSION_REASON",
            crate::args::DEFAULT_EXCLUSION_REASON,
        )?;
        Ok(())
    }
}
