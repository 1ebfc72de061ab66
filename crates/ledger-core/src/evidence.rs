//! Gate evidence and its reuse (SPEC §11): a gate that ran on exactly these
//! inputs, with these prerequisites, and passed, need not run again.

use std::collections::BTreeMap;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::compare::Comparison;
use crate::error::{Error, Result};
use crate::fingerprint::Fingerprint;
use crate::inventory::Inventory;
use crate::scope::Scope;
use crate::store::{RecordId, Store};

/// The kind of record holding [`Evidence`].
pub const EVIDENCE_KIND: &str = "evidence";

/// The store reference of a gate's evidence log.
pub fn gate_ref(gate: &str) -> String {
    format!("gates/{gate}")
}

/// How a prerequisite's value is observed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Observe {
    /// A value given by the caller (`--env NAME=VALUE`).
    Literal(String),
    /// The value of an environment variable (`--env NAME`); absent reads as empty.
    Environment(String),
    /// The trimmed stdout of a shell command (`--env-cmd NAME='rustc --version'`).
    Command(String),
}

impl Observe {
    /// Observes the value now.
    pub fn value(&self, name: &str) -> Result<String> {
        match self {
            Observe::Literal(value) => Ok(value.clone()),
            Observe::Environment(var) => Ok(std::env::var(var).unwrap_or_default()),
            Observe::Command(command) => command_output(name, command),
        }
    }
}

/// Runs `sh -c command` and returns its trimmed stdout; a failure is an error,
/// never an empty value that could match an earlier empty value.
fn command_output(name: &str, command: &str) -> Result<String> {
    let failed = |reason: String| Error::PrerequisiteFailed {
        name: name.to_owned(),
        command: command.to_owned(),
        reason,
    };
    let output = Command::new("sh")
        .args(["-c", command])
        .output()
        .map_err(|e| failed(e.to_string()))?;
    if !output.status.success() {
        return Err(failed(format!(
            "{}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// A gate's definition: what it runs, where, on which inputs, and which
/// environment prerequisites its result depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateSpec {
    /// The gate's name, e.g. `test`.
    pub name: String,
    /// The exact command.
    pub argv: Vec<String>,
    /// The working directory, relative to the workspace (`.` for the workspace).
    pub cwd: String,
    /// The inputs.
    pub scope: Scope,
    /// Prerequisite name → how to observe it.
    pub prerequisites: BTreeMap<String, Observe>,
}

impl GateSpec {
    /// Observes every prerequisite now.
    pub fn observe(&self) -> Result<BTreeMap<String, String>> {
        self.prerequisites
            .iter()
            .map(|(name, how)| Ok((name.clone(), how.value(name)?)))
            .collect()
    }
}

/// The record of one gate run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The gate's definition, as run (the scope resolved).
    pub spec: GateSpec,
    /// The prerequisites' observed values.
    pub prerequisites: BTreeMap<String, String>,
    /// The exit status; `None` when the command was killed by a signal.
    pub exit_status: Option<i32>,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// A short observed result: the last lines of the output, size-bounded.
    pub result: String,
    /// The inputs as they were when the command started.
    pub inventory: Inventory,
    /// Why this evidence can never be reused, e.g. the inputs changed during the run.
    pub not_reusable: Option<String>,
}

impl Evidence {
    /// The fingerprint of the inputs.
    pub fn fingerprint(&self) -> Fingerprint {
        self.inventory.fingerprint
    }

    /// Whether the command exited with status 0.
    pub fn passed(&self) -> bool {
        self.exit_status == Some(0)
    }
}

/// Why evidence cannot be reused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum StaleReason {
    /// The gate never ran.
    NoEvidence,
    /// The scope asked for is not the one the gate ran on (a check of part of
    /// the files never stands in for the full gate).
    ScopeDiffers {
        /// The scope of the evidence.
        recorded: Box<Scope>,
        /// The scope asked for.
        requested: Box<Scope>,
    },
    /// The command or its working directory differs.
    CommandDiffers {
        /// `cwd: argv` of the evidence.
        recorded: String,
        /// `cwd: argv` asked for.
        requested: String,
    },
    /// The inputs changed since the run.
    InputsChanged {
        /// Which paths changed, and both fingerprints.
        comparison: Box<Comparison>,
    },
    /// A prerequisite's value differs (or it was added or dropped).
    PrerequisiteChanged {
        /// Its name.
        name: String,
        /// The recorded value.
        recorded: Option<String>,
        /// The value now.
        now: Option<String>,
    },
    /// The command failed: a failing exit status is never a PASS.
    Failed {
        /// Its exit status (`None`: killed by a signal).
        exit_status: Option<i32>,
    },
    /// The evidence was recorded as not reusable.
    NotReusable {
        /// Why.
        why: String,
    },
}

/// The answer of a reuse check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Freshness {
    /// The gate.
    pub gate: String,
    /// Whether the evidence can be reused instead of running the gate.
    pub fresh: bool,
    /// The record of the latest evidence, if any.
    pub record: Option<RecordId>,
    /// The latest evidence, if any.
    pub evidence: Option<Evidence>,
    /// Every reason it is stale (empty when fresh).
    pub reasons: Vec<StaleReason>,
}

/// The latest evidence of a gate and its record.
pub fn latest_evidence(store: &Store, gate: &str) -> Result<Option<(RecordId, Evidence)>> {
    let Some(id) = store.head(&gate_ref(gate))? else {
        return Ok(None);
    };
    let record = store.read_record::<Evidence>(&id)?;
    Ok(Some((id, record.body)))
}

/// Decides whether the latest evidence of `spec.name` can be reused for
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
    observed: &BTreeMap<String, String>,
) -> Result<Freshness> {
    check_gate_against(store, spec, observed, None)
}

/// [`check_gate_observed`], comparing the recorded inputs with `current` (the
/// requested scope, expanded just now) instead of expanding them again.
pub(crate) fn check_gate_against(
    store: &Store,
    spec: &GateSpec,
    observed: &BTreeMap<String, String>,
    current: Option<&Inventory>,
) -> Result<Freshness> {
    let Some((record, evidence)) = latest_evidence(store, &spec.name)? else {
        return Ok(Freshness {
            gate: spec.name.clone(),
            fresh: false,
            record: None,
            evidence: None,
            reasons: vec![StaleReason::NoEvidence],
        });
    };
    let mut reasons = Vec::new();
    let requested = spec.scope.resolve()?;
    if requested != evidence.inventory.scope {
        reasons.push(StaleReason::ScopeDiffers {
            recorded: Box::new(evidence.inventory.scope.clone()),
            requested: Box::new(requested),
        });
    }
    if (&spec.cwd, &spec.argv) != (&evidence.spec.cwd, &evidence.spec.argv) {
        reasons.push(StaleReason::CommandDiffers {
            recorded: format!("{}: {:?}", evidence.spec.cwd, evidence.spec.argv),
            requested: format!("{}: {:?}", spec.cwd, spec.argv),
        });
    }
    if !evidence.passed() {
        reasons.push(StaleReason::Failed {
            exit_status: evidence.exit_status,
        });
    }
    if let Some(why) = &evidence.not_reusable {
        reasons.push(StaleReason::NotReusable { why: why.clone() });
    }
    reasons.extend(prerequisite_changes(&evidence.prerequisites, observed));
    let comparison = match current {
        Some(current) => evidence.inventory.compare_with(current)?,
        None => evidence.inventory.compare()?,
    };
    if !comparison.matches {
        reasons.push(StaleReason::InputsChanged {
            comparison: Box::new(comparison),
        });
    }
    Ok(Freshness {
        gate: spec.name.clone(),
        fresh: reasons.is_empty(),
        record: Some(record),
        evidence: Some(evidence),
        reasons,
    })
}

/// Every prerequisite whose value differs, was added or was dropped.
fn prerequisite_changes(
    recorded: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
) -> Vec<StaleReason> {
    let names: std::collections::BTreeSet<&String> = recorded.keys().chain(now.keys()).collect();
    names
        .into_iter()
        .filter(|name| recorded.get(*name) != now.get(*name))
        .map(|name| StaleReason::PrerequisiteChanged {
            name: name.clone(),
            recorded: recorded.get(name).cloned(),
            now: now.get(name).cloned(),
        })
        .collect()
}

/// Stores evidence at the end of its gate's log. Appending never conflicts:
/// a run's evidence stands on its own, so two concurrent runs both land.
pub fn record_evidence(store: &Store, evidence: &Evidence) -> Result<RecordId> {
    store.append(&gate_ref(&evidence.spec.name), EVIDENCE_KIND, evidence)
}

impl std::fmt::Display for StaleReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StaleReason::NoEvidence => write!(f, "no evidence: the gate never ran"),
            StaleReason::ScopeDiffers { .. } => {
                write!(f, "the scope differs from the one the gate ran on")
            }
            StaleReason::CommandDiffers {
                recorded,
                requested,
            } => write!(f, "the command differs: ran {recorded}, asked {requested}"),
            StaleReason::InputsChanged { comparison } => write!(
                f,
                "inputs changed: {} change(s), {} -> {}",
                comparison.changes.len(),
                comparison.old,
                comparison.new
            ),
            StaleReason::PrerequisiteChanged {
                name,
                recorded,
                now,
            } => write!(
                f,
                "prerequisite {name} changed: {} -> {}",
                recorded.as_deref().unwrap_or("(absent)"),
                now.as_deref().unwrap_or("(absent)")
            ),
            StaleReason::Failed { exit_status } => match exit_status {
                Some(code) => write!(f, "the last run failed (exit status {code})"),
                None => write!(f, "the last run was killed by a signal"),
            },
            StaleReason::NotReusable { why } => write!(f, "not reusable: {why}"),
        }
    }
}
