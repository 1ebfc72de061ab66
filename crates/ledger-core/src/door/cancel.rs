//! Cancellation tokens: how a door's caller stops a call that runs a gate
//! from elsewhere (Node's `AbortSignal`, another Python thread).
//!
//! A token is a flag registered under a number. The binding creates one
//! ([`new_token`]), hands its number to the call ([`Hooks::cancel`]) and to
//! whatever cancels it ([`cancel`], from any thread), and lets it go
//! ([`release`]) when the caller no longer needs it. A number rather than an
//! object crosses the native boundary because both hosts already pass plain
//! values to the one `call` function; the registry is what turns it back into
//! the flag the gate's supervisor asks (docs/gates.md, Cancelling a run).
//!
//! A call given a token that is cancelled already fails with `cancelled`
//! before it runs anything; one cancelled while its gate runs stops the
//! gate's process group as the host's interrupt does
//! ([`Stopped::Interrupt`](crate::gate::Stopped::Interrupt)), records the
//! run as not reusable and fails with `cancelled`. A cancelled token stays
//! cancelled, as an aborted `AbortSignal` stays aborted.
//!
//! [`Hooks::cancel`]: super::Hooks::cancel

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::{Error, Result};

/// The registered tokens. A `Mutex` is enough: it is taken once to create a
/// token, once per call that names one, once to cancel and once to release,
/// never while a gate runs (the call holds its flag's `Arc` instead).
fn tokens() -> &'static Mutex<HashMap<u64, Arc<AtomicBool>>> {
    static TOKENS: OnceLock<Mutex<HashMap<u64, Arc<AtomicBool>>>> = OnceLock::new();
    TOKENS.get_or_init(Default::default)
}

/// A new token, not cancelled: its number.
pub fn new_token() -> u64 {
    // Numbers are never reused, so a late `cancel` of a released token can
    // never reach another caller's call. 2^64 tokens outlast any process.
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut tokens = tokens().lock().unwrap_or_else(|p| p.into_inner());
    tokens.insert(id, Arc::new(AtomicBool::new(false)));
    id
}

/// Cancels the token `id`, from any thread: every call holding it stops its
/// gate. `false` when no such token is registered (released, or never made):
/// nothing to cancel.
pub fn cancel(id: u64) -> bool {
    match flag(id) {
        Some(flag) => {
            flag.store(true, Ordering::SeqCst);
            true
        }
        None => false,
    }
}

/// Whether the token `id` was cancelled (`false` for an unknown one).
pub fn is_cancelled(id: u64) -> bool {
    flag(id).is_some_and(|flag| flag.load(Ordering::SeqCst))
}

/// Lets the token `id` go. A call that holds it keeps its flag until it
/// returns; a later [`cancel`] of `id` does nothing.
pub fn release(id: u64) {
    let mut tokens = tokens().lock().unwrap_or_else(|p| p.into_inner());
    tokens.remove(&id);
}

fn flag(id: u64) -> Option<Arc<AtomicBool>> {
    let tokens = tokens().lock().unwrap_or_else(|p| p.into_inner());
    tokens.get(&id).cloned()
}

/// The flag of the token a call was given: `invalid-argument` for a number
/// that names none (released before the call, or never made).
pub(super) fn token_of_call(id: u64) -> Result<Arc<AtomicBool>> {
    flag(id).ok_or_else(|| Error::InvalidArgument {
        message: format!("no cancellation token {id} is registered (released, or never made)"),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_token_is_cancelled_once_and_stays_so_and_a_released_one_is_gone() {
        let id = new_token();
        assert!(!is_cancelled(id));
        assert!(cancel(id));
        assert!(is_cancelled(id));
        assert!(token_of_call(id).is_ok());
        release(id);
        assert!(!cancel(id) && !is_cancelled(id));
        assert_eq!(token_of_call(id).unwrap_err().code(), "invalid-argument");
        assert_ne!(new_token(), id, "numbers are never reused");
    }
}
