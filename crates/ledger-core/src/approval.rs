//! The approval cascade (SPEC §9): on recovery, each artifact is `approved`,
//! `unbound`, `changed` or `reset`, in topological order.

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde::Serialize;

use crate::artifacts::ChangeSet;
use crate::envelope::{Binding, StateEnvelope};
use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;
use crate::store::{RecordId, Store};

/// The kind of record holding a [`StateEnvelope`].
pub const STATE_KIND: &str = "state";

/// The store reference of a change's state pointer.
pub fn state_ref(change: &str) -> String {
    format!("changes/{change}")
}

/// The state of one artifact's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalState {
    /// The binding's fingerprint equals the current one: continue without re-approval.
    Approved,
    /// No binding (including legacy state): needs an explicit decision.
    Unbound,
    /// The artifact's own set changed: its approval is reset.
    Changed,
    /// An upstream artifact changed (or is blocked): the approval falls with it.
    Reset,
    /// The set cannot be fingerprinted (e.g. a linked material is missing).
    Blocked,
}

impl ApprovalState {
    /// The machine name, as serialized: `approved`, `unbound`, `changed`,
    /// `reset`, `blocked`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalState::Approved => "approved",
            ApprovalState::Unbound => "unbound",
            ApprovalState::Changed => "changed",
            ApprovalState::Reset => "reset",
            ApprovalState::Blocked => "blocked",
        }
    }
}

/// One artifact's row of the status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArtifactStatus {
    /// The artifact.
    pub artifact: String,
    /// Its state.
    pub state: ApprovalState,
    /// The fingerprint it was approved with.
    pub approved: Option<Fingerprint>,
    /// Its fingerprint now (`None` when blocked).
    pub current: Option<Fingerprint>,
    /// The changed or blocked upstream artifacts that reset it, nearest first
    /// in graph order (the root causes, not the artifacts in between).
    pub reset_by: Vec<String>,
    /// Why the set is blocked: `error[<code>]: <message>`.
    pub blocked: Option<String>,
    /// The binding, when there is one.
    pub binding: Option<Binding>,
}

/// The approval status of a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovalStatus {
    /// The change.
    pub change: String,
    /// The record the bindings came from (`None`: no state recorded yet).
    pub state_record: Option<RecordId>,
    /// One row per artifact, in topological order.
    pub artifacts: Vec<ArtifactStatus>,
}

impl ApprovalStatus {
    /// Whether every artifact is approved.
    pub fn all_approved(&self) -> bool {
        self.artifacts
            .iter()
            .all(|a| a.state == ApprovalState::Approved)
    }
}

/// Evaluates every artifact of `change` against the envelope's bindings, in
/// graph order. An artifact is reset when an upstream artifact changed or is
/// blocked now, or when an upstream fingerprint differs from the one recorded
/// in its binding (an upstream re-approved since does not restore it).
pub fn evaluate(change: &ChangeSet, envelope: &StateEnvelope) -> ApprovalStatus {
    let mut current: BTreeMap<&str, Fingerprint> = BTreeMap::new();
    // Root causes per artifact: the changed or blocked artifacts it stands on.
    let mut causes: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut artifacts = Vec::new();
    for artifact in change.graph.artifacts() {
        let binding = envelope.binding(&artifact.id).cloned();
        let mut reset_by: Vec<String> = Vec::new();
        for upstream in &artifact.requires {
            reset_by.extend(causes.get(upstream.as_str()).into_iter().flatten().cloned());
        }
        for (upstream, approved_on) in binding.iter().flat_map(|b| &b.upstream) {
            if current
                .get(upstream.as_str())
                .is_some_and(|now| now != approved_on)
            {
                reset_by.push(upstream.clone());
            }
        }
        reset_by.sort_by_key(|id| change.graph.artifacts().iter().position(|a| &a.id == id));
        reset_by.dedup();
        let (fingerprint, blocked) = match change.inventory(&artifact.id) {
            Ok(inventory) => (Some(inventory.fingerprint), None),
            Err(e) => (None, Some(format!("error[{}]: {e}", e.code()))),
        };
        let state = match (&binding, fingerprint) {
            _ if blocked.is_some() => ApprovalState::Blocked,
            (None, _) => ApprovalState::Unbound,
            (Some(b), Some(now)) if b.fingerprint != now => ApprovalState::Changed,
            _ if !reset_by.is_empty() => ApprovalState::Reset,
            _ => ApprovalState::Approved,
        };
        let own_causes = match state {
            ApprovalState::Changed | ApprovalState::Blocked => vec![artifact.id.clone()],
            _ => reset_by.clone(),
        };
        causes.insert(&artifact.id, own_causes);
        if let Some(fp) = fingerprint {
            current.insert(&artifact.id, fp);
        }
        artifacts.push(ArtifactStatus {
            artifact: artifact.id.clone(),
            state,
            approved: binding.as_ref().map(|b| b.fingerprint),
            current: fingerprint,
            reset_by,
            blocked,
            binding,
        });
    }
    ApprovalStatus {
        change: change.change.clone(),
        state_record: None,
        artifacts,
    }
}

/// The change's current state envelope and the record it came from; a change
/// with no recorded state (legacy or new) gets an empty envelope.
pub fn current_state(store: &Store, change: &str) -> Result<(Option<RecordId>, StateEnvelope)> {
    match store.head(&state_ref(change))? {
        None => Ok((None, StateEnvelope::new(change))),
        Some(id) => {
            let record = store.read_record::<StateEnvelope>(&id)?;
            Ok((Some(id), record.body))
        }
    }
}

/// The approval status of a change, from its recorded bindings.
pub fn status(store: &Store, change: &ChangeSet) -> Result<ApprovalStatus> {
    let (record, envelope) = current_state(store, &change.change)?;
    let mut status = evaluate(change, &envelope);
    status.state_record = record;
    Ok(status)
}

/// Binds `artifact`'s current fingerprint with the observed `source` of the
/// owner's decision, and advances the change's state pointer. Refused when the
/// set is blocked; a concurrent writer makes it fail with `pointer-conflict`.
pub fn approve(store: &Store, change: &ChangeSet, artifact: &str, source: &str) -> Result<Binding> {
    if source.trim().is_empty() {
        return Err(Error::MissingSource {
            artifact: artifact.to_owned(),
        });
    }
    let artifact = change.graph.artifact(artifact)?.id.clone();
    let fingerprint = change.inventory(&artifact)?.fingerprint;
    // A blocked upstream has no fingerprint to record; its own state shows it.
    let upstream = change
        .graph
        .upstream(&artifact)
        .into_iter()
        .filter_map(|id| Some((id.to_owned(), change.inventory(id).ok()?.fingerprint)))
        .collect();
    let (head, mut envelope) = current_state(store, &change.change)?;
    let binding = Binding {
        change: change.change.clone(),
        artifact,
        fingerprint,
        source: source.to_owned(),
        observed_at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        upstream,
    };
    envelope.bind(binding.clone());
    store.commit(
        &state_ref(&change.change),
        STATE_KIND,
        head.as_ref(),
        &envelope,
    )?;
    Ok(binding)
}
