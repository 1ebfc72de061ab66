//! What a write started from (docs/approvals.md, What was reviewed): the
//! fingerprint its reviewer saw and the state record its writer read. A write
//! that names them is refused, and records nothing, when the set has moved
//! since (`fingerprint-moved`) or another writer advanced the state in between
//! (`pointer-conflict`).

use crate::approval::envelope::StateEnvelope;
use crate::approval::state::{current_state, read_state, state_ref};
use crate::error::{Error, Result};
use crate::expand::fingerprint::Fingerprint;
use crate::expand::inventory::Inventory;
use crate::quote::quote;
use crate::records::compare::Comparison;
use crate::records::store::{RecordId, StartedFrom, Store};

/// What a write is based on; every part left `None` is taken as it is now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteBasis {
    /// The fingerprint the reviewer saw: the write is refused with
    /// `fingerprint-moved` when the set's fingerprint is another one now.
    pub reviewed: Option<Fingerprint>,
    /// The state record the write started from: the write follows it, and
    /// fails with `pointer-conflict` when the pointer names another one.
    pub started_from: Option<StartedFrom>,
}

/// The state a write builds on: the record it follows and its envelope. With
/// `started_from`, that record (read again, it must be of `change`) or an
/// empty envelope for [`StartedFrom::Nothing`]; the commit then fails with
/// `pointer-conflict` when the head is another. Without it, the head now.
pub(crate) fn state_from(
    store: &Store,
    change: &str,
    started_from: Option<&StartedFrom>,
) -> Result<(Option<RecordId>, StateEnvelope)> {
    let (head, current) = current_state(store, change)?;
    let (base, envelope) = match started_from {
        None => (head, current),
        Some(from) if from.record() == head.as_ref() => (head, current),
        Some(StartedFrom::Nothing) => (None, StateEnvelope::new(change)),
        Some(StartedFrom::Record(id)) => (Some(*id), read_state(store, id)?),
    };
    if envelope.change != change {
        return Err(Error::InvalidArgument {
            message: format!(
                "record {} holds the state of change {}, not of {}",
                base.map_or_else(|| StartedFrom::NO_RECORD.to_owned(), |b| b.to_string()),
                quote(&envelope.change),
                quote(change)
            ),
        });
    }
    Ok((base, envelope))
}

/// Refuses with `fingerprint-moved` when `reviewed` is given and `now` has
/// another fingerprint. The changed paths are named against the newest
/// inventory with the reviewed fingerprint that the change's state chain holds
/// (`pick` finds them in an envelope); ledger keeps no copies of content, so
/// without one it says so and lists the set as it is now.
pub(crate) fn check_reviewed(
    store: &Store,
    change: &str,
    what: &str,
    reviewed: Option<Fingerprint>,
    now: &Inventory,
    pick: impl Fn(&StateEnvelope) -> Vec<&Inventory>,
) -> Result<()> {
    let Some(reviewed) = reviewed else {
        return Ok(());
    };
    if reviewed == now.fingerprint {
        return Ok(());
    }
    let changed = match reviewed_inventory(store, change, reviewed, &pick) {
        Some(then) => {
            let comparison = Comparison::between(&then, now);
            let paths: Vec<String> = comparison
                .changes
                .iter()
                .map(|c| format!("{}: {}", c.change.label(), quote(c.path())))
                .collect();
            format!("changed since: {}", paths.join(", "))
        }
        None => {
            let paths: Vec<String> = now
                .entries
                .iter()
                .map(|e| quote(e.path.as_str()).into_owned())
                .collect();
            format!(
                "ledger recorded no inventory with the reviewed fingerprint, so which of its paths changed cannot be told; the set now: {}",
                if paths.is_empty() {
                    "no paths".to_owned()
                } else {
                    paths.join(", ")
                }
            )
        }
    };
    Err(Error::FingerprintMoved {
        what: what.to_owned(),
        reviewed: reviewed.to_string(),
        current: now.fingerprint.to_string(),
        changed,
    })
}

/// The newest inventory with fingerprint `reviewed` in the change's state
/// chain. Only a hint for the message: a chain that cannot be read gives none
/// (the refusal itself stands on the fingerprints alone).
fn reviewed_inventory(
    store: &Store,
    change: &str,
    reviewed: Fingerprint,
    pick: &impl Fn(&StateEnvelope) -> Vec<&Inventory>,
) -> Option<Inventory> {
    for id in store.history(&state_ref(change)).unwrap_or_default() {
        let Ok(envelope) = read_state(store, &id) else {
            return None;
        };
        let found = pick(&envelope).into_iter().find(|inventory| {
            inventory.fingerprint == reviewed && inventory.check_stored().is_ok()
        });
        if let Some(found) = found {
            return Some(found.clone());
        }
    }
    None
}
