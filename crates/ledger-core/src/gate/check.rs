//! The reuse decision (docs/gates.md, The reuse decision, Reusing earlier
//! evidence): a gate's newest evidence judged for what is asked now and,
//! when it is stale, any earlier run that matches ([`super::reuse`]).

use super::evidence::{
    Evidence, Freshness, GateQuery, GateSpec, Observations, StaleReason, freshness_of, gate_ref,
    latest_evidence,
};
use super::reuse::earlier_fresh;
use crate::error::Result;
use crate::expand::inventory::Inventory;
use crate::expand::scope::Scope;
use crate::records::store::{RecordId, Store, why_unproven};

/// Decides whether the latest evidence of `spec.name()` can be reused for
/// `spec`: identical scope, command and prerequisites, a successful exit, and
/// identical inputs when re-expanded now. Every failing condition is reported.
pub fn check_gate(store: &Store, spec: &GateSpec) -> Result<Freshness> {
    check_gate_observed(store, spec, &spec.observe()?)
}

/// [`check_gate`] with the prerequisites already observed (so that a run records
/// exactly the values it was checked with).
pub fn check_gate_observed(
    store: &Store,
    spec: &GateSpec,
    observed: &Observations,
) -> Result<Freshness> {
    check_gate_against(store, spec, Some(observed), None)
}

/// [`check_gate_observed`], comparing the recorded inputs with `current` (the
/// requested scope, expanded just now) instead of expanding them again.
/// `observed` is `None` when the caller observed no prerequisite now: every
/// recorded one is then `prerequisite-unverified`.
///
/// The recorded scope is re-expanded only when it is the requested one: a
/// record naming another workspace is a mismatch, never a place to read.
pub(crate) fn check_gate_against(
    store: &Store,
    spec: &GateSpec,
    observed: Option<&Observations>,
    current: Option<&Inventory>,
) -> Result<Freshness> {
    let latest = latest_evidence(store, spec.name())?;
    let trust = untrusted(store, spec.name(), latest.as_ref())?;
    let newest = freshness_of(latest, trust, spec, observed, current)?;
    // Any earlier run that matches is reused as well (gate/reuse.rs); without
    // observed prerequisites none can match.
    let (false, Some(_), Some(observed)) = (newest.fresh, &newest.record, observed) else {
        return Ok(newest);
    };
    let expanded;
    let current = match current {
        Some(current) => current,
        None => match Inventory::expand(spec.scope()) {
            Ok(inventory) => {
                expanded = inventory;
                &expanded
            }
            // Inputs that cannot be fingerprinted match no run.
            Err(_) => return Ok(newest),
        },
    };
    Ok(earlier_fresh(store, spec, observed, current)?.unwrap_or(newest))
}

/// Why the latest evidence of `gate` cannot stand as proof on this machine
/// ([`why_unproven`]): `None` when this store wrote it or an allowed signer of
/// the store's signing settings signed it.
fn untrusted(
    store: &Store,
    gate: &str,
    latest: Option<&(RecordId, Evidence)>,
) -> Result<Option<String>> {
    let Some((judged, _)) = latest else {
        return Ok(None);
    };
    let seen = store.provenance(&gate_ref(gate))?;
    Ok(why_unproven(judged, seen.as_ref()))
}

/// Whether the latest evidence of `query.name` is fresh for what the caller
/// gives now (`ledger gate check`). Parts left out come from the evidence;
/// nothing read from the store is executed: left-out prerequisites are
/// reported `prerequisite-unverified`, a recorded scope of another workspace
/// than the caller's is `scope-differs` and is not expanded. Only the
/// prerequisite commands the caller passes in `query` run.
pub fn check_gate_query(query: &GateQuery) -> Result<Freshness> {
    let workspace = Scope::new(query.workspace.clone()).resolve()?.workspace;
    let store = match &query.scope {
        Some(scope) => {
            scope.check_within(&workspace)?;
            Store::of_scope(scope)?
        }
        None => Store::open(&workspace)?,
    };
    let store = store.with_settings(query.settings.clone());
    let latest = latest_evidence(&store, &query.name)?;
    let recorded = latest.as_ref().map(|(_, evidence)| &evidence.spec);
    let Some(spec) = query.spec(recorded, &workspace)? else {
        return Ok(Freshness::no_evidence(&query.name));
    };
    let observed = match &query.prerequisites {
        Some(_) => Some(spec.observe()?),
        None => None,
    };
    let trust = untrusted(&store, &query.name, latest.as_ref())?;
    let mut freshness = freshness_of(latest, trust, &spec, observed.as_ref(), None)?;
    if observed.is_some() && !query.unobserved.is_empty() {
        let recorded = freshness.evidence.as_ref().map(|e| &e.prerequisites);
        // What freshness_of took for dropped prerequisites are the unobserved ones.
        freshness.reasons.retain(|reason| {
            !matches!(reason, StaleReason::PrerequisiteChanged { name, now: None, .. }
                if query.unobserved.contains(name))
        });
        for name in &query.unobserved {
            freshness
                .reasons
                .push(match recorded.and_then(|r| r.get(name)) {
                    Some(value) => StaleReason::PrerequisiteUnverified {
                        name: name.clone(),
                        recorded: value.clone(),
                    },
                    None if recorded.is_some() => StaleReason::PrerequisiteChanged {
                        name: name.clone(),
                        recorded: None,
                        now: None,
                    },
                    None => continue,
                });
        }
        freshness.fresh = freshness.reasons.is_empty();
    }
    // Any earlier run that matches (gate/reuse.rs): the prerequisites are
    // known when observed now, or when the gate has none.
    let none = Observations::new();
    let known = match &observed {
        Some(observed) => Some(observed),
        None => spec.prerequisites().is_empty().then_some(&none),
    };
    match (freshness.fresh, known, query.unobserved.is_empty()) {
        (false, Some(observed), true) => match Inventory::expand(spec.scope()) {
            Ok(current) => {
                Ok(earlier_fresh(&store, &spec, observed, &current)?.unwrap_or(freshness))
            }
            Err(_) => Ok(freshness),
        },
        _ => Ok(freshness),
    }
}
