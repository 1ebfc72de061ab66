//! Gate evidence: a gate's definition and whether its latest evidence can be
//! reused (docs/gates.md): `checkGate`, `latestEvidence`.

use camino::Utf8Path;
use std::collections::{BTreeMap, HashMap};

use ledger_core::{Error, Observe, Store};
use napi::Env;
use napi::bindgen_prelude::{AsyncTask, Buffer, Utf16String};
use napi_derive::napi;

use crate::error::Failure;
use crate::json::{Json, json};
use crate::scope::ScopeOptions;
use crate::task::{Work, block, spawn};

/// A gate: what it runs, where, on which inputs, and which environment
/// prerequisites its result depends on. Text is taken exactly: a string with
/// a lone surrogate is `non-utf8-value`, never a value with U+FFFD in it.
#[napi(object, object_to_js = false)]
#[derive(Debug)]
pub struct GateSpec {
    /// The gate's name, e.g. `test`.
    pub name: String,
    /// The exact command.
    pub argv: Vec<Utf16String>,
    /// The working directory, relative to the workspace, normalized (`sub/`,
    /// `./sub` and `sub` are one directory); default `.`.
    pub cwd: Option<Utf16String>,
    /// The inputs.
    pub scope: ScopeOptions,
    /// Prerequisite name → how its value is observed.
    pub prerequisites: Option<HashMap<String, Prerequisite>>,
}

/// How a prerequisite's value is observed: exactly one of the three.
#[napi(object, object_to_js = false)]
#[derive(Debug)]
pub struct Prerequisite {
    /// The value as given (`--env NAME=VALUE`).
    pub literal: Option<Utf16String>,
    /// The value of this environment variable; `null` in evidence when unset (`--env NAME`).
    pub environment: Option<Utf16String>,
    /// The stdout of this shell command, trimmed of ASCII whitespace (`--env-cmd NAME=COMMAND`).
    pub command: Option<Utf16String>,
}

/// A JavaScript string as exact UTF-8 text; one with a lone surrogate cannot
/// be recorded byte-exactly and is refused, the surrogate shown as `\u{D800}`.
fn exact(text: &Utf16String, what: impl FnOnce() -> String) -> Result<String, Failure> {
    String::from_utf16(text).map_err(|_| {
        let value = char::decode_utf16(text.iter().copied())
            .map(|c| {
                c.map_or_else(
                    |e| format!("\\u{{{:X}}}", e.unpaired_surrogate()),
                    String::from,
                )
            })
            .collect();
        Failure::Core(Error::NonUtf8Value {
            what: what(),
            value,
        })
    })
}

impl Prerequisite {
    fn to_core(&self, name: &str) -> Result<Observe, Failure> {
        let text = |t: &Utf16String| exact(t, || format!("prerequisite {name}"));
        match (&self.literal, &self.environment, &self.command) {
            (Some(v), None, None) => Ok(Observe::Literal(text(v)?)),
            (None, Some(v), None) => Ok(Observe::Environment(text(v)?)),
            (None, None, Some(v)) => Ok(Observe::Command(text(v)?)),
            _ => Err(Failure::Core(Error::InvalidArgument {
                message: format!(
                    "prerequisite {name:?} needs exactly one of literal, environment, command"
                ),
            })),
        }
    }
}

/// The prerequisites as the core observes them.
pub(crate) fn prerequisites_of(
    prerequisites: Option<&HashMap<String, Prerequisite>>,
) -> Result<BTreeMap<String, Observe>, Failure> {
    prerequisites
        .into_iter()
        .flatten()
        .map(|(name, how)| Ok((name.clone(), how.to_core(name)?)))
        .collect()
}

/// The argv as exact text.
fn argv_of(argv: &[Utf16String], gate: &str) -> Result<Vec<String>, Failure> {
    argv.iter()
        .map(|a| exact(a, || format!("an argument of gate {gate}")))
        .collect()
}

impl GateSpec {
    /// The core's gate spec, validated by the core (`GateSpec::new`).
    pub fn to_core(&self) -> Result<ledger_core::GateSpec, Failure> {
        let prerequisites = prerequisites_of(self.prerequisites.as_ref())?;
        let argv = argv_of(&self.argv, &self.name)?;
        let cwd = match &self.cwd {
            Some(cwd) => exact(cwd, || format!("the cwd of gate {}", self.name))?,
            None => ".".to_owned(),
        };
        let scope = self.scope.to_scope()?;
        Ok(ledger_core::GateSpec::new(
            &self.name,
            argv,
            &cwd,
            scope,
            prerequisites,
        )?)
    }
}

/// The store of a gate: the one of its resolved workspace, as the CLI does.
pub fn store_of(spec: &ledger_core::GateSpec) -> Result<Store, Failure> {
    Ok(Store::of_scope(spec.scope())?)
}

fn check_gate_impl(spec: &GateSpec) -> Result<Json, Failure> {
    let spec = spec.to_core()?;
    json(&ledger_core::check_gate(&store_of(&spec)?, &spec)?)
}

/// Whether the gate's latest evidence can be reused: fresh, or stale with
/// every reason. Runs nothing but the prerequisite commands of `spec` — so
/// pass a spec you built, not one read from evidence: `checkRecordedGate`
/// fills a check from the evidence without running any of it.
#[napi(ts_return_type = "Promise<Freshness>")]
pub fn check_gate(spec: GateSpec) -> AsyncTask<Work<Json>> {
    spawn(move || check_gate_impl(&spec))
}

/// `checkGate`, blocking the JavaScript thread.
#[napi(ts_return_type = "Freshness")]
pub fn check_gate_sync(env: Env, spec: GateSpec) -> napi::Result<Json> {
    block(&env, || check_gate_impl(&spec))
}

/// What `ledger gate check` is asked: the gate in the caller's workspace, and
/// the parts of its spec given now; the parts left out are taken from the
/// latest evidence, and nothing read from it is run.
#[napi(object, object_to_js = false)]
#[derive(Debug)]
pub struct RecordedGateQuery {
    /// The caller's workspace: its store holds the evidence; a recorded
    /// scope of another workspace is `scope-differs`.
    pub workspace: String,
    /// The gate's name.
    pub name: String,
    /// The inputs (at or below `workspace`); default: the recorded scope.
    pub scope: Option<ScopeOptions>,
    /// The command; default: the recorded one (compared, never run).
    pub argv: Option<Vec<Utf16String>>,
    /// The working directory of `argv`, relative to the workspace; default `.`.
    pub cwd: Option<Utf16String>,
    /// How to observe the prerequisites now; default: none is observed, and
    /// each recorded one is `prerequisite-unverified`.
    pub prerequisites: Option<HashMap<String, Prerequisite>>,
}

fn check_recorded_gate_impl(query: &RecordedGateQuery) -> Result<Json, Failure> {
    let name = &query.name;
    let command = match &query.argv {
        Some(argv) => {
            let cwd = match &query.cwd {
                Some(cwd) => exact(cwd, || format!("the cwd of gate {name}"))?,
                None => ".".to_owned(),
            };
            Some((argv_of(argv, name)?, cwd))
        }
        None => None,
    };
    let core = ledger_core::GateQuery {
        name: name.clone(),
        workspace: query.workspace.clone().into(),
        scope: query
            .scope
            .as_ref()
            .map(ScopeOptions::to_scope)
            .transpose()?,
        command,
        prerequisites: match &query.prerequisites {
            Some(given) => Some(prerequisites_of(Some(given))?),
            None => None,
        },
    };
    json(&ledger_core::check_gate_query(&core)?)
}

/// What `ledger gate check --json` answers: whether the gate's latest
/// evidence is fresh for the parts given now, the rest taken from it. Runs
/// nothing read from the store: only the prerequisite commands given here.
#[napi(ts_return_type = "Promise<Freshness>")]
pub fn check_recorded_gate(query: RecordedGateQuery) -> AsyncTask<Work<Json>> {
    spawn(move || check_recorded_gate_impl(&query))
}

/// `checkRecordedGate`, blocking the JavaScript thread.
#[napi(ts_return_type = "Freshness")]
pub fn check_recorded_gate_sync(env: Env, query: RecordedGateQuery) -> napi::Result<Json> {
    block(&env, || check_recorded_gate_impl(&query))
}

/// Which gate's evidence, in which workspace.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct EvidenceOptions {
    /// The workspace directory; its store is `<workspace>/.ledger`.
    pub workspace: String,
    /// The gate's name.
    pub gate: String,
}

fn latest_evidence_impl(options: &EvidenceOptions) -> Result<Option<Json>, Failure> {
    let store = Store::open(Utf8Path::new(&options.workspace));
    ledger_core::latest_evidence(&store, &options.gate)?
        .map(|latest| json(&ledger_core::LatestEvidence::from(latest)))
        .transpose()
}

/// The gate's latest evidence and its record, or `null` when it never ran.
#[napi(ts_return_type = "Promise<LatestEvidence | null>")]
pub fn latest_evidence(options: EvidenceOptions) -> AsyncTask<Work<Option<Json>>> {
    spawn(move || latest_evidence_impl(&options))
}

/// `latestEvidence`, blocking the JavaScript thread.
#[napi(ts_return_type = "LatestEvidence | null")]
pub fn latest_evidence_sync(env: Env, options: EvidenceOptions) -> napi::Result<Option<Json>> {
    block(&env, || latest_evidence_impl(&options))
}

fn gate_output_impl(options: &EvidenceOptions) -> Result<Option<Buffer>, Failure> {
    let store = Store::open(Utf8Path::new(&options.workspace));
    let output = ledger_core::gate_output(&store, &options.gate)?;
    Ok(output.map(|o| Buffer::from(o.bytes)))
}

/// The output the gate's latest run kept (raw bytes, as the command wrote
/// them; what `ledger gate show` prints), or `null` when it never ran. An
/// output past the bound was kept as its start and its end: the evidence's
/// `output.truncated` says how many bytes were dropped between them.
#[napi(ts_return_type = "Promise<Buffer | null>")]
pub fn gate_output(options: EvidenceOptions) -> AsyncTask<Work<Option<Buffer>>> {
    spawn(move || gate_output_impl(&options))
}

/// `gateOutput`, blocking the JavaScript thread.
#[napi(ts_return_type = "Buffer | null")]
pub fn gate_output_sync(env: Env, options: EvidenceOptions) -> napi::Result<Option<Buffer>> {
    block(&env, || gate_output_impl(&options))
}
