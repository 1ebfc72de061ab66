//! Resuming (docs/lifecycle.md, Resuming in one call): everything a session
//! that takes up a workspace must know, in one report with one verdict —
//! nothing to do, or the work listed. The seed's rule: one return code, and
//! red is work, not "done".
//!
//! Nothing here judges anew: each part is the verb that owns it —
//! [`status`] for approvals, [`check_validation_with`] for the PASS and the
//! gates it relied on, [`finalize_check`] for an archived change,
//! [`current_state`] for the envelope, [`ChangeSet::tasks_recorded_in`] for
//! the tasks, [`Store::check`] for the store, and for the workspace the gates
//! `ledger.toml` declares and the verdicts the store records
//! (`workspace_checks`). This module only gathers them and names the work
//! they show.
//!
//! The same request serves every stage of a change: what nothing checked at
//! this stage relies on (a gate's prerequisites before any verdict, or after
//! the archive) is noted, never refused.

use camino::Utf8PathBuf;
use serde::Serialize;

use crate::approval::cascade::{ApprovalState, ApprovalStatus, ArtifactStatus, status};
use crate::approval::change_tasks::ChangeTasks;
use crate::approval::envelope::ValidationVerdict;
use crate::approval::state::{CurrentState, changes, current_state};
use crate::error::Result;
use crate::lifecycle::finalize::{Finalization, finalize_check};
use crate::lifecycle::validation::{GatePrerequisites, ValidationCheck, check_validation_with};
use crate::lifecycle::work::{Note, Work, WorkKind};
use crate::lifecycle::workspace_checks::{
    DeclaredGateStanding, Observation, declared_gate_work, recorded_verdicts, verdict_work,
};
use crate::openspec::change_set::{ChangeLocation, ChangeSet, changes_on_disk};
use crate::quote::quote;
use crate::records::store::{RecordId, Store, StoreReport};
use crate::tasks::rule::TaskRule;
use crate::verdict::VerdictCheck;

/// Which changes a resume check reads, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeRequest {
    /// The workspace.
    pub workspace: Utf8PathBuf,
    /// Where changes live, relative to the workspace (`openspec/changes`).
    pub changes_root: String,
    /// The artifact schema for every change read (`None`: each change's own).
    pub schema: Option<String>,
    /// The rule of each tracked Tasks file (`None`: each change's own).
    pub task_rule: Option<TaskRule>,
    /// The one change to check (`None`: every active change on disk, and
    /// every change with live recorded state whose directory is gone).
    pub change: Option<String>,
    /// How to observe each gate's prerequisites now, by gate name, as a
    /// validation check takes them; for a gate `ledger.toml` declares they
    /// replace the declared ones of the same name. Prerequisites of a gate
    /// that nothing checked relies on are noted, not used.
    pub gate_prerequisites: GatePrerequisites,
    /// Whether the prerequisite commands `ledger.toml` declares (`env-cmd`)
    /// may be run to observe them. Only the caller can decide this, never a
    /// file of the checkout (SPEC §15); without it each stays unverified and
    /// a note says so.
    pub allow_env_cmd: bool,
}

impl ResumeRequest {
    /// Every change of `workspace` under the default changes root, each with
    /// its own schema and rule, no prerequisite observed.
    pub fn new(workspace: impl Into<Utf8PathBuf>) -> Self {
        ResumeRequest {
            workspace: workspace.into(),
            changes_root: crate::openspec::change_set::DEFAULT_CHANGES_ROOT.to_owned(),
            schema: None,
            task_rule: None,
            change: None,
            gate_prerequisites: GatePrerequisites::new(),
            allow_env_cmd: false,
        }
    }

    /// The change `change`, with the settings of `store`'s workspace.
    fn open(&self, change: &str, store: &Store) -> Result<ChangeSet> {
        Ok(ChangeSet::open(
            self.workspace.clone(),
            change,
            &self.changes_root,
            self.schema.as_deref(),
        )?
        .with_task_rule(self.task_rule)
        .with_settings(store.settings().clone()))
    }
}

/// One change as a resuming session finds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ChangeResume {
    /// The change.
    pub change: String,
    /// Where its directory is now.
    pub location: ChangeLocation,
    /// Its approvals, each with its cause (`status`).
    pub approvals: ApprovalStatus,
    /// Its recorded verdict checked now, with every gate it relied on, fresh
    /// or stale and why (`None`: no verdict recorded, or the change is archived).
    pub validation: Option<ValidationCheck>,
    /// For an archived change with a PASS: its finalization checked now, with
    /// no registry paths named.
    pub finalization: Option<Finalization>,
    /// Its state envelope: role, outcome, tasks, checks, blockers, next outcome.
    pub state: CurrentState,
    /// The next step now: the envelope's next outcome while the change is
    /// active (or its files are gone); once it is archived, the archive came
    /// after whatever the envelope named, so `finalization` while its
    /// finalization does not check out, else none: the change is done.
    pub next: Option<String>,
    /// Its tracked Tasks file read now (`None`: the change's directory is gone).
    pub tasks: Option<ChangeTasks>,
    /// What is left to do for this change, in order; empty: nothing.
    pub work: Vec<Work>,
}

/// Everything a resuming session must know (`ledger check --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Resume {
    /// Each change checked.
    pub changes: Vec<ChangeResume>,
    /// Each gate `ledger.toml` declares, checked now (none: no such file).
    pub declared_gates: Vec<DeclaredGateStanding>,
    /// Each verdict the store records, checked now.
    pub verdicts: Vec<VerdictCheck>,
    /// The store's health.
    pub store: StoreReport,
    /// Every work item, in order: each change's (naming its change), then
    /// the declared gates', the verdicts' and the store's.
    pub work: Vec<Work>,
    /// What the check did not use or could not observe; never work.
    pub notes: Vec<Note>,
    /// Whether `work` is empty: exit 0.
    pub nothing_to_do: bool,
}

/// Checks the workspace for a resuming session (docs/lifecycle.md, Resuming
/// in one call): each change the request names, each part by the verb that
/// owns it, and the store. A named change found neither on disk nor in the
/// store is `unknown-change`.
pub fn resume_check(store: &Store, request: &ResumeRequest) -> Result<Resume> {
    crate::expand::opened_once(|| {
        let names = match &request.change {
            Some(change) => vec![change.clone()],
            None => default_changes(store, request)?,
        };
        let mut observation = Observation::read(
            &request.workspace,
            store.settings(),
            &request.gate_prerequisites,
            request.allow_env_cmd,
        )?;
        let mut checked = Vec::new();
        for name in &names {
            let change = request.open(name, store)?;
            let state = CurrentState::from(current_state(store, name)?);
            if change.location == ChangeLocation::Missing && state.record.is_none() {
                change.require_present()?;
            }
            checked.push(change_resume(store, &change, state, &mut observation)?);
        }
        let declared_gates = observation.declared_gates()?;
        let verdicts = recorded_verdicts(store)?;
        let report = store.check()?;
        let mut work: Vec<Work> = checked.iter().flat_map(|c| c.work.clone()).collect();
        work.extend(declared_gates.iter().filter_map(declared_gate_work));
        work.extend(verdicts.iter().filter_map(verdict_work));
        if !report.is_clean() {
            let locks = match report.locks.len() {
                0 => String::new(),
                n => format!(
                    " ({n} ref lock file{} left behind, each blocking every write of its ref)",
                    if n == 1 { "" } else { "s" }
                ),
            };
            work.push(Work::new(
                WorkKind::Store,
                format!("the record store has problems{locks}: check the store and resolve them"),
            ));
        }
        Ok(Resume {
            changes: checked,
            declared_gates,
            verdicts,
            store: report,
            nothing_to_do: work.is_empty(),
            work,
            notes: observation.notes(),
        })
    })
}

/// Every active change on disk, and every change with live recorded state
/// whose directory is gone, sorted.
fn default_changes(store: &Store, request: &ResumeRequest) -> Result<Vec<String>> {
    let mut names: Vec<String> = changes_on_disk(&request.workspace, &request.changes_root)?
        .into_iter()
        .filter(|(_, location)| matches!(location, ChangeLocation::Active { .. }))
        .map(|(name, _)| name)
        .collect();
    for recorded in changes(store)? {
        if names.contains(&recorded) {
            continue;
        }
        let change = request.open(&recorded, store)?;
        let live = current_state(store, &recorded)?.1.retired.is_none();
        if live && change.location == ChangeLocation::Missing {
            names.push(recorded);
        }
    }
    names.sort();
    Ok(names)
}

fn change_resume(
    store: &Store,
    change: &ChangeSet,
    state: CurrentState,
    observation: &mut Observation,
) -> Result<ChangeResume> {
    let approvals = status(store, change)?;
    let mut work = Vec::new();
    for row in &approvals.artifacts {
        if let Some(message) = approval_work(row) {
            work.push(Work::about(WorkKind::Approval, &row.artifact, message));
        }
    }
    for changed in &approvals.schema_changed {
        work.push(Work::about(
            WorkKind::SchemaChanged,
            &changed.artifact,
            format!(
                "artifact {} was approved with another schema ({}): approve it again",
                quote(&changed.artifact),
                changed.reason.code()
            ),
        ));
    }
    let tasks = match change.location {
        ChangeLocation::Missing => None,
        _ => Some(change.tasks_recorded_in(&state.state)?),
    };
    if let Some(tasks) = &tasks
        && tasks.tasks.done < tasks.tasks.total
    {
        let left: Vec<String> = (tasks.tasks.tasks.iter())
            .filter(|t| !t.done)
            .map(|t| match &t.id {
                Some(id) => quote(id).into_owned(),
                None => format!("line {}", t.line),
            })
            .collect();
        work.push(Work::new(
            WorkKind::TasksLeft,
            format!(
                "{} of {} tasks left in {}: {}",
                tasks.tasks.total - tasks.tasks.done,
                tasks.tasks.total,
                quote(tasks.path.as_str()),
                left.join(", ")
            ),
        ));
    }
    for blocker in &state.state.blockers {
        work.push(Work::new(
            WorkKind::Blocker,
            format!("blocked: {}", quote(blocker)),
        ));
    }
    let mut validation = None;
    let mut finalization = None;
    let verdict = state.state.validation.as_ref();
    match (&change.location, verdict) {
        (ChangeLocation::Missing, _) => {
            if state.state.retired.is_none() {
                work.push(Work::new(
                    WorkKind::Gone,
                    format!(
                        "change {} has live recorded state but its files are gone (neither active nor archived): restore them or retire its state",
                        quote(&change.change)
                    ),
                ));
            }
        }
        (ChangeLocation::Active { .. }, None) => work.push(Work::new(
            WorkKind::NotValidated,
            "no verdict is recorded: record a validation when the change is done".to_owned(),
        )),
        (ChangeLocation::Active { .. }, Some(recorded)) => {
            let mut own = GatePrerequisites::new();
            for gate in &recorded.gates {
                if let Some(observe) = observation.for_pass_gate(&gate.gate) {
                    own.insert(gate.gate.clone(), observe);
                }
            }
            let check = check_validation_with(store, change, &own)?;
            work.extend(validation_work(&check));
            validation = Some(check);
        }
        (ChangeLocation::Archived { .. }, Some(recorded))
            if recorded.verdict == ValidationVerdict::Pass =>
        {
            let checked = finalize_check(store, change, &[])?;
            if !checked.clean {
                work.push(Work::new(
                    WorkKind::Finalization,
                    format!(
                        "the finalization does not check out: {} new changes, {} spec mismatches, {} unverified syncs",
                        checked.new_changes.len(),
                        checked.spec_mismatches.len(),
                        checked.sync_unverified.len()
                    ),
                ));
            }
            finalization = Some(checked);
        }
        (ChangeLocation::Archived { .. }, Some(_)) => work.push(Work::new(
            WorkKind::VerdictFail,
            "the change was archived after a FAIL verdict".to_owned(),
        )),
        (ChangeLocation::Archived { .. }, None) => {}
    }
    if work.is_empty() && matches!(change.location, ChangeLocation::Active { .. }) {
        work.push(Work::new(
            WorkKind::Archive,
            "the PASS stands and nothing else is open: archive the change, then check its finalization".to_owned(),
        ));
    }
    Ok(ChangeResume {
        change: change.change.clone(),
        location: change.location.clone(),
        approvals,
        validation,
        next: next_step(&change.location, &state, finalization.as_ref()),
        finalization,
        state,
        tasks,
        work: work.into_iter().map(|w| w.of(&change.change)).collect(),
    })
}

/// The next step of a change now (see [`ChangeResume::next`]).
fn next_step(
    location: &ChangeLocation,
    state: &CurrentState,
    finalization: Option<&Finalization>,
) -> Option<String> {
    match location {
        ChangeLocation::Archived { .. } => finalization
            .filter(|f| !f.clean)
            .map(|_| "finalization".to_owned()),
        _ => state.state.next_outcome.clone(),
    }
}

/// The work an artifact's approval shows, `None` when it stands (a change
/// whose files are gone is one item of its own, not one per artifact).
fn approval_work(row: &ArtifactStatus) -> Option<String> {
    let artifact = quote(&row.artifact);
    let why = match row.state {
        ApprovalState::Approved
        | ApprovalState::Archived
        | ApprovalState::Skipped
        | ApprovalState::Gone => return None,
        ApprovalState::Unbound => "is not approved: it needs an explicit decision".to_owned(),
        ApprovalState::Changed if !row.baselines_moved.is_empty() => format!(
            "changed: baseline moved since approval: {}; review the deltas against it and approve it again",
            (row.baselines_moved.iter())
                .map(|p| quote(p).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ApprovalState::Changed => {
            let paths: Vec<String> = (row.changes.iter().flatten())
                .map(|c| quote(c.path()).into_owned())
                .collect();
            match paths.is_empty() {
                true => "changed since its approval: review and approve it again".to_owned(),
                false => format!(
                    "changed since its approval ({}): review and approve it again",
                    paths.join(", ")
                ),
            }
        }
        ApprovalState::Reset => format!(
            "is reset: upstream {} changed; approve it again",
            (row.reset_by.iter())
                .map(|a| quote(a).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ApprovalState::Blocked => format!(
            "is blocked: {}",
            quote(
                row.blocked
                    .as_deref()
                    .unwrap_or("an upstream cannot be fingerprinted")
            )
        ),
    };
    Some(format!("artifact {artifact} {why}"))
}

/// The work a checked verdict shows: a FAIL, a moved inventory, each stale
/// gate, each phase record that is not one file.
fn validation_work(check: &ValidationCheck) -> Vec<Work> {
    let mut work = Vec::new();
    if check.verdict == ValidationVerdict::Fail {
        work.push(Work::new(
            WorkKind::VerdictFail,
            "the recorded verdict is FAIL: address its findings and record a new verdict"
                .to_owned(),
        ));
    }
    if !check.comparison.matches {
        let paths: Vec<String> = (check.comparison.changes.iter())
            .map(|c| quote(c.path()).into_owned())
            .collect();
        work.push(Work::new(
            WorkKind::PassChanged,
            format!(
                "the {} inventory changed since the verdict ({}): validate again",
                check.verdict.as_str(),
                paths.join(", ")
            ),
        ));
    }
    for gate in &check.gates {
        let why = if !gate.fresh {
            (gate.reasons.iter())
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        } else if gate.rerun {
            "it ran again since the verdict, on other evidence".to_owned()
        } else {
            continue;
        };
        work.push(Work::about(
            WorkKind::GateStale,
            &gate.gate,
            format!("gate {} is stale: {why}", quote(&gate.gate)),
        ));
    }
    for record in check.phase_records.iter().filter(|r| !r.stands()) {
        work.push(Work::about(
            WorkKind::PhaseRecord,
            &record.path,
            format!(
                "phase record {} is not one regular file",
                quote(&record.path)
            ),
        ));
    }
    work
}

/// How many tasks a Tasks file has and how many are done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TaskCount {
    /// Done tasks.
    pub done: usize,
    /// All tasks.
    pub total: usize,
}

/// One change of the workspace and its state in brief (`ledger changes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ChangeSummary {
    /// The change.
    pub change: String,
    /// Where its directory is: active, archived, or missing (recorded state
    /// whose files are gone).
    pub location: ChangeLocation,
    /// The record its state pointer names (`None`: no state recorded).
    pub state_record: Option<RecordId>,
    /// Whether its state was retired.
    pub retired: bool,
    /// How many artifacts' approvals stand now.
    pub approved: usize,
    /// How many artifacts its schema has.
    pub artifacts: usize,
    /// Its Tasks file's progress now (`None`: its directory is gone).
    pub tasks: Option<TaskCount>,
    /// The verdict its envelope records, not checked again (`ledger check`
    /// checks it).
    pub verdict: Option<ValidationVerdict>,
    /// The one next allowed outcome the envelope records, while the change
    /// is active (or its files are gone). `None` once it is archived: the
    /// archive came after whatever the envelope named, and what is left is
    /// its finalization, which `check` checks.
    pub next_outcome: Option<String>,
}

/// Every change of the workspace, active and archived on disk, and every
/// change with recorded state whose files are gone, sorted by name, each in
/// brief: where it is, its approvals, its tasks, its recorded verdict.
pub fn list_changes(store: &Store, request: &ResumeRequest) -> Result<Vec<ChangeSummary>> {
    crate::expand::opened_once(|| {
        let mut found = changes_on_disk(&request.workspace, &request.changes_root)?;
        for recorded in changes(store)? {
            if !found.iter().any(|(name, _)| *name == recorded) {
                found.push((recorded, ChangeLocation::Missing));
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Vec::new();
        for (name, _) in found {
            let change = request.open(&name, store)?;
            let (record, envelope) = current_state(store, &name)?;
            let approvals = status(store, &change)?;
            let tasks = match change.location {
                ChangeLocation::Missing => None,
                _ => {
                    let read = change.tasks_recorded_in(&envelope)?;
                    Some(TaskCount {
                        done: read.tasks.done,
                        total: read.tasks.total,
                    })
                }
            };
            out.push(ChangeSummary {
                change: name,
                location: change.location.clone(),
                state_record: record,
                retired: envelope.retired.is_some(),
                approved: (approvals.artifacts.iter())
                    .filter(|a| a.state.stands())
                    .count(),
                artifacts: approvals.artifacts.len(),
                tasks,
                verdict: envelope.validation.as_ref().map(|v| v.verdict),
                next_outcome: match change.location {
                    ChangeLocation::Archived { .. } => None,
                    _ => envelope.next_outcome.clone(),
                },
            });
        }
        Ok(out)
    })
}
