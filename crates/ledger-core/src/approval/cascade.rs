//! The approval cascade (docs/approvals.md): on recovery, each artifact is `approved`,
//! `unbound`, `changed` or `reset`, in topological order.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::SystemTime;

use serde::Serialize;

use crate::approval::baseline::{self, Standing};
use crate::approval::envelope::{Binding, Retirement, StateEnvelope};
use crate::approval::state::{commit_state, commit_state_or_rebase, current_state};
use crate::approval::write_basis::{WriteBasis, check_reviewed, state_from};
use crate::error::{Error, Result};
use crate::expand::fingerprint::{Fingerprint, fingerprint_sorted};
use crate::expand::inventory::Inventory;
use crate::openspec::change_set::{ChangeLocation, ChangeSet, SchemaChoice};
use crate::openspec::graph::Artifact;
use crate::openspec::graph::{DEFAULT_SCHEMA, SchemaSource};
use crate::quote::quote;
use crate::records::compare::{Change, Comparison};
use crate::records::store::StartedFrom;
use crate::records::store::{Provenance, RecordId, Store};

/// The state of one artifact's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    /// The change was archived and the approved files lie byte-identical in the
    /// archive directory: the approval held until the change was finished.
    Archived,
    /// The change's directory is gone (neither active nor archived).
    Gone,
    /// The change skips the artifact (`skip_specs: true` in its `.openspec.yaml`)
    /// and it has no files: there is nothing to approve.
    Skipped,
}

impl ApprovalState {
    /// The machine name, as serialized: `approved`, `unbound`, `changed`,
    /// `reset`, `blocked`, `archived`, `gone`, `skipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalState::Approved => "approved",
            ApprovalState::Unbound => "unbound",
            ApprovalState::Changed => "changed",
            ApprovalState::Reset => "reset",
            ApprovalState::Blocked => "blocked",
            ApprovalState::Archived => "archived",
            ApprovalState::Gone => "gone",
            ApprovalState::Skipped => "skipped",
        }
    }

    /// Whether the approval still stands: `approved`, `archived` intact, or
    /// `skipped` (nothing to approve).
    pub fn stands(self) -> bool {
        matches!(
            self,
            ApprovalState::Approved | ApprovalState::Archived | ApprovalState::Skipped
        )
    }
}

/// One artifact's row of the status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ArtifactStatus {
    /// The artifact.
    pub artifact: String,
    /// Its state.
    pub state: ApprovalState,
    /// The fingerprint it was approved with.
    pub approved: Option<Fingerprint>,
    /// Its fingerprint now (`None` when blocked or gone).
    pub current: Option<Fingerprint>,
    /// The changed or blocked upstream artifacts that reset it, nearest first
    /// in graph order (the root causes, not the artifacts in between), and the
    /// upstreams its binding recorded no fingerprint of.
    pub reset_by: Vec<String>,
    /// Why the set is blocked: `error[<code>]: <message>`.
    pub blocked: Option<String>,
    /// When `changed`: every path that differs from the approved set, by path
    /// (`None` when the binding predates stored inventories).
    pub changes: Option<Vec<Change>>,
    /// The binding, when there is one.
    pub binding: Option<Binding>,
    /// The baseline specs its deltas change that moved since they were
    /// approved against (`openspec/specs/<capability>/spec.md`): such an
    /// approval is `changed`, its moved baselines listed in `changes` too.
    pub baselines_moved: Vec<String>,
    /// Whether its deltas change baselines that its binding did not record:
    /// an approval made before ledger bound baselines reads as before, and
    /// says so here (approve again to bind them).
    pub baselines_unbound: bool,
}

/// Why a binding was made with another schema than the one a status uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum SchemaChangeReason {
    /// The same schema, but its file's bytes differ from the ones approved with.
    ContentChanged,
    /// Another schema (another name or file) than the one in use.
    OtherSchema,
    /// The schema in use is the one recorded, but the change now declares
    /// another (its `.openspec.yaml`, the project's `config.yaml`, or the
    /// default): OpenSpec would read the change with that one.
    Redeclared {
        /// The schema the change declares now.
        declared: String,
    },
}

impl SchemaChangeReason {
    /// The machine name: `content-changed`, `other-schema`, `redeclared`.
    pub fn code(&self) -> &'static str {
        match self {
            SchemaChangeReason::ContentChanged => "content-changed",
            SchemaChangeReason::OtherSchema => "other-schema",
            SchemaChangeReason::Redeclared { .. } => "redeclared",
        }
    }
}

/// A binding made with another schema, or another version of it, than the one
/// the status was evaluated with (docs/approvals.md, Schemas).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SchemaChange {
    /// The artifact whose binding it is.
    pub artifact: String,
    /// Why.
    #[serde(flatten)]
    pub reason: SchemaChangeReason,
    /// The schema the binding recorded (`None`: written before ledger recorded
    /// schemas; it reads as `spec-driven`).
    pub recorded: Option<SchemaSource>,
}

/// The approval status of a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ApprovalStatus {
    /// The change.
    pub change: String,
    /// Where its directory is: active, archived or missing.
    pub location: ChangeLocation,
    /// The record the bindings came from (`None`: no state recorded yet).
    pub state_record: Option<RecordId>,
    /// Where that record came from (this store, or a remote's fetched head)
    /// and who signed it. Approvals from elsewhere still bind content; a
    /// signer says who wrote the record, and proves no identity of the
    /// approver by itself (docs/sharing.md).
    pub provenance: Option<Provenance>,
    /// Set when the change's state was retired.
    pub retired: Option<Retirement>,
    /// The schema whose graph was evaluated.
    pub schema: Option<SchemaSource>,
    /// The bindings made with another schema or another version of it; empty
    /// when every binding was made with this one.
    pub schema_changed: Vec<SchemaChange>,
    /// One row per artifact, in topological order.
    pub artifacts: Vec<ArtifactStatus>,
}

impl ApprovalStatus {
    /// Whether every artifact's approval stands ([`ApprovalState::stands`]) and
    /// every binding was made with the schema in use.
    pub fn all_approved(&self) -> bool {
        self.artifacts.iter().all(|a| a.state.stands()) && self.schema_changed.is_empty()
    }
}

/// Evaluates every artifact of `change` against the envelope's bindings, in
/// graph order. An artifact is reset when an upstream artifact changed or is
/// blocked now, or when an upstream fingerprint differs from the one recorded
/// in its binding (an upstream re-approved since does not restore it), or its
/// binding recorded none for an upstream.
pub fn evaluate(change: &ChangeSet, envelope: &StateEnvelope) -> ApprovalStatus {
    let mut evaluation = Evaluation::default();
    let artifacts = change
        .graph
        .artifacts()
        .iter()
        .map(|artifact| evaluation.artifact(change, artifact, envelope))
        .collect();
    ApprovalStatus {
        change: change.change.clone(),
        location: change.location.clone(),
        state_record: None,
        provenance: None,
        retired: envelope.retired.clone(),
        schema: change.graph.schema().cloned(),
        schema_changed: schema_changes(change, envelope),
        artifacts,
    }
}

/// The schema a binding was made with; one written before ledger recorded it
/// reads as the built-in `spec-driven` (the only graph ledger had then), of
/// unknown bytes.
fn recorded_schema(binding: &Binding) -> SchemaSource {
    binding.schema.clone().unwrap_or_else(|| SchemaSource {
        name: Some(DEFAULT_SCHEMA.to_owned()),
        path: None,
        sha256: None,
    })
}

/// Every binding of `envelope` made with another schema (or other bytes of
/// it) than `change`'s graph, or, when the graph was not given but taken from
/// the recorded approvals, with another schema than the change declares now.
fn schema_changes(change: &ChangeSet, envelope: &StateEnvelope) -> Vec<SchemaChange> {
    let Some(used) = change.graph.schema() else {
        return Vec::new();
    };
    let declared = change.schema_choice.declared_name();
    let mut out = Vec::new();
    for binding in &envelope.bindings {
        let recorded = recorded_schema(binding);
        let reason = if !recorded.same_schema(used) {
            Some(SchemaChangeReason::OtherSchema)
        } else if recorded.sha256.is_some() && recorded.sha256 != used.sha256 {
            Some(SchemaChangeReason::ContentChanged)
        } else {
            declared
                .filter(|d| used.name.as_deref() != Some(*d))
                .map(|d| SchemaChangeReason::Redeclared {
                    declared: d.to_owned(),
                })
        };
        if let Some(reason) = reason {
            out.push(SchemaChange {
                artifact: binding.artifact.clone(),
                reason,
                recorded: binding.schema.clone(),
            });
        }
    }
    out
}

/// The change with the graph its recorded approvals were made with: when the
/// caller gave no schema and the latest binding recorded another one than the
/// change declares, that schema is resolved again (by name, or from its file).
pub fn with_recorded_schema<'c>(
    change: &'c ChangeSet,
    envelope: &StateEnvelope,
) -> Result<Cow<'c, ChangeSet>> {
    let latest = envelope.bindings.last().map(recorded_schema);
    match (&change.schema_choice, latest, change.graph.schema()) {
        (SchemaChoice::Given, _, _) | (_, None, _) => Ok(Cow::Borrowed(change)),
        (_, Some(recorded), Some(used)) if recorded.same_schema(used) => Ok(Cow::Borrowed(change)),
        (_, Some(recorded), _) => Ok(Cow::Owned(change.with_recorded_schema(&recorded)?)),
    }
}

/// What the artifacts evaluated so far pass on to their downstream.
#[derive(Default)]
struct Evaluation {
    /// The fingerprint each artifact stands for now: its current one, or, for an
    /// artifact archived intact, the one it was approved with.
    current: BTreeMap<String, Fingerprint>,
    /// Root causes per artifact: the changed or blocked artifacts it stands on.
    causes: BTreeMap<String, Vec<String>>,
}

impl Evaluation {
    fn artifact(
        &mut self,
        change: &ChangeSet,
        artifact: &Artifact,
        envelope: &StateEnvelope,
    ) -> ArtifactStatus {
        let binding = envelope.binding(&artifact.id).cloned();
        let reset_by = self.reset_by(change, artifact, binding.as_ref());
        let mut row = ArtifactStatus {
            artifact: artifact.id.clone(),
            state: ApprovalState::Unbound,
            approved: binding.as_ref().map(|b| b.fingerprint),
            current: None,
            reset_by,
            blocked: None,
            changes: None,
            binding,
            baselines_moved: Vec::new(),
            baselines_unbound: false,
        };
        if change.location == ChangeLocation::Missing {
            row.state = ApprovalState::Gone;
            self.causes
                .insert(artifact.id.clone(), vec![artifact.id.clone()]);
            return row;
        }
        // A bound set is expanded with the rule its binding recorded, so that
        // a later default or flag cannot turn ticked boxes into a change.
        let rule = row
            .binding
            .as_ref()
            .and_then(Binding::task_rule)
            .unwrap_or_else(|| change.task_rule());
        let now = match change.inventory_with(&artifact.id, rule) {
            Ok(inventory) => inventory,
            Err(e) => {
                row.state = ApprovalState::Blocked;
                row.blocked = Some(coded(&e));
                self.causes
                    .insert(artifact.id.clone(), vec![artifact.id.clone()]);
                return row;
            }
        };
        row.current = Some(now.fingerprint);
        let stands_for = self.judge(change, &mut row, &now);
        if let Err(e) = judge_baselines(change, &mut row, &now) {
            row.state = ApprovalState::Blocked;
            row.blocked = Some(coded(&e));
        }
        if row.state == ApprovalState::Unbound
            && change.skips(artifact)
            && now.entries.iter().all(|e| e.kind() == "missing")
        {
            row.state = ApprovalState::Skipped;
        }
        let own_causes = match row.state {
            ApprovalState::Changed => vec![artifact.id.clone()],
            _ => row.reset_by.clone(),
        };
        self.causes.insert(artifact.id.clone(), own_causes);
        self.current.insert(artifact.id.clone(), stands_for);
        row
    }

    /// Sets the state of a row whose set could be expanded (`now`); returns the
    /// fingerprint downstream bindings are compared with.
    fn judge(&self, change: &ChangeSet, row: &mut ArtifactStatus, now: &Inventory) -> Fingerprint {
        let Some(binding) = &row.binding else {
            row.state = ApprovalState::Unbound;
            return now.fingerprint;
        };
        // The approved set as it would read where the change is now: a
        // byte-identical archive move keeps every entry but the directory.
        let approved = binding.inventory.as_ref().and_then(|inventory| {
            relocated(inventory, &change.active_directory(), &change.directory())
        });
        let archived = matches!(change.location, ChangeLocation::Archived { .. });
        let intact = match &approved {
            Some(approved) => approved.fingerprint == now.fingerprint,
            None => !archived && binding.fingerprint == now.fingerprint,
        };
        row.state = match (intact, archived) {
            (false, _) => ApprovalState::Changed,
            (true, _) if !row.reset_by.is_empty() => ApprovalState::Reset,
            (true, true) => ApprovalState::Archived,
            (true, false) => ApprovalState::Approved,
        };
        if row.state == ApprovalState::Changed {
            row.changes = approved.map(|a| Comparison::between(&a, now).changes);
        }
        if intact {
            binding.fingerprint
        } else {
            now.fingerprint
        }
    }

    /// The upstream artifacts that reset `artifact`: root causes inherited from
    /// its direct requirements, upstreams whose fingerprint now differs from the
    /// one its binding recorded, and upstreams its binding recorded none of.
    fn reset_by(
        &self,
        change: &ChangeSet,
        artifact: &Artifact,
        binding: Option<&Binding>,
    ) -> Vec<String> {
        let mut reset_by: Vec<String> = Vec::new();
        for upstream in &artifact.requires {
            reset_by.extend(self.causes.get(upstream).into_iter().flatten().cloned());
        }
        if let Some(binding) = binding {
            let moved = |upstream: &str| match binding.upstream.get(upstream) {
                None => true,
                Some(approved_on) => self
                    .current
                    .get(upstream)
                    .is_some_and(|now| now != approved_on),
            };
            // The graph's upstreams now, and those the approval recorded standing
            // on: a schema that no longer links one must not hide its change.
            let graph_upstream = change.graph.upstream(&artifact.id);
            let recorded = binding.upstream.keys().map(String::as_str);
            for upstream in graph_upstream.iter().copied().chain(recorded) {
                if moved(upstream) {
                    reset_by.push(upstream.to_owned());
                }
            }
        }
        let order = |id: &String| change.graph.artifacts().iter().position(|a| &a.id == id);
        reset_by.sort_by_key(order);
        reset_by.dedup();
        reset_by
    }
}

/// Makes an approval that stands on its own files `changed` when a baseline
/// its deltas were approved against moved, and notes one whose binding did
/// not record them. An archived change is left alone: its archive applied
/// the deltas to the baselines, which move by design.
fn judge_baselines(change: &ChangeSet, row: &mut ArtifactStatus, now: &Inventory) -> Result<()> {
    let Some(binding) = &row.binding else {
        return Ok(());
    };
    let judged = matches!(row.state, ApprovalState::Approved | ApprovalState::Reset);
    if !judged || !matches!(change.location, ChangeLocation::Active { .. }) {
        return Ok(());
    }
    match baseline::standing(change, binding, now)? {
        Standing::NoDeltas | Standing::Unchanged => {}
        Standing::NotBound => row.baselines_unbound = true,
        Standing::Moved(moved) => {
            row.state = ApprovalState::Changed;
            row.baselines_moved = moved.iter().map(|c| c.path().to_owned()).collect();
            row.changes = Some(moved);
        }
    }
    Ok(())
}

/// `inventory` with every path below `from` moved below `to`, re-sorted and
/// fingerprinted; the inventory itself when the two are the same. `None` when
/// the moved paths cannot be encoded (then nothing can be said to be intact).
fn relocated(inventory: &Inventory, from: &str, to: &str) -> Option<Inventory> {
    if from == to {
        return Some(inventory.clone());
    }
    let mut moved = inventory.clone();
    for entry in &mut moved.entries {
        entry.path = entry.path.moved(from, to).ok()?;
    }
    moved.entries.sort_by(|a, b| a.path.cmp(&b.path));
    moved.fingerprint = fingerprint_sorted(&moved.entries).ok()?;
    Some(moved)
}

/// `error[<code>]: <message>`, the form a status row shows an error in.
fn coded(e: &Error) -> String {
    format!("error[{}]: {e}", e.code())
}

/// The approval status of a change, from its recorded bindings, evaluated with
/// the schema they were made with ([`with_recorded_schema`]). A change found
/// neither active nor archived is `unknown-change` unless state was recorded
/// for it (then every artifact is `gone`).
pub fn status(store: &Store, change: &ChangeSet) -> Result<ApprovalStatus> {
    crate::expand::opened_once(|| {
        let (record, envelope) = current_state(store, &change.change)?;
        if record.is_none() {
            change.require_present()?;
        }
        let change = with_recorded_schema(change, &envelope)?;
        let mut status = evaluate(&change, &envelope);
        if record.is_some() {
            status.provenance = store.provenance(&super::state::state_ref(&change.change))?;
        }
        status.state_record = record;
        Ok(status)
    })
}

/// Whether an approval may bind a set none of whose files exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Absence {
    /// Refuse it (`absent-artifact`): a missing file is usually a mistake.
    #[default]
    Refuse,
    /// Bind it: the owner decided that the artifact is absent on purpose.
    Approve,
}

impl From<bool> for Absence {
    /// The front doors' `--absent` / `absent=` flag.
    fn from(absent: bool) -> Absence {
        if absent {
            Absence::Approve
        } else {
            Absence::Refuse
        }
    }
}

/// Binds `artifact`'s current fingerprint with the observed `source` of the
/// owner's decision, and advances the change's state pointer.
///
/// Refused when the change is unknown (`unknown-change`) or archived, when the
/// set is blocked, when an upstream cannot be fingerprinted (`upstream-blocked`:
/// the binding must record what it stands on), and when none of the set's files
/// exist unless `absence` is [`Absence::Approve`] (`absent-artifact`). A
/// concurrent writer makes it fail with `pointer-conflict`.
pub fn approve(
    store: &Store,
    change: &ChangeSet,
    artifact: &str,
    source: &str,
    absence: Absence,
) -> Result<Binding> {
    approve_with(
        store,
        change,
        artifact,
        source,
        absence,
        &WriteBasis::default(),
    )
}

/// [`approve`] of what the reviewer saw (docs/approvals.md, What was
/// reviewed): refused with `fingerprint-moved`, naming the changed paths, when
/// `basis.reviewed` is not the set's fingerprint now, and with
/// `pointer-conflict` when the change's pointer does not name
/// `basis.started_from`. Either way no binding is recorded.
pub fn approve_with(
    store: &Store,
    change: &ChangeSet,
    artifact: &str,
    source: &str,
    absence: Absence,
    basis: &WriteBasis,
) -> Result<Binding> {
    if source.trim().is_empty() {
        return Err(Error::MissingSource {
            artifact: artifact.to_owned(),
        });
    }
    change.require_present()?;
    if let ChangeLocation::Archived { directory } = &change.location {
        return Err(Error::InvalidArgument {
            message: format!(
                "change {:?} is archived ({directory}); approvals are decisions about active changes",
                change.change
            ),
        });
    }
    let (head, mut envelope) = state_from(store, &change.change, basis.started_from.as_ref())?;
    let read = envelope.clone();
    let asked = change;
    let change = with_recorded_schema(change, &envelope)?;
    let artifact = change.graph.artifact(artifact)?;
    let inventory = change.inventory_with(&artifact.id, change.reading_task_rule(&envelope))?;
    check_reviewed(
        store,
        &change.change,
        &format!(
            "the approval of {} of change {}",
            quote(&artifact.id),
            quote(&change.change)
        ),
        basis.reviewed,
        &inventory,
        |e| {
            e.binding(&artifact.id)
                .and_then(|b| b.inventory.as_ref())
                .into_iter()
                .collect()
        },
    )?;
    let absent = inventory.entries.iter().all(|e| e.kind() == "missing");
    if absent && absence == Absence::Refuse {
        return Err(Error::AbsentArtifact {
            artifact: artifact.id.clone(),
            expected: format!("{}/{}", change.directory(), artifact.generates),
        });
    }
    let upstream = upstream_fingerprints(&change, &artifact.id)?;
    // Approving again takes a retired change up again.
    envelope.retired = None;
    let binding = Binding {
        change: change.change.clone(),
        artifact: artifact.id.clone(),
        fingerprint: inventory.fingerprint,
        source: source.to_owned(),
        observed_at: now(),
        upstream,
        baselines: baseline::baselines(&change, &inventory)?,
        inventory: Some(inventory),
        schema: change.graph.schema().cloned(),
    };
    envelope.bind(binding.clone());
    // A write that names no basis lands on top of what landed meanwhile,
    // unless that changed what this binding was computed from.
    let names_basis = basis.started_from.is_some() || basis.reviewed.is_some();
    let mut rebase = |mut landed: StateEnvelope| {
        let independent = !names_basis && computed_alike(asked, &read, &landed, &artifact.id);
        independent.then(|| {
            landed.retired = None;
            landed.bind(binding.clone());
            landed
        })
    };
    commit_state_or_rebase(store, &change.change, head.as_ref(), &envelope, &mut rebase)?;
    Ok(binding)
}

/// Whether an approval of `artifact` of the change as `asked` for, computed
/// from the state `read`, is the same observation on the state `landed`: the
/// artifact's own binding, the retirement, the schema the change is read with
/// (the one asked for, or the recorded approvals') and its task rule are the
/// same in both (the rest of an envelope is not read by an approval).
fn computed_alike(
    asked: &ChangeSet,
    read: &StateEnvelope,
    landed: &StateEnvelope,
    artifact: &str,
) -> bool {
    let (Ok(before), Ok(after)) = (
        with_recorded_schema(asked, read),
        with_recorded_schema(asked, landed),
    ) else {
        return false;
    };
    read.binding(artifact) == landed.binding(artifact)
        && read.retired == landed.retired
        && before.graph.schema() == after.graph.schema()
        && before.reading_task_rule(read) == after.reading_task_rule(landed)
}

/// What an approval returns: the binding recorded, and the warnings it gave
/// (a tool shows them with the result; the CLI prints them on stderr).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Approved {
    /// The binding recorded.
    #[serde(flatten)]
    pub binding: Binding,
    /// Advice about what was approved; empty when there is none.
    pub warnings: Vec<Warning>,
}

/// Advice given with a result that stands: a stable `code` and one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Warning {
    /// The stable code: `task-rule` (a Tasks file holding lines the other
    /// task rule reads as tasks, docs/approvals.md).
    pub code: &'static str,
    /// What the caller is told.
    pub message: String,
}

/// [`approve_with`], with the warnings the approval gives.
pub fn approve_advised(
    store: &Store,
    change: &ChangeSet,
    artifact: &str,
    source: &str,
    absence: Absence,
    basis: &WriteBasis,
) -> Result<Approved> {
    let binding = approve_with(store, change, artifact, source, absence, basis)?;
    let warnings = (change.task_rule_warnings(&binding).iter())
        .map(|warning| Warning {
            code: "task-rule",
            message: warning.to_string(),
        })
        .collect();
    Ok(Approved { binding, warnings })
}

/// The current fingerprint of every upstream of `artifact`; one that cannot be
/// fingerprinted refuses the approval.
fn upstream_fingerprints(
    change: &ChangeSet,
    artifact: &str,
) -> Result<BTreeMap<String, Fingerprint>> {
    change
        .graph
        .upstream(artifact)
        .into_iter()
        .map(|id| match change.inventory(id) {
            Ok(inventory) => Ok((id.to_owned(), inventory.fingerprint)),
            Err(e) => Err(Error::UpstreamBlocked {
                artifact: artifact.to_owned(),
                upstream: id.to_owned(),
                reason: coded(&e),
            }),
        })
        .collect()
}

/// Retires a change's state: a new record after the current head that keeps
/// the change's name and the `reason`, and no bindings, so that a mistyped or
/// abandoned change stops being reported. The records before it stay in the
/// store (append-only); approving the change again takes it up again.
/// Refused when no state is recorded for `change`.
pub fn retire(store: &Store, change: &str, reason: &str) -> Result<RecordId> {
    retire_from(store, change, reason, None)
}

/// [`retire`] after the record the writer started from (`None`: the head as
/// read now): `pointer-conflict` when another writer advanced the state.
pub fn retire_from(
    store: &Store,
    change: &str,
    reason: &str,
    started_from: Option<&StartedFrom>,
) -> Result<RecordId> {
    if reason.trim().is_empty() {
        return Err(Error::InvalidArgument {
            message: format!("retiring change {change:?} needs a reason"),
        });
    }
    let (head, _) = current_state(store, change)?;
    let Some(head) = head else {
        return Err(Error::InvalidArgument {
            message: format!("change {change:?} has no recorded state to retire"),
        });
    };
    // The write follows the record the writer started from: the pointer's
    // compare-and-swap refuses it when that is not the head.
    let base = started_from.map_or(Some(head), |from| from.record().copied());
    let mut envelope = StateEnvelope::new(change);
    envelope.retired = Some(Retirement {
        reason: reason.to_owned(),
        observed_at: now(),
    });
    commit_state(store, change, base.as_ref(), &envelope)
}

/// Now, as RFC 3339 UTC to the second.
fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}
