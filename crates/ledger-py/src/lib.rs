//! The native module of the Python binding, `ledger._ledger`: one door into
//! `ledger_core::door`. `call(workspace, verb, options_json)` runs a verb with
//! the GIL released and answers JSON text; `description()` is the JSON the
//! typed API (`ledger/_api.py`: `Workspace`, the TypedDicts, the
//! `LedgerError` classes) is generated from. Nothing about a verb, a result
//! type or an error code is written here.
//!
//! The crate is empty unless the `python` feature is on (maturin turns it on),
//! so that `cargo test --workspace` needs no Python.
//!
//! ```python
//! import ledger
//!
//! ws = ledger.Workspace("/path/to/checkout")
//! inv = ws.inventory(roots=["src"])
//! assert ws.fingerprint(roots=["src"]) == inv["fingerprint"]
//! ```

#![cfg(feature = "python")]

mod door;

#[pyo3::pymodule]
#[pyo3(name = "_ledger")]
mod ledger_module {
    use pyo3::prelude::*;

    #[pymodule_export]
    use crate::door::{call, cancel, cancel_token, description, is_cancelled, release_cancel};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
