//! How many threads the core reads and hashes with (`ledger_core::set_threads`).

use napi::Env;
use napi_derive::napi;

use crate::task::block;

/// Sets the number of threads every later call uses (`0`: one per core; without
/// a call, the `LEDGER_THREADS` environment variable decides, else one per core).
/// Refused with `invalid-argument` for anything but a whole number from 0 to the
/// core's limit.
#[napi]
pub fn set_threads(env: Env, count: f64) -> napi::Result<()> {
    block(&env, || Ok(ledger_core::set_threads(whole(count)?)?))
}

/// A JavaScript number as a count: a whole, non-negative number (never truncated).
fn whole(count: f64) -> Result<usize, ledger_core::Error> {
    let valid =
        count.is_finite() && count >= 0.0 && count.fract() == 0.0 && count <= u32::MAX.into();
    if !valid {
        return Err(ledger_core::Error::InvalidArgument {
            message: format!("{count} is not a thread count (a whole number, 0 for one per core)"),
        });
    }
    // Checked above: a whole number in u32's range.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(count as u32 as usize)
}

/// The number of threads calls run with now.
#[napi]
pub fn threads() -> u32 {
    u32::try_from(ledger_core::threads()).unwrap_or(u32::MAX)
}
