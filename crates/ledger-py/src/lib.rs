//! The Python binding of ledger: `import ledger` gives the whole model of
//! `ledger-core` in process — fingerprints, inventories and their records,
//! comparisons, approvals, the record store, gate evidence, and Tasks files
//! read under their task rules.
//!
//! The crate is empty unless the `python` feature is on (maturin turns it on),
//! so that `cargo test --workspace` needs no Python. Each module wraps one core
//! module and only translates: arguments into owned Rust values (`args`), the
//! core call with the GIL released, the result into a Python object, and every
//! error through the single translation in `errors`.
//!
//! Two kinds of classes: handles with behaviour (`Scope`, `Inventory`, `Store`,
//! `ChangeSet`, `GateSpec`, ...) keep the core value they wrap; plain results
//! (`Entry`, `Change`, `Binding`, `Freshness`, ...) are frozen structs whose
//! fields are the Python attributes (`#[pyo3(get)]`), each built by one
//! conversion from its core type. A result with `to_json()` keeps the core
//! value too, so that its JSON is the core's own, byte for byte the CLI's.
//!
//! ```python
//! import ledger
//!
//! inv = ledger.inventory("/path/to/checkout", roots=["src"])
//! print(inv.fingerprint, len(inv.entries))
//! assert ledger.fingerprint("/path/to/checkout", roots=["src"]) == inv.fingerprint
//! print(inv.compare().matches)  # later: is it still what is on disk?
//! ```

#![cfg(feature = "python")]

mod approval;
mod args;
mod artifacts;
mod cache;
mod compare;
mod door;
mod entry;
mod envelope;
mod errors;
mod evidence;
mod fingerprint;
mod gate;
mod graph;
mod inventory;
mod lifecycle;
mod repr;
mod schema;
mod scope;
mod store;
mod tasks;
mod threads;

/// The native module `ledger._ledger`; `python/ledger/__init__.py` re-exports it.
#[pyo3::pymodule]
#[pyo3(name = "_ledger")]
mod ledger_module {
    use pyo3::prelude::*;

    #[pymodule_export]
    use crate::approval::{
        PyApprovalStatus, PyArtifactStatus, PySchemaChange, approve, current_state, retire, status,
    };
    #[pymodule_export]
    use crate::artifacts::PyChangeSet;
    #[pymodule_export]
    use crate::cache::{digest_cache_enabled, set_digest_cache};
    #[pymodule_export]
    use crate::compare::{PyChange, PyComparison};
    #[pymodule_export]
    use crate::door::{call, description};
    #[pymodule_export]
    use crate::entry::PyEntry;
    #[pymodule_export]
    use crate::envelope::{PyBinding, PyStateEnvelope, PyValidation};
    #[pymodule_export]
    use crate::evidence::{
        PyEvidence, PyFreshness, PyGateSpec, PyObserve, PyStaleReason, check_gate,
        check_recorded_gate, gate_output, latest_evidence,
    };
    #[pymodule_export]
    use crate::fingerprint::{fingerprint_entries, normalize_tasks, parse_fingerprint};
    #[pymodule_export]
    use crate::gate::{PyRunOutcome, run_gate};
    #[pymodule_export]
    use crate::graph::{PyArtifact, PyArtifactGraph};
    #[pymodule_export]
    use crate::inventory::{PyInventory, fingerprint, inventory, worktree_root};
    #[pymodule_export]
    use crate::lifecycle::{
        PyFinalization, PyGateStanding, PyLogEntry, PyPhaseRecord, PyValidationCheck,
        advance_state, finalize_check, state_log, validate_check, validate_record,
    };
    #[pymodule_export]
    use crate::schema::PySchemaSource;
    #[pymodule_export]
    use crate::scope::PyScope;
    #[pymodule_export]
    use crate::store::{PyStore, PyStoreReport};
    #[pymodule_export]
    use crate::tasks::{PyChangeTasks, PyTask, PyTasks, read_tasks, read_tasks_bytes};
    #[pymodule_export]
    use crate::threads::{set_threads, threads};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        crate::errors::register(m)?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add("ERROR_CODES", ledger_core::Error::CODES.to_vec())?;
        m.add("FORMAT_V1", ledger_core::FORMAT_V1)?;
        m.add("RECORD_FORMAT", ledger_core::RECORD_FORMAT)?;
        m.add("RECORD_VERSION", ledger_core::RECORD_VERSION)?;
        m.add("STORE_DIR", ledger_core::STORE_DIR)?;
        m.add("MAX_THREADS", ledger_core::MAX_THREADS)?;
        m.add("DEFAULT_CHANGES_ROOT", ledger_core::DEFAULT_CHANGES_ROOT)?;
        m.add("DEFAULT_SCHEMA", ledger_core::DEFAULT_SCHEMA)?;
        m.add(
            "TASK_RULES",
            ledger_core::TaskRule::ALL
                .map(ledger_core::TaskRule::as_str)
                .to_vec(),
        )?;
        m.add(
            "DEFAULT_EXCLUSION_REASON",
            ledger_core::DEFAULT_EXCLUSION_REASON,
        )?;
        // Set, not added: `add` would list it in `__all__`, which is the public API.
        #[cfg(feature = "test-hooks")]
        m.setattr(
            "_panic",
            wrap_pyfunction!(crate::errors::panic_for_test, m)?,
        )?;
        Ok(())
    }
}
