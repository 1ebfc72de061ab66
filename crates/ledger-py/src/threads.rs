//! `set_threads()` and `threads()` (core `threads`): how many threads read and
//! hash files.

use pyo3::prelude::*;

use crate::errors;

/// Sets the number of threads every later call uses (`0`: one per core; without
/// a call, the `LEDGER_THREADS` environment variable decides, else one per
/// core). Above the core's limit: `InvalidArgumentError`.
#[pyfunction]
pub fn set_threads(py: Python<'_>, count: usize) -> PyResult<()> {
    errors::run(py, || ledger_core::set_threads(count))
}

/// The number of threads calls run with now.
#[pyfunction]
pub fn threads() -> usize {
    ledger_core::threads()
}
