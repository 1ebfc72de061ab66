//! Gates (docs/gates.md), as the doors call them: a gate spec is options (its
//! scope a nested scope in the workspace), evidence is read from the
//! workspace's store, and a run may be stopped by the host's interrupt.

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::expand::ScopeOptions;
use super::{Bytes, Verb, Workspace};
use crate::{
    EVIDENCE_KIND, Echo, Error, Evidence, Freshness, GateQuery, GateSpec, LatestEvidence,
    Observations, Observe, RecordId, Result, RunOptions, RunOutcome,
};

/// The working directory of a gate command by default: the workspace.
fn default_cwd() -> String {
    ".".to_owned()
}

/// A gate: what it runs, where, on which inputs, and which prerequisites its
/// result depends on. Whether its latest evidence can be reused: fresh, or
/// stale with every reason. Runs nothing but the prerequisite commands given
/// here (`check_recorded_gate` fills a check from the evidence instead).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckGateOptions {
    /// The gate's name, e.g. `test`.
    pub name: String,
    /// The exact command and its arguments.
    pub argv: Vec<String>,
    /// The working directory, relative to the workspace.
    #[serde(default = "default_cwd")]
    pub cwd: String,
    /// The inputs: a scope in the workspace.
    #[serde(default)]
    pub scope: ScopeOptions,
    /// Prerequisite name → how its value is observed.
    #[serde(default)]
    pub prerequisites: BTreeMap<String, Observe>,
}

/// The spec the options describe, its scope declared in `ws`.
fn spec(
    ws: &Workspace,
    name: &str,
    argv: Vec<String>,
    cwd: &str,
    scope: &ScopeOptions,
    prerequisites: BTreeMap<String, Observe>,
) -> Result<GateSpec> {
    GateSpec::new(name, argv, cwd, ws.scope(scope)?, prerequisites)
}

fn check_gate(ws: &Workspace, o: CheckGateOptions) -> Result<Freshness> {
    let spec = spec(ws, &o.name, o.argv, &o.cwd, &o.scope, o.prerequisites)?;
    crate::check_gate(ws.store(), &spec)
}

/// What `ledger gate check` answers: whether the gate's latest evidence is
/// fresh for the parts of its spec given now, the others taken from the
/// evidence. Nothing read from the store is run: only the prerequisite
/// commands given here.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRecordedGateOptions {
    /// The gate's name.
    pub name: String,
    /// The inputs, in the workspace; default: the recorded scope.
    #[serde(default)]
    pub scope: Option<ScopeOptions>,
    /// The command; default: the recorded one (compared, never run).
    #[serde(default)]
    pub argv: Option<Vec<String>>,
    /// The working directory of `argv`, relative to the workspace; default `.`.
    /// Only with `argv`.
    #[serde(default)]
    pub cwd: Option<String>,
    /// How to observe the prerequisites now; default: none is observed, and
    /// each recorded one is `prerequisite-unverified`.
    #[serde(default)]
    pub prerequisites: Option<BTreeMap<String, Observe>>,
}

fn check_recorded_gate(ws: &Workspace, o: CheckRecordedGateOptions) -> Result<Freshness> {
    let command = match (o.argv, o.cwd) {
        (Some(argv), cwd) => Some((argv, cwd.unwrap_or_else(default_cwd))),
        (None, Some(_)) => {
            return Err(Error::InvalidArgument {
                message: "`cwd` is the directory of `argv`, and no `argv` is given".to_owned(),
            });
        }
        (None, None) => None,
    };
    let query = GateQuery {
        name: o.name,
        workspace: ws.path().to_owned(),
        scope: o.scope.as_ref().map(|s| ws.scope(s)).transpose()?,
        command,
        prerequisites: o.prerequisites,
    };
    crate::check_gate_query(&query)
}

/// Reuses fresh evidence, or runs the command and records evidence whatever
/// its exit status (`ledger gate run --json`). After `timeout_ms` the gate's
/// process group is sent SIGTERM (SIGKILL shortly after), and the run is
/// recorded as failed and not reusable.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunGateOptions {
    /// The gate's name, e.g. `test`.
    pub name: String,
    /// The exact command and its arguments.
    pub argv: Vec<String>,
    /// The working directory, relative to the workspace.
    #[serde(default = "default_cwd")]
    pub cwd: String,
    /// The inputs: a scope in the workspace.
    #[serde(default)]
    pub scope: ScopeOptions,
    /// Prerequisite name → how its value is observed.
    #[serde(default)]
    pub prerequisites: BTreeMap<String, Observe>,
    /// Where the command's output goes while it runs (its tail is kept in the
    /// evidence either way).
    #[serde(default)]
    pub echo: Echo,
    /// Stop the gate after so many milliseconds (a positive number).
    #[serde(default)]
    pub timeout_ms: Option<f64>,
}

/// What `run_gate` did, and what `ledger gate run` exits with for it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GateRun {
    /// The run or the reuse.
    #[serde(flatten)]
    pub outcome: RunOutcome,
    /// What `ledger gate run` exits with: 0 when reused, else the command's
    /// exit status, 128 + N when signal N killed it, 124 when its timeout
    /// stopped it.
    pub exit_code: i32,
}

/// `timeout_ms` as a duration: a positive, finite number of milliseconds.
fn timeout(timeout_ms: Option<f64>) -> Result<Option<Duration>> {
    let Some(ms) = timeout_ms else {
        return Ok(None);
    };
    match RunOptions::timeout_from_secs(ms / 1000.0) {
        Some(limit) => Ok(Some(limit)),
        None => Err(Error::InvalidArgument {
            message: format!("`timeout_ms` must be a positive number of milliseconds, not {ms}"),
        }),
    }
}

fn run_gate(ws: &Workspace, o: RunGateOptions) -> Result<GateRun> {
    let timeout = timeout(o.timeout_ms)?;
    let spec = spec(ws, &o.name, o.argv, &o.cwd, &o.scope, o.prerequisites)?;
    let options = RunOptions {
        echo: o.echo,
        timeout,
        // A library host keeps its own signal handlers; its interrupt (a
        // Ctrl-C in Python's main thread) stops the gate instead.
        forward_signals: false,
        interrupt: ws.interrupt(),
    };
    let outcome = crate::run_gate_with(ws.store(), &spec, &options)?;
    let exit_code = outcome.exit_code();
    Ok(GateRun { outcome, exit_code })
}

/// The gate's latest evidence and its record, or null when it never ran.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LatestEvidenceOptions {
    /// The gate's name.
    pub gate: String,
}

fn latest_evidence(ws: &Workspace, o: LatestEvidenceOptions) -> Result<Option<LatestEvidence>> {
    Ok(crate::latest_evidence(ws.store(), &o.gate)?.map(LatestEvidence::from))
}

/// The output the gate's latest run kept (raw bytes, as the command wrote
/// them; what `ledger gate show` prints), or null when it never ran. An output
/// past the bound was kept as its start and its end: the evidence's
/// `output.truncated` says how many bytes were dropped between them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GateOutputOptions {
    /// The gate's name.
    pub gate: String,
}

fn gate_output(ws: &Workspace, o: GateOutputOptions) -> Result<Option<Bytes>> {
    Ok(crate::gate_output(ws.store(), &o.gate)?.map(|kept| Bytes(kept.bytes)))
}

/// The output one evidence record kept (raw bytes); `invalid-argument` for
/// evidence written before ledger kept a run's output.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvidenceOutputOptions {
    /// The evidence record's id (64 hex digits).
    pub record: String,
}

fn evidence_output(ws: &Workspace, o: EvidenceOutputOptions) -> Result<Bytes> {
    let id: RecordId = o.record.parse()?;
    let record = ws
        .store()
        .read_record_of_kind::<Evidence>(&id, EVIDENCE_KIND)?;
    let kept = crate::evidence_output(ws.store(), id, &record.body)?;
    Ok(Bytes(kept.bytes))
}

/// Observes prerequisites now, as a gate run would: each one's value, null for
/// an unset environment variable. Commands run in the current directory.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObserveOptions {
    /// Prerequisite name → how its value is observed.
    pub prerequisites: BTreeMap<String, Observe>,
}

fn observe(o: ObserveOptions) -> Result<Observations> {
    o.prerequisites
        .iter()
        .map(|(name, how)| Ok((name.clone(), how.value(name)?)))
        .collect()
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("check_gate", &["name"], check_gate),
        Verb::method("check_recorded_gate", &["name"], check_recorded_gate),
        Verb::method("run_gate", &["name"], run_gate),
        Verb::method("latest_evidence", &["gate"], latest_evidence),
        Verb::method("gate_output", &["gate"], gate_output),
        Verb::method("evidence_output", &["record"], evidence_output),
        Verb::free("observe", &["prerequisites"], observe),
    ]
}
