//! A change's state in the store: one chain of [`StateEnvelope`] records under
//! the ref `changes/<change>`, the head of which is the change's current state.

use serde::Serialize;

use crate::approval::envelope::StateEnvelope;
use crate::error::{DisplayPath, Error, Result};
use crate::openspec::change_set::ChangeSet;
use crate::platform::OsStrBytes as _;
use crate::records::record::store_workspace;
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
        Some(id) => Ok((Some(id), read_state(store, &id)?)),
    }
}

/// [`current_state`] of a change as the caller names it: when no state is
/// recorded and the change is neither active nor archived, `unknown-change`
/// (a mistyped name reads as an error, never as an empty state).
pub fn recorded_state(
    store: &Store,
    change: &ChangeSet,
) -> Result<(Option<RecordId>, StateEnvelope)> {
    let (record, state) = current_state(store, &change.change)?;
    if record.is_none() {
        change.require_present()?;
    }
    Ok((record, state))
}

/// The envelope of the state record `id`, its inventories taken in the
/// store's workspace ([`StateEnvelope::rerooted`]): a host-free record reads
/// the same in a copy of the workspace. `malformed-record` naming the record
/// when a workspace it holds is relative but not in normal form, or when the
/// store has no workspace to take it in.
pub(crate) fn read_state(store: &Store, id: &RecordId) -> Result<StateEnvelope> {
    let envelope = store
        .read_record_of_kind::<StateEnvelope>(id, STATE_KIND)?
        .body;
    let malformed = |reason: String| Error::MalformedRecord {
        record: DisplayPath::from_bytes(store.record_path(id).as_os_str().as_bytes()),
        reason,
    };
    let base = store_workspace(store);
    envelope.rerooted(base.as_deref()).map_err(malformed)
}

/// Writes `envelope` as the next state of `change` after `base` (the
/// pointer's compare-and-swap), every inventory relative to the store's
/// workspace ([`StateEnvelope::stored_in`]), so that the record holds no
/// host path.
pub(crate) fn commit_state(
    store: &Store,
    change: &str,
    base: Option<&RecordId>,
    envelope: &StateEnvelope,
) -> Result<RecordId> {
    let stored = match store_workspace(store) {
        Some(workspace) => envelope.stored_in(&workspace),
        None => envelope.clone(),
    };
    store.commit(&state_ref(change), STATE_KIND, base, &stored)
}

/// [`commit_state`] of a write that need not depend on what landed since
/// `base` ([`Store::commit_or_rebase`]): when another state landed meanwhile,
/// `rebase` gets it and returns the envelope to write after it, or `None`
/// when this write depends on what landed (`pointer-conflict`).
pub(crate) fn commit_state_or_rebase(
    store: &Store,
    change: &str,
    base: Option<&RecordId>,
    envelope: &StateEnvelope,
    rebase: &mut dyn FnMut(StateEnvelope) -> Option<StateEnvelope>,
) -> Result<RecordId> {
    let workspace = store_workspace(store);
    let stored = |envelope: &StateEnvelope| match &workspace {
        Some(workspace) => envelope.stored_in(workspace),
        None => envelope.clone(),
    };
    let mut on_head = |head: Option<&RecordId>| -> Result<Option<StateEnvelope>> {
        let landed = match head {
            Some(id) => read_state(store, id)?,
            None => StateEnvelope::new(change),
        };
        Ok(rebase(landed).as_ref().map(stored))
    };
    store.commit_or_rebase(
        &state_ref(change),
        STATE_KIND,
        base,
        &stored(envelope),
        &mut on_head,
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::approval::envelope::Binding;
    use crate::expand::inventory::Inventory;
    use crate::expand::scope::Scope;

    /// A store in a temp workspace and an envelope binding one approved set.
    fn bound() -> (tempfile::TempDir, Store, StateEnvelope) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("design.md"), "# Design\n").unwrap();
        let workspace = ledger_testkit::utf8(dir.path()).to_owned();
        let mut scope = Scope::new(workspace.clone());
        scope.add_path("design.md").unwrap();
        let inventory = Inventory::expand(&scope).unwrap();
        let mut envelope = StateEnvelope::new("c");
        envelope.bind(Binding {
            change: "c".into(),
            artifact: "design".into(),
            fingerprint: inventory.fingerprint,
            source: "review".into(),
            observed_at: "2026-01-01T00:00:00Z".into(),
            upstream: Default::default(),
            inventory: Some(inventory),
            schema: None,
            baselines: None,
        });
        (dir, Store::open(&workspace).unwrap(), envelope)
    }

    #[test]
    fn an_envelope_is_stored_host_free_and_read_back_in_its_workspace() {
        let (dir, store, envelope) = bound();
        let id = commit_state(&store, "c", None, &envelope).unwrap();
        let raw = store.read_record::<serde_json::Value>(&id).unwrap().body;
        let stored = &raw["bindings"][0]["inventory"]["scope"]["workspace"];
        assert_eq!(stored, ".", "{raw}");
        let host = dir.path().canonicalize().unwrap();
        let bytes = std::fs::read(store.record_path(&id)).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert!(!text.contains(host.to_str().unwrap()), "{text}");
        assert_eq!(current_state(&store, "c").unwrap().1, envelope);
    }

    #[test]
    fn an_envelope_whose_workspace_leaves_is_refused() {
        let (_dir, store, envelope) = bound();
        let id = commit_state(&store, "c", None, &envelope).unwrap();
        let mut raw = store.read_record::<serde_json::Value>(&id).unwrap().body;
        raw["bindings"][0]["inventory"]["scope"]["workspace"] = "../up".into();
        store
            .commit("changes/c", STATE_KIND, Some(&id), &raw)
            .unwrap();
        let e = current_state(&store, "c").unwrap_err();
        assert_eq!(e.code(), "malformed-record", "{e}");
    }
}
