//! Any earlier matching evidence (docs/gates.md, Reusing earlier evidence):
//! a saved successful run is reused whenever its gate, scope, fingerprint,
//! prerequisites, argv and cwd match what is asked now — not only the newest
//! run. A fixer's worktree that ran the gate on other inputs leaves the main
//! checkout's earlier run on its own inputs reusable.
//!
//! The runs are found through an index kept beside the records
//! (`<store>/gate-index`): for each gate, the head it covers and, for each
//! reuse key, the newest run with that key. It is derived from the records
//! alone, brought up to date from the head down to the head it covered (the
//! whole chain when that one is not on it), and never proof of anything:
//! every run it names is read, checked and judged by [`freshness_of`] as the
//! newest would be, and only a run this store wrote is reused (a fetched one
//! counts only as the head, where its signature is judged). A damaged or
//! forged index costs a lookup, never an answer.
//!
//! How far back reuse reaches is a recorded policy: [`limit_reuse`] records,
//! on the ref `gate-policies/<gate>`, that only the newest N runs are reused.
//! Nothing is deleted; the older runs stay in the store.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::evidence::{
    Evidence, Freshness, GateSpec, Observations, freshness_of, gate_ref, read_evidence_linked,
};
use crate::error::{Error, Result};
use crate::expand::inventory::Inventory;
use crate::records::store::{RecordId, Store};

/// The index's file in the store.
const INDEX: &str = "gate-index";
/// The largest index read: some 100,000 runs.
const INDEX_LIMIT: u64 = 64 << 20;
/// The kind of a policy's record.
const POLICY_KIND: &str = "evidence-policy";

/// The ref that holds the reuse policy of `gate`.
pub fn policy_ref(gate: &str) -> String {
    format!("gate-policies/{gate}")
}

/// How far back reuse of a gate's evidence reaches, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReusePolicy {
    /// The gate.
    pub gate: String,
    /// Only the newest this many runs of the gate are reused.
    pub keep_newest: u64,
    /// Why, in the decider's words.
    pub reason: String,
}

/// Records that only the newest `keep_newest` runs of `gate` are reused from
/// now on; earlier runs stay in the store. `invalid-argument` for an empty
/// reason or a count of 0 (that would turn reuse off: say so by running).
pub fn limit_reuse(store: &Store, gate: &str, keep_newest: u64, reason: &str) -> Result<RecordId> {
    if reason.trim().is_empty() || keep_newest == 0 {
        return Err(Error::InvalidArgument {
            message: format!(
                "a reuse policy for gate {gate:?} needs a reason and a count of at least 1"
            ),
        });
    }
    let policy = ReusePolicy {
        gate: gate.to_owned(),
        keep_newest,
        reason: reason.to_owned(),
    };
    store.append(&policy_ref(gate), POLICY_KIND, &policy)
}

/// The recorded policy of `gate`, if any.
pub fn reuse_policy(store: &Store, gate: &str) -> Result<Option<ReusePolicy>> {
    let Some(id) = store.head(&policy_ref(gate))? else {
        return Ok(None);
    };
    Ok(Some(store.read_record_of_kind(&id, POLICY_KIND)?.body))
}

/// The newest earlier run of `spec` that is fresh for it now, with
/// `observed` prerequisites and the inputs `current` (its requested scope,
/// expanded now); `None` when there is none.
pub(crate) fn earlier_fresh(
    store: &Store,
    spec: &GateSpec,
    observed: &Observations,
    current: &Inventory,
) -> Result<Option<Freshness>> {
    let key = reuse_key(spec, observed, current);
    let Some((record, ordinal, newest)) = index_lookup(store, spec.name(), &key)? else {
        return Ok(None);
    };
    if let Some(policy) = reuse_policy(store, spec.name())?
        && newest - ordinal >= policy.keep_newest
    {
        return Ok(None);
    }
    // Only what this store wrote: a fetched run's signature is judged only
    // while it is the head.
    if !store.is_local(&record)? {
        return Ok(None);
    }
    let (evidence, _) = read_evidence_linked(store, spec.name(), &record)?;
    let found = freshness_of(
        Some((record, evidence)),
        None,
        spec,
        Some(observed),
        Some(current),
    )?;
    Ok(found.fresh.then_some(found))
}

/// What a run must have been run with to be reused for a request: the gate,
/// the resolved scope, the inputs' fingerprint, argv, cwd and the observed
/// prerequisites, hashed. The scope's workspace is left out: the index is
/// shared by every worktree of a repository, and each reads a run in its own
/// workspace (the run found is compared whole before it is reused).
fn reuse_key(spec: &GateSpec, observed: &Observations, inputs: &Inventory) -> String {
    let mut scope = serde_json::json!(inputs.scope);
    if let Some(fields) = scope.as_object_mut() {
        fields.remove("workspace");
    }
    let parts = serde_json::json!([
        spec.name(),
        scope,
        inputs.fingerprint,
        spec.argv(),
        spec.cwd(),
        observed,
    ]);
    hex(&Sha256::digest(parts.to_string().as_bytes()))
}

/// The key of a run, when it can be reused at all (it passed and was not
/// recorded as not reusable).
fn key_of_run(evidence: &Evidence) -> Option<String> {
    let reusable = evidence.passed() && evidence.not_reusable.is_none();
    reusable.then(|| reuse_key(&evidence.spec, &evidence.prerequisites, &evidence.inventory))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The index of every gate of a store, as kept in its file.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    gates: BTreeMap<String, GateIndex>,
}

/// One gate's runs, by reuse key.
#[derive(Debug, Default, Serialize, Deserialize)]
struct GateIndex {
    /// The head the index covers.
    head: Option<RecordId>,
    /// The number of runs on the chain up to and including `head`.
    runs: u64,
    /// For each key, the newest run with it and its ordinal (1 for the first run).
    keys: BTreeMap<String, (RecordId, u64)>,
}

/// The newest run of `gate` with `key`: its record, its ordinal, and the
/// ordinal of the gate's newest run.
fn index_lookup(store: &Store, gate: &str, key: &str) -> Result<Option<(RecordId, u64, u64)>> {
    let head = store.head(&gate_ref(gate))?;
    let mut index: Index = store
        .read_derived(INDEX, INDEX_LIMIT)
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let covered = index.gates.remove(gate).unwrap_or_default();
    let (gate_index, changed) = match covered.head == head {
        true => (covered, false),
        false => (brought_up_to(store, gate, head, covered)?, true),
    };
    let found = gate_index
        .keys
        .get(key)
        .map(|(record, ordinal)| (*record, *ordinal, gate_index.runs));
    if changed {
        index.gates.insert(gate.to_owned(), gate_index);
        if let Ok(bytes) = serde_json::to_vec(&index) {
            store.write_derived(INDEX, &bytes);
        }
    }
    Ok(found)
}

/// `covered` brought up to `head`: the runs from `head` down to the head it
/// covered, or the whole chain when that one is not on it.
fn brought_up_to(
    store: &Store,
    gate: &str,
    head: Option<RecordId>,
    covered: GateIndex,
) -> Result<GateIndex> {
    let mut newer = Vec::new();
    let mut at = head;
    let mut reached = false;
    while let Some(id) = at {
        if Some(id) == covered.head {
            reached = true;
            break;
        }
        let (evidence, previous) = read_evidence_linked(store, gate, &id)?;
        newer.push((id, key_of_run(&evidence)));
        at = previous;
    }
    let mut index = match reached {
        true => covered,
        false => GateIndex::default(),
    };
    for (id, key) in newer.into_iter().rev() {
        index.runs += 1;
        if let Some(key) = key {
            index.keys.insert(key, (id, index.runs));
        }
    }
    index.head = head;
    Ok(index)
}
