//! Deciding what a refused write left (docs/approvals.md, Deciding a
//! conflict): a write refused with `pointer-conflict` leaves its record as an
//! orphan, so that the conflict stays visible. An explicit decision ends it —
//! keep the orphan's content on top of what landed, or discard it, each with
//! a reason — and is itself a record, on the ref [`DECISIONS`]. Nothing is
//! deleted: a decided orphan stays in the store, and [`Store::check`] no longer
//! lists it.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::{RecordId, Store, StoredRecord};
use crate::error::{Error, Result};

/// The ref whose chain holds every decision about an orphan.
pub const DECISIONS: &str = "store/decisions";

/// The kind of a decision's record.
const DECISION_KIND: &str = "orphan-decision";

/// An orphan record as [`Store::check`] lists it: what the refused write was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Orphan {
    /// The record.
    pub id: RecordId,
    /// What its body is (`state`, `evidence`, ...).
    pub kind: String,
    /// The record it follows (`None`: it would have started its ref).
    pub follows: Option<RecordId>,
    /// The ref whose chain holds the record it follows: the ref the refused
    /// write was for (`None`: no ref's chain holds it).
    pub reference: Option<String>,
}

/// What is done with an orphan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OrphanChoice {
    /// Its content is recorded again on top of its ref's head: it replaces
    /// what landed meanwhile, as a new record after it.
    Keep,
    /// It is set aside; what landed stands.
    Discard,
}

/// A recorded decision about an orphan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OrphanDecision {
    /// The orphan decided.
    pub orphan: RecordId,
    /// Kept on top, or discarded.
    pub choice: OrphanChoice,
    /// The ref it was for (`None`: none is known).
    pub reference: Option<String>,
    /// For a kept orphan, the record that holds its content on the ref now.
    pub kept_as: Option<RecordId>,
    /// Why, in the decider's words.
    pub reason: String,
}

impl Store {
    /// Decides the orphan `orphan` (one [`Store::check`] lists): `Keep`
    /// records its kind and body again after its ref's head; `Discard` keeps
    /// nothing. Either way the decision, with `reason`, is appended to
    /// [`DECISIONS`], and the orphan is no longer listed. `invalid-argument`
    /// when `reason` is empty, when `orphan` is no undecided orphan, or when
    /// an orphan that follows no ref's record is to be kept (its ref is not
    /// known: write it again instead).
    pub fn decide_orphan(
        &self,
        orphan: &RecordId,
        choice: OrphanChoice,
        reason: &str,
    ) -> Result<OrphanDecision> {
        if reason.trim().is_empty() {
            return Err(Error::InvalidArgument {
                message: format!("deciding orphan {orphan} needs a reason"),
            });
        }
        let report = self.check()?;
        let Some(found) = report.orphans.iter().find(|o| o.id == *orphan) else {
            return Err(Error::InvalidArgument {
                message: format!(
                    "record {orphan} is no undecided orphan of this store: the store check lists them"
                ),
            });
        };
        let kept_as = match choice {
            OrphanChoice::Discard => None,
            OrphanChoice::Keep => Some(self.keep_on_top(found)?),
        };
        let decision = OrphanDecision {
            orphan: *orphan,
            choice,
            reference: found.reference.clone(),
            kept_as,
            reason: reason.to_owned(),
        };
        self.append(DECISIONS, DECISION_KIND, &decision)?;
        Ok(decision)
    }

    /// Records `orphan`'s kind and body after its ref's head.
    fn keep_on_top(&self, orphan: &Orphan) -> Result<RecordId> {
        let Some(reference) = &orphan.reference else {
            return Err(Error::InvalidArgument {
                message: format!(
                    "orphan {} follows no record of any ref, so its ref is not known: discard it and write again",
                    orphan.id
                ),
            });
        };
        let record: StoredRecord<serde_json::Value> = self.read_record(&orphan.id)?;
        let head = self.head(reference)?;
        self.commit(reference, &record.kind, head.as_ref(), &record.body)
    }

    /// Every orphan a recorded decision names.
    pub(super) fn decided_orphans(&self) -> Result<HashSet<RecordId>> {
        let mut decided = HashSet::new();
        for id in self.history(DECISIONS)? {
            let record: StoredRecord<OrphanDecision> =
                self.read_record_of_kind(&id, DECISION_KIND)?;
            decided.insert(record.body.orphan);
        }
        Ok(decided)
    }

    /// `ids` described: each record's kind, the record it follows, and the
    /// ref of `refs` (this store's own) whose chain holds that one. A check
    /// lists what it finds: a chain or record that cannot be read describes
    /// nothing.
    pub(super) fn described_orphans<'r>(
        &self,
        ids: Vec<RecordId>,
        refs: impl Iterator<Item = &'r str>,
    ) -> Vec<Orphan> {
        if ids.is_empty() {
            return Vec::new();
        }
        let chains: Vec<(&str, HashSet<RecordId>)> = refs
            .map(|name| {
                let chain = self.history(name).unwrap_or_default();
                (name, chain.into_iter().collect())
            })
            .collect();
        ids.into_iter()
            .map(|id| {
                let record = self.read_record::<serde::de::IgnoredAny>(&id).ok();
                let follows = record.as_ref().and_then(|r| r.previous);
                let reference = follows.and_then(|previous| {
                    let holds = chains.iter().find(|(_, chain)| chain.contains(&previous));
                    holds.map(|(name, _)| (*name).to_owned())
                });
                Orphan {
                    id,
                    kind: record.map(|r| r.kind).unwrap_or_default(),
                    follows,
                    reference,
                }
            })
            .collect()
    }
}
