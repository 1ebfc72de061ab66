//! The state envelope (docs/approvals.md, The state envelope; docs/lifecycle.md): the self-contained handoff a new session reads
//! to continue a change, stored in immutable records behind the change's pointer.

use std::collections::BTreeMap;

use camino::Utf8Path;
use serde::{Deserialize, Serialize};

use crate::expand::fingerprint::Fingerprint;
use crate::expand::inventory::Inventory;
use crate::openspec::graph::SchemaSource;
use crate::records::store::RecordId;

/// An observed approval: the owner's decision about one artifact, bound to the
/// fingerprint of its set. It records an observation (`source`), it does not
/// prove who decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Binding {
    /// The change the artifact belongs to.
    pub change: String,
    /// The artifact, e.g. `design`.
    pub artifact: String,
    /// The fingerprint of the artifact's approval set when it was approved.
    pub fingerprint: Fingerprint,
    /// Where the decision was observed, e.g. a message id. Free text.
    pub source: String,
    /// When it was observed (RFC 3339, UTC).
    pub observed_at: String,
    /// The fingerprints of every upstream artifact at approval time. The
    /// approval stands on them too: when one differs later (even after that
    /// upstream was re-approved), this approval is reset.
    #[serde(default)]
    pub upstream: BTreeMap<String, Fingerprint>,
    /// The approved set itself, so that a later status lists which files changed
    /// (absent from bindings written before ledger kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inventory: Option<Inventory>,
    /// The schema whose graph the approval was made with (docs/records.md). A
    /// binding written before ledger recorded it has none and reads as made
    /// with `spec-driven`, of unknown bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<SchemaSource>,
    /// The baseline specs the approved deltas change, as they were when the
    /// deltas were approved against them (`openspec/specs/<capability>/spec.md`
    /// of each `specs/<capability>/spec.md` of the set; a new capability's, not
    /// there yet, as missing). `None` for a set with no delta, and in a
    /// binding written before ledger bound baselines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baselines: Option<Inventory>,
}

impl Binding {
    /// The rule the approved set normalized its Tasks file under, when the
    /// binding recorded its inventory and the set has a Tasks file.
    pub fn task_rule(&self) -> Option<crate::tasks::rule::TaskRule> {
        let scope = &self.inventory.as_ref()?.scope;
        scope.tasks().first().map(|(_, rule)| *rule)
    }
}

/// The record that a change's state was retired on purpose (a mistyped name, an
/// abandoned change): its bindings end here, the records before stay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Retirement {
    /// Why, as the person retiring it said.
    pub reason: String,
    /// When (RFC 3339, UTC).
    pub observed_at: String,
}

/// A short observed check: what ran and what it showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Check {
    /// What was checked, e.g. `make test`.
    pub name: String,
    /// The observed result, e.g. `PASS (212 tests)`.
    pub result: String,
}

/// A validation's verdict (docs/lifecycle.md, Validation): `PASS` or `FAIL`.
/// Not an audit's verdict (docs/verdicts.md), which is a word of the
/// auditor's (`PASS_WITH_NOTES`, `BLOCKED`, …) and is a plain string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum ValidationVerdict {
    /// The change passed: its inventory is what finalization is checked against.
    #[serde(rename = "PASS")]
    Pass,
    /// The change failed validation: recorded as a finding, never finalized.
    #[serde(rename = "FAIL")]
    Fail,
}

impl ValidationVerdict {
    /// `PASS` or `FAIL`, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            ValidationVerdict::Pass => "PASS",
            ValidationVerdict::Fail => "FAIL",
        }
    }
}

impl std::str::FromStr for ValidationVerdict {
    type Err = crate::error::Error;

    /// Exactly `PASS` or `FAIL`.
    fn from_str(text: &str) -> crate::error::Result<Self> {
        match text {
            "PASS" => Ok(ValidationVerdict::Pass),
            "FAIL" => Ok(ValidationVerdict::Fail),
            _ => Err(crate::error::Error::InvalidArgument {
                message: format!(
                    "verdict {:?}: a verdict is PASS or FAIL",
                    crate::quote::escape(text.as_bytes())
                ),
            }),
        }
    }
}

/// A gate a validation relied on, and the evidence record it was fresh with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GateUse {
    /// The gate's name.
    pub gate: String,
    /// The record of its evidence at validation time (`None`: a FAIL verdict
    /// named a gate that never ran).
    pub record: Option<RecordId>,
}

/// The verdict of a validation, with the PASS inventory it was given for
/// (docs/records.md, The validation). Self-contained: a later check or a retry
/// of finalization needs no older record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Validation {
    /// The verdict.
    pub verdict: ValidationVerdict,
    /// The fingerprint of the validated inventory.
    pub fingerprint: Fingerprint,
    /// The validated inventory, so that a later step can compare without the
    /// chain of older records.
    pub inventory: Inventory,
    /// The gates the verdict relied on, with their evidence records.
    #[serde(default)]
    pub gates: Vec<GateUse>,
    /// Where the verdict was observed (a review id, a message). Free text.
    #[serde(default)]
    pub source: String,
    /// When it was observed (RFC 3339, UTC).
    #[serde(default)]
    pub observed_at: String,
    /// The change directory that was validated, relative to the workspace
    /// (its active location, e.g. `openspec/changes/add-auth`).
    #[serde(default)]
    pub directory: String,
    /// The directory of the baseline specs (`openspec/specs`).
    #[serde(default)]
    pub specs_root: String,
    /// The capabilities the change has delta specs for (`auth`, `api/tokens`).
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// Every baseline spec file at validation time (`openspec/specs/**`), not
    /// part of the verdict's fingerprint: finalization tells a spec sync into
    /// another capability from one that was there before by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specs_baseline: Option<Inventory>,
    /// The change's archive directories that existed at validation time (an
    /// earlier change of the same name): finalization looks for the archive move
    /// among the others only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub archives: Vec<String>,
    /// What the spec sync must leave in each touched baseline
    /// (docs/lifecycle.md, The spec sync). `None`: recorded by a ledger that
    /// did not keep it; finalization then calls every sync unverified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_sync: Option<Vec<crate::openspec::spec_sync::ExpectedSync>>,
    /// Why the change has no delivery files, when the verdict named no
    /// delivery root or path and declared so (docs/lifecycle.md, Delivery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_delivery: Option<String>,
    /// The commit `HEAD` named when the verdict was recorded, and whether the
    /// validated inventory was that commit's (`None`: no `HEAD` to observe, or
    /// recorded before ledger observed it). Whether the PASS stands never
    /// depends on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<crate::expand::ObservedHead>,
}

/// Everything a new session needs to continue a change, and nothing more:
/// requirements, design and tasks stay in their canonical files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct StateEnvelope {
    /// The change's identity.
    pub change: String,
    /// The current role, e.g. `implementation`.
    pub role: String,
    /// The current outcome, e.g. `tasks approved`.
    pub outcome: String,
    /// Repositories or areas the change touches.
    pub affected_areas: Vec<String>,
    /// Observed approvals, at most one per artifact.
    pub bindings: Vec<Binding>,
    /// Task ids completed.
    pub tasks_completed: Vec<String>,
    /// Task ids remaining.
    pub tasks_remaining: Vec<String>,
    /// Short observed checks.
    pub checks: Vec<Check>,
    /// What blocks progress.
    pub blockers: Vec<String>,
    /// The one next allowed outcome.
    pub next_outcome: Option<String>,
    /// After validation: its verdict, inventory and fingerprint.
    pub validation: Option<Validation>,
    /// Set when the change's state was retired (`None` for a live change).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retired: Option<Retirement>,
}

impl StateEnvelope {
    /// An empty envelope for `change`.
    pub fn new(change: &str) -> Self {
        StateEnvelope {
            change: change.to_owned(),
            ..StateEnvelope::default()
        }
    }

    /// The binding of `artifact`, if any.
    pub fn binding(&self, artifact: &str) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.artifact == artifact)
    }

    /// Records `binding`, replacing an earlier one of the same artifact.
    pub fn bind(&mut self, binding: Binding) {
        self.bindings.retain(|b| b.artifact != binding.artifact);
        self.bindings.push(binding);
    }

    /// This envelope as the store of `base` keeps it: every inventory it
    /// holds (the bindings', the validation's) with its workspace relative to
    /// `base`, the store's resolved workspace ([`Inventory::stored_in`]).
    pub fn stored_in(&self, base: &Utf8Path) -> StateEnvelope {
        let mut stored = self.clone();
        for inventory in stored.inventories_mut() {
            *inventory = inventory.stored_in(base);
        }
        stored
    }

    /// An envelope read from the store of `base`, every inventory taken in
    /// that workspace ([`Inventory::rerooted`]); an absolute one (written
    /// before host-free records) is kept. `base` is `None` for a store of no
    /// workspace, where only absolute workspaces read. The reason, for
    /// `malformed-record`, when a workspace is relative but not in normal form.
    pub fn rerooted(mut self, base: Option<&Utf8Path>) -> Result<StateEnvelope, String> {
        for inventory in self.inventories_mut() {
            *inventory = match base {
                Some(base) => inventory.clone().rerooted(base)?,
                None if inventory.scope.workspace().is_absolute() => continue,
                None => {
                    return Err("it holds a relative workspace, in a store of no workspace".into());
                }
            };
        }
        Ok(self)
    }

    /// Every inventory the envelope holds.
    fn inventories_mut(&mut self) -> impl Iterator<Item = &mut Inventory> {
        let bound = (self.bindings.iter_mut())
            .flat_map(|b| b.inventory.as_mut().into_iter().chain(b.baselines.as_mut()));
        let validated = self
            .validation
            .iter_mut()
            .flat_map(|v| std::iter::once(&mut v.inventory).chain(v.specs_baseline.as_mut()));
        bound.chain(validated)
    }
}
