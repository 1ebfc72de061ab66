//! `set_digest_cache()` and `digest_cache_enabled()` (core `store::cache`):
//! whether expansions answer unchanged files from the digest cache.

use pyo3::prelude::*;

/// Turns the digest cache in `.ledger/` on or off for every later call in this
/// process (`False`: every file is read, like the CLI's `--no-cache`). Without a
/// call, the `LEDGER_NO_CACHE` environment variable decides; the cache is on by
/// default. The answer never depends on it.
#[pyfunction]
pub fn set_digest_cache(enabled: bool) {
    ledger_core::set_digest_cache(enabled);
}

/// Whether calls use the digest cache now.
#[pyfunction]
pub fn digest_cache_enabled() -> bool {
    ledger_core::digest_cache_enabled()
}
