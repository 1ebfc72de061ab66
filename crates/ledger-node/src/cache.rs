//! Whether expansions answer unchanged files from the digest cache
//! (`ledger_core::set_digest_cache`).

use napi_derive::napi;

/// Turns the digest cache in `.ledger/` on or off for every later call in this
/// process (`false`: every file is read, like the CLI's `--no-cache`). Without a
/// call, the `LEDGER_NO_CACHE` environment variable decides; the cache is on by
/// default. The answer never depends on it.
#[napi]
pub fn set_digest_cache(enabled: bool) {
    ledger_core::set_digest_cache(enabled);
}

/// Whether calls use the digest cache now.
#[napi]
pub fn digest_cache_enabled() -> bool {
    ledger_core::digest_cache_enabled()
}
