//! Approvals of an OpenSpec change, bound to the fingerprints of their sets
//! (docs/approvals.md): `status`, `approve`, `currentState`, `changeInventory`.

use camino::Utf8Path;
use ledger_core::{ChangeSet, DEFAULT_CHANGES_ROOT, StartedFrom, Store, WriteBasis};
use napi::Env;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::error::Failure;
use crate::inventory::Inventory;
use crate::json::{Json, json};
use crate::task::{Warned, WarnedWork, Work, block, block_warned, spawn, spawn_warned};

/// Which change, where, and with which artifact graph (the CLI's `--change`,
/// `--workspace`, `--changes-root` and `--schema`).
#[napi(object)]
#[derive(Debug, Clone)]
pub struct ChangeOptions {
    /// The workspace directory; its store is `<workspace>/.ledger`.
    pub workspace: String,
    /// The change's name (its directory under the changes root).
    pub change: String,
    /// Where changes live, relative to the workspace; default `openspec/changes`.
    pub changes_root: Option<String>,
    /// The artifact schema: a name (`openspec/schemas/<name>/schema.yaml`, else
    /// built in) or a path to a `schema.yaml`; default: the change's
    /// `.openspec.yaml`, else `openspec/config.yaml`, else spec-driven.
    pub schema: Option<String>,
    /// The rule of the tracked Tasks file; default: the one the `tasks`
    /// approval recorded, else the schema's, else `openspec/config.yaml`'s,
    /// else `task-checkbox-v1` (`--task-rule`; `status` uses each binding's own).
    #[napi(ts_type = "TaskRule")]
    pub task_rule: Option<String>,
}

impl ChangeOptions {
    pub(crate) fn change_set(&self) -> Result<ChangeSet, Failure> {
        let root = self.changes_root.as_deref().unwrap_or(DEFAULT_CHANGES_ROOT);
        let rule = self
            .task_rule
            .as_deref()
            .map(crate::scope::parse_rule_name)
            .transpose()?;
        let change = ChangeSet::open(
            self.workspace.as_str(),
            &self.change,
            root,
            self.schema.as_deref(),
        )?
        .with_task_rule(rule);
        Ok(change)
    }

    pub(crate) fn store(&self) -> Store {
        Store::open(Utf8Path::new(&self.workspace))
    }
}

fn status_impl(options: &ChangeOptions) -> Result<Json, Failure> {
    let change = options.change_set()?;
    json(&ledger_core::status(&options.store(), &change)?)
}

/// Each artifact's approval: approved, unbound, changed (with the changed
/// paths), reset, blocked, archived or gone, with its cause (`ledger status --json`).
#[napi(ts_return_type = "Promise<ApprovalStatus>")]
pub fn status(options: ChangeOptions) -> AsyncTask<Work<Json>> {
    spawn(move || status_impl(&options))
}

/// `status`, blocking the JavaScript thread.
#[napi(ts_return_type = "ApprovalStatus")]
pub fn status_sync(env: Env, options: ChangeOptions) -> napi::Result<Json> {
    block(&env, || status_impl(&options))
}

fn approve_impl(
    options: &ChangeOptions,
    artifact: &str,
    source: &str,
    absent: Option<bool>,
    basis: Option<&WriteBasisOptions>,
) -> Result<Warned<Json>, Failure> {
    let change = options.change_set()?;
    let absence = absent.unwrap_or(false).into();
    let basis = basis.map(WriteBasisOptions::to_core).transpose()?;
    let binding = ledger_core::approve_with(
        &options.store(),
        &change,
        artifact,
        source,
        absence,
        &basis.unwrap_or_default(),
    )?;
    let warnings = change.task_rule_warnings(&binding);
    Ok(Warned {
        value: json(&binding)?,
        warnings: warnings.iter().map(ToString::to_string).collect(),
    })
}

/// What a write is based on (docs/approvals.md, What was reviewed).
#[napi(object, object_to_js = false)]
#[derive(Debug, Clone, Default)]
pub struct WriteBasisOptions {
    /// The fingerprint the reviewer saw (`--reviewed`): rejects with
    /// `fingerprint-moved`, naming the changed paths, when the set has another
    /// now.
    pub reviewed: Option<String>,
    /// The state record the write started from (`--expect`; `'none'`: no
    /// state was recorded): rejects with `pointer-conflict` when another
    /// writer advanced it. Default: the head as read now.
    pub expected: Option<String>,
}

impl WriteBasisOptions {
    /// The core's write basis, each part parsed by the core.
    pub(crate) fn to_core(&self) -> Result<WriteBasis, Failure> {
        Ok(WriteBasis {
            reviewed: self.reviewed.as_deref().map(str::parse).transpose()?,
            started_from: started_from(self.expected.as_deref())?,
        })
    }
}

/// `expected`: a record id, or `'none'` for no recorded state.
pub(crate) fn started_from(text: Option<&str>) -> Result<Option<StartedFrom>, Failure> {
    Ok(text.map(str::parse).transpose()?)
}

/// Binds `artifact`'s current fingerprint to the owner's decision observed at
/// `source` (a message id, a URL...), and advances the change's state pointer.
/// `absent: true` approves a set none of whose files exist (refused otherwise).
/// `basis` names what was reviewed and the record the write started from;
/// a mismatch records nothing. A Tasks file holding lines the other task rule
/// reads as tasks and the chosen one does not is approved with a process
/// warning (`LedgerWarning`, code `task-rule`; docs/approvals.md).
#[napi(ts_return_type = "Promise<Binding>")]
pub fn approve(
    options: ChangeOptions,
    artifact: String,
    source: String,
    absent: Option<bool>,
    basis: Option<WriteBasisOptions>,
) -> AsyncTask<WarnedWork<Json>> {
    spawn_warned(move || approve_impl(&options, &artifact, &source, absent, basis.as_ref()))
}

/// `approve`, blocking the JavaScript thread.
#[napi(ts_return_type = "Binding")]
pub fn approve_sync(
    env: Env,
    options: ChangeOptions,
    artifact: String,
    source: String,
    absent: Option<bool>,
    basis: Option<WriteBasisOptions>,
) -> napi::Result<Json> {
    block_warned(&env, || {
        approve_impl(&options, &artifact, &source, absent, basis.as_ref())
    })
}

fn retire_impl(
    options: &ChangeOptions,
    reason: &str,
    expected: Option<&str>,
) -> Result<String, Failure> {
    let from = started_from(expected)?;
    let record =
        ledger_core::retire_from(&options.store(), &options.change, reason, from.as_ref())?;
    Ok(record.to_string())
}

/// Retires a change's state (`ledger state retire`): a new record without
/// bindings that says why; the records before it stay. `expected` is the
/// record the caller started from (`pointer-conflict` when another writer
/// advanced it; default: the head as read now). Resolves to its id.
#[napi]
pub fn retire(
    options: ChangeOptions,
    reason: String,
    expected: Option<String>,
) -> AsyncTask<Work<String>> {
    spawn(move || retire_impl(&options, &reason, expected.as_deref()))
}

/// `retire`, blocking the JavaScript thread.
#[napi]
pub fn retire_sync(
    env: Env,
    options: ChangeOptions,
    reason: String,
    expected: Option<String>,
) -> napi::Result<String> {
    block(&env, || retire_impl(&options, &reason, expected.as_deref()))
}

fn current_state_impl(options: &ChangeOptions) -> Result<Json, Failure> {
    let state = ledger_core::current_state(&options.store(), &options.change)?;
    json(&ledger_core::CurrentState::from(state))
}

/// The state envelope a change's pointer names, and its record
/// (`ledger state show --change`); an empty envelope when none is recorded.
#[napi(ts_return_type = "Promise<CurrentState>")]
pub fn current_state(options: ChangeOptions) -> AsyncTask<Work<Json>> {
    spawn(move || current_state_impl(&options))
}

/// `currentState`, blocking the JavaScript thread.
#[napi(ts_return_type = "CurrentState")]
pub fn current_state_sync(env: Env, options: ChangeOptions) -> napi::Result<Json> {
    block(&env, || current_state_impl(&options))
}

fn change_inventory_impl(options: &ChangeOptions, artifact: &str) -> Result<Inventory, Failure> {
    Ok(options.change_set()?.inventory(artifact)?.into())
}

/// The approval set of one artifact of the change, expanded (for `design`:
/// `design.md` and the materials it links).
#[napi(ts_return_type = "Promise<Inventory>")]
pub fn change_inventory(options: ChangeOptions, artifact: String) -> AsyncTask<Work<Inventory>> {
    spawn(move || change_inventory_impl(&options, &artifact))
}

/// `changeInventory`, blocking the JavaScript thread.
#[napi]
pub fn change_inventory_sync(
    env: Env,
    options: ChangeOptions,
    artifact: String,
) -> napi::Result<Inventory> {
    block(&env, || change_inventory_impl(&options, &artifact))
}
