//! The change lifecycle (docs/lifecycle.md): `advanceState`, `stateLog`,
//! `recordValidation`, `checkValidation` and `finalizeCheck`, each with its
//! `*Sync` twin; the CLI's `state set`, `state log`, `validate record`,
//! `validate check` and `finalize check`.

use std::collections::HashMap;

use camino::Utf8Path;
use ledger_core::{
    Check, CurrentState, GatePrerequisites, StatePatch, TaskIds, ValidationRequest, Verdict,
};
use napi::Env;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::approval::{ChangeOptions, WriteBasisOptions, started_from};
use crate::error::Failure;
use crate::evidence::{Prerequisite, prerequisites_of};
use crate::json::{Json, json};
use crate::task::{Work, block, spawn};

/// A short observed check: what ran and what it showed.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// What was checked, e.g. `make test`.
    pub name: String,
    /// The observed result, e.g. `PASS (212 tests)`.
    pub result: String,
}

/// What a handoff changes (`ledger state set`): only the fields given change;
/// the task ids are read from the tracked Tasks file unless `completed` or
/// `remaining` is given.
#[napi(object, object_to_js = false)]
#[derive(Debug, Clone, Default)]
pub struct StatePatchOptions {
    /// The current role (`--role`).
    pub role: Option<String>,
    /// The current outcome (`--outcome`).
    pub outcome: Option<String>,
    /// The affected areas; given, they replace the recorded ones (`--area`).
    pub areas: Option<Vec<String>>,
    /// Checks; each replaces the one of the same name (`--check`).
    pub checks: Option<Vec<CheckOptions>>,
    /// Blockers to add (`--blocker`).
    pub blockers: Option<Vec<String>>,
    /// Remove every blocker first (`--clear-blockers`).
    pub clear_blockers: Option<bool>,
    /// The one next allowed outcome (`--next`).
    pub next: Option<String>,
    /// Completed task ids; with `remaining`, replace the ids read from the file.
    pub completed: Option<Vec<String>>,
    /// Remaining task ids (see `completed`).
    pub remaining: Option<Vec<String>>,
}

impl StatePatchOptions {
    fn to_patch(&self) -> StatePatch {
        let tasks = match (&self.completed, &self.remaining) {
            (None, None) => TaskIds::FromTasksFile,
            (completed, remaining) => TaskIds::Given {
                completed: completed.clone().unwrap_or_default(),
                remaining: remaining.clone().unwrap_or_default(),
            },
        };
        StatePatch {
            role: self.role.clone(),
            outcome: self.outcome.clone(),
            areas: self.areas.clone(),
            checks: self
                .checks
                .iter()
                .flatten()
                .map(|c| Check {
                    name: c.name.clone(),
                    result: c.result.clone(),
                })
                .collect(),
            blockers: self.blockers.clone().unwrap_or_default(),
            clear_blockers: self.clear_blockers.unwrap_or(false),
            next: self.next.clone(),
            tasks,
        }
    }
}

/// Gate name → how to observe its prerequisites now, as `checkRecordedGate`
/// takes them (`--gate-env`, `--gate-env-cmd`).
pub type GatePrerequisiteOptions = HashMap<String, HashMap<String, Prerequisite>>;

fn gate_prerequisites(
    given: Option<&GatePrerequisiteOptions>,
) -> Result<GatePrerequisites, Failure> {
    given
        .into_iter()
        .flatten()
        .map(|(gate, prerequisites)| Ok((gate.clone(), prerequisites_of(Some(prerequisites))?)))
        .collect()
}

fn advance_state_impl(
    options: &ChangeOptions,
    patch: &StatePatchOptions,
    expected: Option<&str>,
) -> Result<Json, Failure> {
    let change = options.change_set()?;
    let expected = started_from(expected)?;
    let (record, state) = ledger_core::advance_state(
        &options.store(),
        &change,
        &patch.to_patch(),
        expected.as_ref(),
    )?;
    json(&CurrentState {
        record: Some(record),
        state,
    })
}

/// Advances the change's state envelope (the handoff, `ledger state set`): a
/// new record after `expected` (the record the caller started from; default:
/// the head as read now). Rejects with `pointer-conflict` when another writer
/// advanced it. Resolves to the new record and its envelope.
#[napi(ts_return_type = "Promise<CurrentState & { record: string }>")]
pub fn advance_state(
    options: ChangeOptions,
    patch: StatePatchOptions,
    expected: Option<String>,
) -> AsyncTask<Work<Json>> {
    spawn(move || advance_state_impl(&options, &patch, expected.as_deref()))
}

/// `advanceState`, blocking the JavaScript thread.
#[napi(ts_return_type = "CurrentState & { record: string }")]
pub fn advance_state_sync(
    env: Env,
    options: ChangeOptions,
    patch: StatePatchOptions,
    expected: Option<String>,
) -> napi::Result<Json> {
    block(&env, || {
        advance_state_impl(&options, &patch, expected.as_deref())
    })
}

fn state_log_impl(options: &ChangeOptions) -> Result<Json, Failure> {
    json(&ledger_core::state_log(&options.store(), &options.change)?)
}

/// The change's chain of state records, newest first, each with what it
/// changed (`ledger state log --json`).
#[napi(ts_return_type = "Promise<LogEntry[]>")]
pub fn state_log(options: ChangeOptions) -> AsyncTask<Work<Json>> {
    spawn(move || state_log_impl(&options))
}

/// `stateLog`, blocking the JavaScript thread.
#[napi(ts_return_type = "LogEntry[]")]
pub fn state_log_sync(env: Env, options: ChangeOptions) -> napi::Result<Json> {
    block(&env, || state_log_impl(&options))
}

/// A verdict to record (`ledger validate record`).
#[napi(object, object_to_js = false)]
#[derive(Debug)]
pub struct ValidationOptions {
    /// `PASS` or `FAIL` (`--verdict`).
    #[napi(ts_type = "Verdict")]
    pub verdict: String,
    /// Where the verdict was observed (`--source`).
    pub source: String,
    /// Git repositories at or below the workspace (`--repo`).
    pub repos: Option<Vec<String>>,
    /// Delivery roots (`--root`).
    pub roots: Option<Vec<String>>,
    /// Delivery paths (`--path`).
    pub paths: Option<Vec<String>>,
    /// Paths or directories left out of the delivery roots (`--exclude`).
    pub exclude: Option<Vec<String>>,
    /// Local unversioned instruction files (`--instructions`).
    pub instructions: Option<Vec<String>>,
    /// Gates the verdict relies on, fresh as `checkRecordedGate({ workspace, name })` (`--gate`).
    pub gates: Option<Vec<String>>,
    /// Phase records of the change, excluded from the PASS (`--phase-record`):
    /// each one regular file, now and at every check.
    pub phase_records: Option<Vec<String>>,
    /// Why the change has no delivery files (`--no-delivery`): a PASS naming
    /// no `roots` or `paths` rejects with `no-delivery` without it.
    pub no_delivery: Option<String>,
    /// How to observe each gate's prerequisites now, as `checkRecordedGate`
    /// takes them (`--gate-env`, `--gate-env-cmd`).
    #[napi(ts_type = "Record<string, Record<string, Prerequisite>>")]
    pub gate_prerequisites: Option<GatePrerequisiteOptions>,
    /// The PASS fingerprint the reviewer saw (`--reviewed`): `fingerprint-moved`.
    pub reviewed: Option<String>,
    /// The state record the write started from (`--expect`; `'none'`: no
    /// state): `pointer-conflict`.
    pub expected: Option<String>,
}

impl ValidationOptions {
    fn to_request(&self, workspace: &str) -> Result<ValidationRequest, Failure> {
        let verdict: Verdict = self.verdict.parse()?;
        let list = |l: &Option<Vec<String>>| l.clone().unwrap_or_default();
        let mut request = ValidationRequest::new(verdict, &self.source);
        request.repositories = list(&self.repos);
        request.roots = list(&self.roots);
        request.paths = list(&self.paths);
        request.exclusions = list(&self.exclude).into_iter().map(|p| (p, None)).collect();
        request.instructions = list(&self.instructions);
        request.phase_records = list(&self.phase_records);
        request.no_delivery.clone_from(&self.no_delivery);
        request.basis = WriteBasisOptions {
            reviewed: self.reviewed.clone(),
            expected: self.expected.clone(),
        }
        .to_core()?;
        let prerequisites = gate_prerequisites(self.gate_prerequisites.as_ref())?;
        request.gates_observing(Utf8Path::new(workspace), &list(&self.gates), &prerequisites)?;
        Ok(request)
    }
}

fn record_validation_impl(
    options: &ChangeOptions,
    validation: &ValidationOptions,
) -> Result<Json, Failure> {
    let change = options.change_set()?;
    let request = validation.to_request(&options.workspace)?;
    let (record, state) = ledger_core::record_validation(&options.store(), &change, &request)?;
    json(&CurrentState {
        record: Some(record),
        state,
    })
}

/// Records a verdict with its PASS inventory in the change's envelope
/// (`ledger validate record`). A PASS rejects with `validation-refused` unless
/// every artifact is approved and every gate named is fresh now.
#[napi(ts_return_type = "Promise<CurrentState & { record: string }>")]
pub fn record_validation(
    options: ChangeOptions,
    validation: ValidationOptions,
) -> AsyncTask<Work<Json>> {
    spawn(move || record_validation_impl(&options, &validation))
}

/// `recordValidation`, blocking the JavaScript thread.
#[napi(ts_return_type = "CurrentState & { record: string }")]
pub fn record_validation_sync(
    env: Env,
    options: ChangeOptions,
    validation: ValidationOptions,
) -> napi::Result<Json> {
    block(&env, || record_validation_impl(&options, &validation))
}

fn check_validation_impl(
    options: &ChangeOptions,
    prerequisites: Option<&GatePrerequisiteOptions>,
) -> Result<Json, Failure> {
    let change = options.change_set()?;
    let prerequisites = gate_prerequisites(prerequisites)?;
    json(&ledger_core::check_validation_with(
        &options.store(),
        &change,
        &prerequisites,
    )?)
}

/// Whether the recorded PASS still stands: its inventory re-expanded, its
/// gates checked, each one's prerequisites observed as `gatePrerequisites`
/// says (`ledger validate check --json`).
#[napi(ts_return_type = "Promise<ValidationCheck>")]
pub fn check_validation(
    options: ChangeOptions,
    #[napi(ts_arg_type = "Record<string, Record<string, Prerequisite>>")]
    gate_prerequisites: Option<GatePrerequisiteOptions>,
) -> AsyncTask<Work<Json>> {
    spawn(move || check_validation_impl(&options, gate_prerequisites.as_ref()))
}

/// `checkValidation`, blocking the JavaScript thread.
#[napi(ts_return_type = "ValidationCheck")]
pub fn check_validation_sync(
    env: Env,
    options: ChangeOptions,
    #[napi(ts_arg_type = "Record<string, Record<string, Prerequisite>>")]
    gate_prerequisites: Option<GatePrerequisiteOptions>,
) -> napi::Result<Json> {
    block(&env, || {
        check_validation_impl(&options, gate_prerequisites.as_ref())
    })
}

fn finalize_check_impl(options: &ChangeOptions, expect: &[String]) -> Result<Json, Failure> {
    let change = options.change_set()?;
    json(&ledger_core::finalize_check(
        &options.store(),
        &change,
        expect,
    )?)
}

/// Every difference from the PASS after the terminal mutations, by class
/// (`ledger finalize check --json`); `expect` names registry files.
#[napi(ts_return_type = "Promise<Finalization>")]
pub fn finalize_check(
    options: ChangeOptions,
    expect: Option<Vec<String>>,
) -> AsyncTask<Work<Json>> {
    spawn(move || finalize_check_impl(&options, &expect.unwrap_or_default()))
}

/// `finalizeCheck`, blocking the JavaScript thread.
#[napi(ts_return_type = "Finalization")]
pub fn finalize_check_sync(
    env: Env,
    options: ChangeOptions,
    expect: Option<Vec<String>>,
) -> napi::Result<Json> {
    block(&env, || {
        finalize_check_impl(&options, &expect.unwrap_or_default())
    })
}
