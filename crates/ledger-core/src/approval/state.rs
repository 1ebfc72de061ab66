//! A change's state in the store: one chain of [`StateEnvelope`] records under
//! the ref `changes/<change>`, the head of which is the change's current state.

use serde::Serialize;

use crate::approval::envelope::StateEnvelope;
use crate::error::Result;
use crate::records::store::{RecordId, Store};

/// The kind of record holding a [`StateEnvelope`].
pub const STATE_KIND: &str = "state";

/// The store reference of a change's state pointer.
pub fn state_ref(change: &str) -> String {
    format!("changes/{change}")
}

/// A change's state envelope and the record it came from, as `ledger state
/// show --json` prints it (`record` is `null` when no state is recorded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CurrentState {
    /// The record the change's pointer names.
    pub record: Option<RecordId>,
    /// Its envelope (empty when no state is recorded).
    pub state: StateEnvelope,
}

impl From<(Option<RecordId>, StateEnvelope)> for CurrentState {
    fn from((record, state): (Option<RecordId>, StateEnvelope)) -> Self {
        CurrentState { record, state }
    }
}

/// The names of the changes with recorded state, sorted.
pub fn changes(store: &Store) -> Result<Vec<String>> {
    let prefix = state_ref("");
    Ok(store
        .refs()?
        .into_iter()
        .filter_map(|(name, _)| name.strip_prefix(prefix.as_str()).map(str::to_owned))
        .collect())
}

/// The change's current state envelope and the record it came from; a change
/// with no recorded state (legacy or new) gets an empty envelope.
pub fn current_state(store: &Store, change: &str) -> Result<(Option<RecordId>, StateEnvelope)> {
    match store.head(&state_ref(change))? {
        None => Ok((None, StateEnvelope::new(change))),
        Some(id) => {
            let record = store.read_record_of_kind::<StateEnvelope>(&id, STATE_KIND)?;
            Ok((Some(id), record.body))
        }
    }
}
