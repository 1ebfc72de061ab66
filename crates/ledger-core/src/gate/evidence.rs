//! Gate evidence and its reuse (docs/gates.md): a gate that ran on exactly these
//! inputs, with these prerequisites, and passed, need not run again.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use std::borrow::Cow;

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::fingerprint::{Fingerprint, fingerprint_sorted};
use crate::expand::inventory::Inventory;
use crate::expand::revision::ObservedHead;
use crate::expand::scope::{Scope, ScopeLists};
use crate::gate::output::KeptOutput;
use crate::path::normalize_root;
use crate::platform::OsStrBytes;
use crate::quote::quote;
use crate::records::compare::Comparison;
use crate::records::record::store_workspace;
use crate::records::store::{RecordId, Store, check_ref_name};

/// The kind of record holding [`Evidence`].
pub const EVIDENCE_KIND: &str = "evidence";

/// At most this many bytes of a refused value are shown in its error.
const SHOWN_VALUE_BYTES: usize = 200;

/// The store reference of a gate's evidence log.
pub fn gate_ref(gate: &str) -> String {
    format!("gates/{gate}")
}

/// Observed prerequisite values, name → value. `None` is an environment
/// variable that is unset, which is not the same as one set to the empty text.
pub type Observations = BTreeMap<String, Option<String>>;

/// How a prerequisite's value is observed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Observe {
    /// A value given by the caller (`--env NAME=VALUE`).
    Literal(String),
    /// The value of an environment variable (`--env NAME`); `None` when unset.
    Environment(String),
    /// The stdout of a shell command, trimmed of ASCII whitespace
    /// (`--env-cmd NAME='rustc --version'`).
    Command(String),
}

impl Observe {
    /// Observes the value now. A value that is not UTF-8 is refused
    /// (`non-utf8-value`): recording it lossily would make different values equal.
    pub fn value(&self, name: &str) -> Result<Option<String>> {
        match self {
            Observe::Literal(value) => Ok(Some(value.clone())),
            Observe::Environment(var) => environment_value(name, var),
            Observe::Command(command) => command_output(name, command).map(Some),
        }
    }

    /// Refuses what cannot be observed: an environment variable name that is
    /// empty or holds `=` or NUL (no variable can have it, so it would always
    /// read as unset).
    fn validate(&self, name: &str) -> Result<()> {
        match self {
            Observe::Environment(var) if var.is_empty() || var.contains(['=', '\0']) => {
                Err(Error::InvalidArgument {
                    message: format!(
                        "prerequisite \"{}\": \"{}\" cannot name an environment variable",
                        escaped(name),
                        escaped(var)
                    ),
                })
            }
            _ => Ok(()),
        }
    }
}

/// An environment variable's value: `None` when unset, refused when not UTF-8.
fn environment_value(name: &str, var: &str) -> Result<Option<String>> {
    let Some(value) = std::env::var_os(var) else {
        return Ok(None);
    };
    value.into_string().map(Some).map_err(|raw| {
        let (name, var) = (escaped(name), escaped(var));
        let what = if name.is_empty() || name == var {
            format!("prerequisite {var} (environment variable)")
        } else {
            format!("prerequisite {name} (environment variable {var})")
        };
        non_utf8(what, raw.as_bytes())
    })
}

/// `text` with its control characters escaped, so that a message stays one line.
fn escaped(text: &str) -> String {
    DisplayPath::from(text).0
}

/// The `non-utf8-value` error for `bytes`, shown escaped and size-bounded.
fn non_utf8(what: String, bytes: &[u8]) -> Error {
    let mut value = DisplayPath::from_bytes(&bytes[..bytes.len().min(SHOWN_VALUE_BYTES)]).0;
    if bytes.len() > SHOWN_VALUE_BYTES {
        value.push_str("...");
    }
    Error::NonUtf8Value { what, value }
}

/// Runs `sh -c command` and returns its stdout trimmed of ASCII whitespace; a
/// failure is an error, never an empty value that could match an earlier one.
fn command_output(name: &str, command: &str) -> Result<String> {
    let failed = |reason: String| Error::PrerequisiteFailed {
        name: escaped(name),
        command: escaped(command),
        reason,
    };
    let output = Command::new("sh")
        .args(["-c", command])
        .output()
        .map_err(|e| failed(e.to_string()))?;
    if !output.status.success() {
        // Escaped, so that the error stays one line whatever the command printed.
        let stderr = DisplayPath::from_bytes(output.stderr.trim_ascii()).0;
        return Err(failed(format!("{}: {stderr}", output.status)));
    }
    let stdout = output.stdout.trim_ascii();
    match std::str::from_utf8(stdout) {
        Ok(text) => Ok(text.to_owned()),
        Err(_) => Err(non_utf8(
            format!(
                "prerequisite {} (output of `{}`)",
                escaped(name),
                escaped(command)
            ),
            stdout,
        )),
    }
}

/// A gate's definition: what it runs, where, on which inputs, and which
/// environment prerequisites its result depends on.
///
/// Built only by [`GateSpec::new`] (reading evidence validates the same way),
/// so every spec is valid and its working directory normalized: two specs that
/// mean the same gate compare equal, whichever front door built them.
///
/// ```
/// use std::collections::BTreeMap;
/// use ledger_core::{expand::Scope, gate::{check_gate, Echo, GateSpec, Observe, run_gate}, records::Store};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir(dir.path().join("sub"))?;
/// std::fs::write(dir.path().join("sub/input.txt"), "v1\n")?;
/// let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
/// let mut scope = Scope::new(workspace);
/// scope.add_root(".")?;
/// let prerequisites = BTreeMap::from([("mode".to_owned(), Observe::Literal("debug".into()))]);
/// // `sub/`, `./sub` and `sub` are one working directory.
/// let argv = vec!["cat".to_owned(), "input.txt".to_owned()];
/// let spec = GateSpec::new("test", argv.clone(), "sub/", scope.clone(), prerequisites.clone())?;
/// assert_eq!(spec.cwd(), "sub");
/// let store = Store::open(workspace)?;
/// assert!(!run_gate(&store, &spec, Echo::Off)?.reused);
/// let same = GateSpec::new("test", argv, "./sub", scope, prerequisites)?;
/// assert!(check_gate(&store, &same)?.fresh);
/// assert!(run_gate(&store, &same, Echo::Off)?.reused);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "SpecFields")]
pub struct GateSpec {
    name: String,
    argv: Vec<String>,
    cwd: String,
    scope: Scope,
    prerequisites: BTreeMap<String, Observe>,
}

/// A gate spec's fields as stored, validated into a [`GateSpec`] when read.
#[derive(Deserialize, schemars::JsonSchema)]
struct SpecFields {
    name: String,
    argv: Vec<String>,
    cwd: String,
    scope: Scope,
    prerequisites: BTreeMap<String, Observe>,
}

impl TryFrom<SpecFields> for GateSpec {
    type Error = Error;

    fn try_from(f: SpecFields) -> Result<Self> {
        // A record written before normalized inputs were refused reads as it
        // is: its scope then differs from any spec built now (`scope-differs`).
        GateSpec::build(&f.name, f.argv, &f.cwd, f.scope, f.prerequisites)
    }
}

impl GateSpec {
    /// A validated gate spec. `name` must make a store ref (`bad-ref-name`);
    /// `argv` must not be empty; `cwd` is relative to the workspace and
    /// normalized (`sub/`, `./sub` and `sub` are one directory, `.` or the empty
    /// text the workspace; absolute or `..`: `outside-workspace`); every
    /// prerequisite needs a name, and an environment variable a possible name
    /// (`invalid-argument`). A gate's inputs are hashed as raw bytes, as a
    /// PASS's are: a scope that normalizes a Tasks file (`--tasks`) is
    /// `invalid-argument`, naming the file.
    pub fn new(
        name: &str,
        argv: Vec<String>,
        cwd: &str,
        scope: Scope,
        prerequisites: BTreeMap<String, Observe>,
    ) -> Result<GateSpec> {
        if let Some(path) = scope.tasks_paths().next() {
            return Err(Error::InvalidArgument {
                message: format!(
                    "gate \"{}\": a gate's inputs are hashed as raw bytes, so {} cannot be normalized as a Tasks file (declare it as a root or path instead)",
                    escaped(name),
                    quote(path.as_str())
                ),
            });
        }
        GateSpec::build(name, argv, cwd, scope, prerequisites)
    }

    /// [`GateSpec::new`] without the refusal of normalized inputs: for specs
    /// read from records, which are compared, never run as they are.
    fn build(
        name: &str,
        argv: Vec<String>,
        cwd: &str,
        scope: Scope,
        prerequisites: BTreeMap<String, Observe>,
    ) -> Result<GateSpec> {
        check_ref_name(&gate_ref(name))?;
        if argv.is_empty() {
            return Err(Error::InvalidArgument {
                message: format!(
                    "gate \"{}\" needs a command: its argv is empty",
                    escaped(name)
                ),
            });
        }
        let cwd = normalize_root(cwd)?;
        scope.validate()?;
        for (prerequisite, how) in &prerequisites {
            if prerequisite.is_empty() {
                return Err(Error::InvalidArgument {
                    message: "a prerequisite needs a name".to_owned(),
                });
            }
            how.validate(prerequisite)?;
        }
        Ok(GateSpec {
            name: name.to_owned(),
            argv,
            cwd,
            scope,
            prerequisites,
        })
    }

    /// The gate's name, e.g. `test`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The exact command.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The working directory relative to the workspace, normalized: `.` for
    /// the workspace, otherwise a workspace path such as `sub`.
    pub fn cwd(&self) -> &str {
        &self.cwd
    }

    /// The inputs.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Prerequisite name → how to observe it.
    pub fn prerequisites(&self) -> &BTreeMap<String, Observe> {
        &self.prerequisites
    }

    /// Observes every prerequisite now.
    pub fn observe(&self) -> Result<Observations> {
        self.prerequisites
            .iter()
            .map(|(name, how)| Ok((name.clone(), how.value(name)?)))
            .collect()
    }

    /// This spec with its scope as resolved for a run (what evidence records).
    pub(crate) fn with_scope(&self, scope: Scope) -> GateSpec {
        GateSpec {
            scope,
            ..self.clone()
        }
    }
}

/// Why ledger stopped a gate before it ended by itself.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, schemars::JsonSchema,
)]
#[serde(tag = "by", rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Stopped {
    /// Its timeout expired: its process group was sent SIGTERM (SIGKILL
    /// after a grace period).
    Timeout {
        /// The timeout, in milliseconds.
        after_ms: u64,
    },
    /// ledger received this signal (SIGINT, SIGTERM, SIGHUP) and forwarded it.
    Signal {
        /// The signal's number.
        signal: i32,
    },
    /// The caller interrupted it (Python's Ctrl-C).
    Interrupt,
}

impl Stopped {
    /// `timeout`, `signal` or `interrupt`, as serialized in `by`.
    pub fn code(&self) -> &'static str {
        self.into()
    }
}

/// The record of one gate run.
///
/// Reading evidence checks what it claims: its entries must reproduce its
/// fingerprint, its scope must be the resolved scope of its spec, and its
/// observed prerequisites the declared ones; otherwise the record is refused
/// (`malformed-record`) rather than trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "EvidenceFields")]
pub struct Evidence {
    /// The gate's definition, as run (the scope resolved).
    pub spec: GateSpec,
    /// The prerequisites' observed values (`None`: an unset environment variable).
    pub prerequisites: Observations,
    /// The exit status; `None` when the command was killed by a signal.
    pub exit_status: Option<i32>,
    /// The signal that killed the command, if one did (`None` in records
    /// written before it was recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Why ledger stopped the command, if it did: such a run is never a PASS,
    /// whatever the command exited with once told to stop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// A short observed result: the last lines of the output, size-bounded.
    pub result: String,
    /// The output kept whole up to a bound, stored as an object (`None` in
    /// records written before it was kept): [`KeptOutput::read`] gives its bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<KeptOutput>,
    /// Whether the command left processes in its process group when it
    /// ended; ledger stopped them (docs/gates.md, Supervision).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub left_in_group: bool,
    /// The inputs as they were when the command started.
    pub inventory: Inventory,
    /// Why this evidence can never be reused, e.g. the inputs changed during the run.
    pub not_reusable: Option<String>,
    /// The commit `HEAD` named when the run started, and whether the inputs
    /// were that commit's (`None`: no `HEAD` to observe, or a record written
    /// before ledger observed it). Freshness never depends on it: evidence
    /// stands on its inputs' content, whatever commit holds them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<ObservedHead>,
}

/// Evidence's fields as stored, checked into [`Evidence`] when read.
#[derive(Deserialize, schemars::JsonSchema)]
struct EvidenceFields {
    spec: GateSpec,
    prerequisites: Observations,
    exit_status: Option<i32>,
    #[serde(default)]
    signal: Option<i32>,
    #[serde(default)]
    stopped: Option<Stopped>,
    started_at: String,
    duration_ms: u64,
    result: String,
    #[serde(default)]
    output: Option<KeptOutput>,
    #[serde(default)]
    left_in_group: bool,
    inventory: Inventory,
    not_reusable: Option<String>,
    #[serde(default)]
    head: Option<ObservedHead>,
}

impl TryFrom<EvidenceFields> for Evidence {
    type Error = String;

    fn try_from(f: EvidenceFields) -> std::result::Result<Self, String> {
        let evidence = Evidence {
            spec: f.spec,
            prerequisites: f.prerequisites,
            exit_status: f.exit_status,
            signal: f.signal,
            stopped: f.stopped,
            started_at: f.started_at,
            duration_ms: f.duration_ms,
            result: f.result,
            output: f.output,
            left_in_group: f.left_in_group,
            inventory: f.inventory,
            not_reusable: f.not_reusable,
            head: f.head,
        };
        evidence.defect().map_or(Ok(evidence), Err)
    }
}

impl Evidence {
    /// The fingerprint of the inputs.
    pub fn fingerprint(&self) -> Fingerprint {
        self.inventory.fingerprint
    }

    /// Whether the command exited with status 0 on its own (not after
    /// ledger stopped it).
    pub fn passed(&self) -> bool {
        self.exit_status == Some(0) && self.stopped.is_none()
    }

    /// What makes this evidence untrustworthy, if anything: a claim its own
    /// content contradicts. Evidence whose entries do not give its fingerprint
    /// would otherwise be found fresh on inputs it never saw.
    fn defect(&self) -> Option<String> {
        let inventory = &self.inventory;
        match fingerprint_sorted(&inventory.entries) {
            Err(e) => return Some(format!("its inventory's entries are invalid: {e}")),
            Ok(computed) if computed != inventory.fingerprint => {
                return Some(format!(
                    "its entries give {computed}, not its recorded fingerprint {}",
                    inventory.fingerprint
                ));
            }
            Ok(_) => {}
        }
        if let Err(e) = inventory.scope.validate() {
            return Some(format!("its scope is invalid: {e}"));
        }
        // Absolute (before host-free records) or relative in normal form.
        if let Err(why) = inventory.scope.check_stored_workspace() {
            return Some(format!("its scope is invalid: {why}"));
        }
        if self.spec.scope != inventory.scope {
            return Some("its spec's scope is not the scope of its inventory".to_owned());
        }
        if !self.prerequisites.keys().eq(self.spec.prerequisites.keys()) {
            return Some("its observed prerequisites are not the declared ones".to_owned());
        }
        self.output.as_ref().and_then(KeptOutput::defect)
    }
}

impl Evidence {
    /// This evidence as the store of `base` keeps it: both scopes (the spec's
    /// and the inventory's, which are one) relative to `base`, the store's
    /// resolved workspace, so that the record names no host path.
    fn stored_in(&self, base: &Utf8Path) -> Evidence {
        Evidence {
            spec: self.spec.with_scope(self.spec.scope.stored_in(base)),
            inventory: self.inventory.stored_in(base),
            ..self.clone()
        }
    }

    /// Evidence read from the store of `base`, in that workspace: a relative
    /// scope is taken below `base` (the same inputs in a copy of the
    /// workspace are the same inputs); an absolute one, written before
    /// host-free records, is kept and differs from any scope elsewhere.
    fn rerooted(self, base: Option<&Utf8Path>) -> std::result::Result<Evidence, String> {
        let Some(base) = base else {
            return match self.inventory.scope.workspace().is_absolute() {
                true => Ok(self),
                false => Err("its scope is relative, in a store of no workspace".to_owned()),
            };
        };
        let scope = self.spec.scope.clone().rerooted(base)?;
        Ok(Evidence {
            spec: self.spec.with_scope(scope),
            inventory: self.inventory.rerooted(base)?,
            ..self
        })
    }
}

/// Why evidence cannot be reused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, strum::IntoStaticStr, schemars::JsonSchema)]
#[serde(tag = "reason", rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
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
    /// A prerequisite's value differs (or it was added or dropped). In JSON a
    /// side without the prerequisite has no field, an unset variable is `null`.
    PrerequisiteChanged {
        /// Its name.
        name: String,
        /// The recorded value: `None` when the evidence has no such
        /// prerequisite, `Some(None)` when the variable was unset.
        #[serde(skip_serializing_if = "Option::is_none")]
        recorded: Option<Option<String>>,
        /// The value now, in the same terms.
        #[serde(skip_serializing_if = "Option::is_none")]
        now: Option<Option<String>>,
    },
    /// A recorded prerequisite the caller did not observe now. A check runs
    /// nothing it read from the store: a prerequisite left out of the request
    /// cannot be re-observed, so it is reported rather than trusted.
    PrerequisiteUnverified {
        /// Its name.
        name: String,
        /// The recorded value (`None`: the variable was unset).
        recorded: Option<String>,
    },
    /// The command failed: a failing exit status is never a PASS.
    Failed {
        /// Its exit status (`None`: killed by a signal).
        exit_status: Option<i32>,
    },
    /// The evidence reached this store only through Git (fetched from a
    /// remote, not written here) and no allowed signer signed it: it proves
    /// nothing about this machine's inputs, so the gate runs (docs/sharing.md).
    UntrustedEvidence {
        /// Where it came from and what its signature lacks.
        why: String,
    },
    /// The evidence was recorded as not reusable.
    NotReusable {
        /// Why.
        why: String,
    },
}

impl StaleReason {
    /// The reason's stable code, as serialized in `reason`: `no-evidence`,
    /// `scope-differs`, `command-differs`, `inputs-changed`,
    /// `prerequisite-changed`, `prerequisite-unverified`, `failed`, `not-reusable`.
    pub fn code(&self) -> &'static str {
        self.into()
    }
}

/// A gate's latest evidence and the record holding it, as the bindings return it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LatestEvidence {
    /// The record the gate's pointer names.
    pub record: RecordId,
    /// The evidence it holds.
    pub evidence: Evidence,
}

impl From<(RecordId, Evidence)> for LatestEvidence {
    fn from((record, evidence): (RecordId, Evidence)) -> Self {
        LatestEvidence { record, evidence }
    }
}

/// The answer of a reuse check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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

impl Freshness {
    /// The answer for a gate without evidence: stale, it never ran.
    pub fn no_evidence(gate: &str) -> Freshness {
        Freshness {
            gate: gate.to_owned(),
            fresh: false,
            record: None,
            evidence: None,
            reasons: vec![StaleReason::NoEvidence],
        }
    }
}

/// The latest evidence of a gate and its record.
///
/// Refused with `malformed-record` naming the record file when the record is
/// not evidence of this gate or contradicts itself (see [`Evidence`]); with
/// `corrupt-record` when its bytes do not hash to its name.
pub fn latest_evidence(store: &Store, gate: &str) -> Result<Option<(RecordId, Evidence)>> {
    let Some(id) = store.head(&gate_ref(gate))? else {
        return Ok(None);
    };
    Ok(Some((id, read_evidence_linked(store, gate, &id)?.0)))
}

/// The evidence of `gate` the record `id` holds, checked as
/// [`latest_evidence`] checks the head, and the record it follows.
pub(crate) fn read_evidence_linked(
    store: &Store,
    gate: &str,
    id: &RecordId,
) -> Result<(Evidence, Option<RecordId>)> {
    let id = *id;
    let record = store.read_record::<Evidence>(&id)?;
    let wrong = if record.kind != EVIDENCE_KIND {
        Some(format!(
            "a \"{}\" record, not evidence",
            escaped(&record.kind)
        ))
    } else if record.body.spec.name != gate {
        Some(format!(
            "evidence of gate \"{}\", not of \"{}\"",
            escaped(&record.body.spec.name),
            escaped(gate)
        ))
    } else {
        None
    };
    let malformed = |reason: String| Error::MalformedRecord {
        record: DisplayPath::from_bytes(store.record_path(&id).as_os_str().as_bytes()),
        reason: format!("on ref {}: {reason}", gate_ref(gate)),
    };
    if let Some(reason) = wrong {
        return Err(malformed(reason));
    }
    let base = store_workspace(store);
    let evidence = record.body.rerooted(base.as_deref()).map_err(malformed)?;
    Ok((evidence, record.previous))
}

/// [`super::check::check_gate_against`] on evidence already read, so that a check that took
/// parts of its spec from the latest evidence judges that same record.
pub(crate) fn freshness_of(
    latest: Option<(RecordId, Evidence)>,
    untrusted: Option<String>,
    spec: &GateSpec,
    observed: Option<&Observations>,
    current: Option<&Inventory>,
) -> Result<Freshness> {
    let Some((record, evidence)) = latest else {
        return Ok(Freshness::no_evidence(&spec.name));
    };
    let mut reasons = Vec::new();
    if let Some(why) = untrusted {
        reasons.push(StaleReason::UntrustedEvidence { why });
    }
    // An inventory expanded just now holds its resolved scope already.
    let requested = match current {
        Some(current) => current.scope.clone(),
        None => spec.scope.resolve()?,
    };
    let same_scope = requested == evidence.inventory.scope;
    if !same_scope {
        reasons.push(StaleReason::ScopeDiffers {
            recorded: Box::new(evidence.inventory.scope.clone()),
            requested: Box::new(requested),
        });
    }
    // Both sides are normalized GateSpecs, so equal commands compare equal.
    if (&spec.cwd, &spec.argv) != (&evidence.spec.cwd, &evidence.spec.argv) {
        reasons.push(StaleReason::CommandDiffers {
            recorded: shown_command(&evidence.spec),
            requested: shown_command(spec),
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
    match observed {
        Some(now) => reasons.extend(prerequisite_changes(&evidence.prerequisites, now)),
        None => reasons.extend(unverified(&evidence.prerequisites)),
    }
    if same_scope {
        let comparison = match current {
            Some(current) => evidence.inventory.compare_with(current)?,
            None => (evidence.inventory.clone())
                .with_settings(spec.scope().settings().clone())
                .compare()?,
        };
        if !comparison.matches {
            reasons.push(StaleReason::InputsChanged {
                comparison: Box::new(comparison),
            });
        }
    }
    Ok(Freshness {
        gate: spec.name.clone(),
        fresh: reasons.is_empty(),
        record: Some(record),
        evidence: Some(evidence),
        reasons,
    })
}

/// What a caller asks a check about: the gate, the caller's workspace, and
/// the parts of the spec it gives now. [`super::check::check_gate_query`] takes the parts
/// left out from the latest evidence, and never runs anything read from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GateQuery {
    /// The gate's name.
    pub name: String,
    /// The caller's workspace: its store holds the evidence, and a recorded
    /// scope of another workspace is a mismatch (`scope-differs`), never a
    /// place to read.
    pub workspace: Utf8PathBuf,
    /// The inputs asked for; `None`: the recorded scope, in `workspace`. A
    /// scope given must lie at or below `workspace` (`outside-workspace`).
    pub scope: Option<Scope>,
    /// The command and its working directory relative to the workspace;
    /// `None`: the recorded ones (compared, never run).
    pub command: Option<(Vec<String>, String)>,
    /// How to observe the prerequisites now; `None`: none is observed, and
    /// every recorded one is `prerequisite-unverified`.
    pub prerequisites: Option<BTreeMap<String, Observe>>,
    /// Prerequisites the gate declares but the check does not observe (a
    /// declared command, which a check never runs): each recorded one is
    /// `prerequisite-unverified`, one the evidence lacks `prerequisite-changed`.
    pub unobserved: BTreeSet<String>,
    /// The settings of the caller's workspace: the store it reads trusts
    /// their allowed signers, and a scope it expands carries them.
    pub settings: crate::Settings,
}

impl GateQuery {
    /// The spec to check: the parts given, the rest from `recorded`. `None`
    /// when there is no command to compare with (no evidence, none given).
    pub(crate) fn spec(
        &self,
        recorded: Option<&GateSpec>,
        workspace: &Utf8PathBuf,
    ) -> Result<Option<GateSpec>> {
        let (argv, cwd) = match (&self.command, recorded) {
            (Some((argv, cwd)), _) => (argv.clone(), cwd.clone()),
            (None, Some(spec)) => (spec.argv.clone(), spec.cwd.clone()),
            (None, None) => return Ok(None),
        };
        let scope = match (&self.scope, recorded) {
            (Some(scope), _) => scope.clone(),
            // The recorded selection, but in the caller's workspace: a record
            // cannot move the workspace, it can only differ from it.
            (None, Some(spec)) => spec.scope.clone().in_workspace(workspace.clone()),
            (None, None) => Scope::from_lists(workspace.clone(), &ScopeLists::default())?,
        };
        let scope = scope.with_settings(self.settings.clone());
        // Only what the caller passes now: a recorded prerequisite (which may
        // be a command) is compared, never copied into a spec that could run it.
        let prerequisites = self.prerequisites.clone().unwrap_or_default();
        match self.scope {
            Some(_) => GateSpec::new(&self.name, argv, &cwd, scope, prerequisites),
            None => GateSpec::build(&self.name, argv, &cwd, scope, prerequisites),
        }
        .map(Some)
    }
}

/// `cwd: argv` of a spec, each part quoted as text output quotes it.
fn shown_command(spec: &GateSpec) -> String {
    let argv: Vec<String> = spec.argv.iter().map(|a| quote(a).into_owned()).collect();
    format!("{}: {}", quote(&spec.cwd), argv.join(" "))
}

/// Every recorded prerequisite, as not observed now.
fn unverified(recorded: &Observations) -> impl Iterator<Item = StaleReason> + '_ {
    recorded
        .iter()
        .map(|(name, value)| StaleReason::PrerequisiteUnverified {
            name: name.clone(),
            recorded: value.clone(),
        })
}

/// Every prerequisite whose value differs, was added or was dropped; an unset
/// variable differs from an empty one.
fn prerequisite_changes(recorded: &Observations, now: &Observations) -> Vec<StaleReason> {
    let names: BTreeSet<&String> = recorded.keys().chain(now.keys()).collect();
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
///
/// Evidence that contradicts itself (see [`Evidence`]) is refused with
/// `invalid-argument`: it would be refused when read.
pub fn record_evidence(store: &Store, evidence: &Evidence) -> Result<RecordId> {
    if let Some(defect) = evidence.defect() {
        return Err(Error::InvalidArgument {
            message: format!(
                "evidence of gate \"{}\": {defect}",
                escaped(&evidence.spec.name)
            ),
        });
    }
    let stored = match store_workspace(store) {
        Some(base) => Cow::Owned(evidence.stored_in(&base)),
        None => Cow::Borrowed(evidence),
    };
    store.append(&gate_ref(&evidence.spec.name), EVIDENCE_KIND, &*stored)
}

/// A prerequisite's value in a sentence: quoted and escaped, `(unset)` or `(absent)`.
fn shown_value(value: Option<&Option<String>>) -> String {
    match value {
        None => "(absent)".to_owned(),
        Some(None) => "(unset)".to_owned(),
        // Always between quotes, so that `''` (empty) reads apart from `(unset)`.
        Some(Some(text)) => match quote(text) {
            Cow::Borrowed(plain) => format!("'{plain}'"),
            Cow::Owned(quoted) => quoted,
        },
    }
}

impl std::fmt::Display for StaleReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StaleReason::NoEvidence => write!(f, "no evidence: the gate never ran"),
            StaleReason::ScopeDiffers {
                recorded,
                requested,
            } if recorded.workspace != requested.workspace => write!(
                f,
                "the scope differs from the one the gate ran on: it ran in {}, not in {}",
                quote(recorded.workspace.as_str()),
                quote(requested.workspace.as_str())
            ),
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
                recorded: None,
                now: None,
            } => write!(
                f,
                "prerequisite {} is declared, and the gate ran without it",
                quote(name)
            ),
            StaleReason::PrerequisiteChanged {
                name,
                recorded,
                now,
            } => write!(
                f,
                "prerequisite {} changed: {} -> {}",
                quote(name),
                shown_value(recorded.as_ref()),
                shown_value(now.as_ref())
            ),
            StaleReason::PrerequisiteUnverified { name, recorded } => write!(
                f,
                "prerequisite {} not verified: recorded {}, not observed now (give its value, or the command that observes it; a check never runs a recorded command)",
                quote(name),
                shown_value(Some(recorded))
            ),
            StaleReason::Failed { exit_status } => match exit_status {
                Some(0) => write!(f, "the last run did not pass: ledger stopped it"),
                Some(code) => write!(f, "the last run failed (exit status {code})"),
                None => write!(f, "the last run was killed by a signal"),
            },
            // Sanitized like a gate's output: the reason is prose whose paths
            // are quoted already, but a forged record's may hold anything.
            StaleReason::NotReusable { why } => write!(
                f,
                "not reusable: {}",
                crate::quote::sanitize_prose(why.as_bytes()).replace('\n', "\\n")
            ),
            // A remote's name and key fingerprints are in it: quoted the same way.
            StaleReason::UntrustedEvidence { why } => write!(
                f,
                "untrusted evidence: {}",
                crate::quote::sanitize_prose(why.as_bytes()).replace('\n', "\\n")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::gate::check::{check_gate, check_gate_observed, check_gate_query};
    use crate::gate::process::Echo;
    use crate::gate::run::run_gate;

    /// A workspace with `sub/input.txt`, walked in full (no Git), and its store.
    fn workspace() -> (tempfile::TempDir, Scope, Store) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/input.txt"), "v1\n").unwrap();
        let workspace = ledger_testkit::utf8(dir.path());
        let mut scope = Scope::new(workspace);
        scope.add_root(".").unwrap();
        let store = Store::open(workspace).unwrap();
        (dir, scope, store)
    }

    fn spec(scope: &Scope, cwd: &str, prerequisites: &[(&str, Observe)]) -> Result<GateSpec> {
        let argv = vec!["cat".to_owned(), "input.txt".to_owned()];
        let prerequisites = prerequisites
            .iter()
            .map(|(n, o)| ((*n).to_owned(), o.clone()))
            .collect();
        GateSpec::new("test", argv, cwd, scope.clone(), prerequisites)
    }

    fn reasons(freshness: &Freshness) -> Vec<String> {
        let json = serde_json::to_value(&freshness.reasons).unwrap();
        let list = json.as_array().unwrap().iter();
        list.map(|r| r["reason"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn a_cwd_is_one_directory_however_it_is_written() {
        let (_dir, scope, store) = workspace();
        let ran = run_gate(&store, &spec(&scope, "sub/", &[]).unwrap(), Echo::Off).unwrap();
        let evidence = ran.evidence;
        assert_eq!((evidence.passed(), evidence.result.as_str()), (true, "v1"));
        assert_eq!(evidence.spec.cwd(), "sub");
        for same in ["sub/", "./sub", "sub", "./sub/"] {
            let spec = spec(&scope, same, &[]).unwrap();
            let freshness = check_gate(&store, &spec).unwrap();
            assert!(freshness.fresh, "{same}: {:?}", reasons(&freshness));
            assert!(run_gate(&store, &spec, Echo::Off).unwrap().reused, "{same}");
        }
        let other = check_gate(&store, &spec(&scope, ".", &[]).unwrap()).unwrap();
        assert_eq!(reasons(&other), ["command-differs"]);
        for (cwd, code) in [
            ("..", "outside-workspace"),
            ("sub/../..", "outside-workspace"),
            ("/tmp", "outside-workspace"),
            ("sub//x", "invalid-path"),
        ] {
            let e = spec(&scope, cwd, &[]).unwrap_err();
            assert_eq!(e.code(), code, "{cwd}: {e}");
        }
    }

    #[test]
    fn a_query_runs_nothing_it_read_and_stays_in_the_callers_workspace() {
        let (dir, scope, store) = workspace();
        let outside = tempfile::tempdir().unwrap();
        let marker = outside.path().join("observed");
        let how = Observe::Command(format!("touch '{}'; echo 1", marker.display()));
        let spec = spec(&scope, "sub", &[("tool", how)]).unwrap();
        run_gate(&store, &spec, Echo::Off).unwrap();
        std::fs::remove_file(&marker).unwrap();
        let query = GateQuery {
            name: "test".to_owned(),
            workspace: scope.workspace.clone(),
            ..GateQuery::default()
        };
        let freshness = check_gate_query(&query).unwrap();
        assert_eq!(reasons(&freshness), ["prerequisite-unverified"]);
        assert!(!marker.exists(), "a recorded command ran");
        let given = GateQuery {
            prerequisites: Some([("tool".to_owned(), Observe::Literal("1".into()))].into()),
            ..query.clone()
        };
        assert!(check_gate_query(&given).unwrap().fresh);
        // A record naming another workspace is a mismatch, and is not expanded.
        let parent = dir.path().parent().unwrap().to_str().unwrap().to_owned();
        rewrite(&store, |body| {
            body["spec"]["scope"]["workspace"] = parent.clone().into();
            body["inventory"]["scope"]["workspace"] = parent.clone().into();
        });
        assert_eq!(
            reasons(&check_gate_query(&given).unwrap()),
            ["scope-differs"]
        );
        assert_eq!(
            reasons(&check_gate(&store, &spec).unwrap()),
            ["scope-differs"]
        );
        // A scope above the caller's workspace is refused.
        let above = GateQuery {
            scope: Some(Scope::new(parent.as_str())),
            ..given
        };
        assert_eq!(
            check_gate_query(&above).unwrap_err().code(),
            "outside-workspace"
        );
    }

    #[test]
    fn an_invalid_spec_cannot_be_built() {
        let (_dir, scope, _) = workspace();
        let new = |name: &str, argv: &[&str], prerequisites: &[(&str, Observe)]| {
            let argv = argv.iter().map(|a| (*a).to_owned()).collect();
            let prerequisites = prerequisites
                .iter()
                .map(|(n, o)| ((*n).to_owned(), o.clone()))
                .collect();
            GateSpec::new(name, argv, ".", scope.clone(), prerequisites)
                .unwrap_err()
                .code()
        };
        assert_eq!(new("test", &[], &[]), "invalid-argument");
        assert_eq!(new("../x", &["true"], &[]), "bad-ref-name");
        let literal = Observe::Literal("1".into());
        assert_eq!(new("test", &["true"], &[("", literal)]), "invalid-argument");
        for var in ["", "A=B", "A\0B"] {
            let how = Observe::Environment(var.into());
            assert_eq!(new("test", &["true"], &[("v", how)]), "invalid-argument");
        }
        // A stored spec is validated the same way: no way around the constructor.
        let good = spec(&scope, "sub", &[]).unwrap();
        let mut json = serde_json::to_value(&good).unwrap();
        assert_eq!(
            serde_json::from_value::<GateSpec>(json.clone()).unwrap(),
            good
        );
        json["cwd"] = "./sub/".into();
        assert_eq!(
            serde_json::from_value::<GateSpec>(json.clone()).unwrap(),
            good
        );
        json["cwd"] = "../elsewhere".into();
        let e = serde_json::from_value::<GateSpec>(json).unwrap_err();
        assert!(e.to_string().contains("../elsewhere"), "{e}");
    }

    #[test]
    fn an_unset_variable_is_not_an_empty_one() {
        let (_dir, scope, store) = workspace();
        let var = "LEDGER_TEST_NEVER_SET_5F3A";
        assert_eq!(std::env::var_os(var), None);
        let spec = spec(
            &scope,
            "sub",
            &[("flags", Observe::Environment(var.into()))],
        )
        .unwrap();
        assert_eq!(spec.observe().unwrap(), [("flags".to_owned(), None)].into());
        let evidence = run_gate(&store, &spec, Echo::Off).unwrap().evidence;
        let json = serde_json::to_value(&evidence).unwrap();
        assert_eq!(json["prerequisites"], serde_json::json!({ "flags": null }));
        assert!(check_gate(&store, &spec).unwrap().fresh);
        let empty = [("flags".to_owned(), Some(String::new()))].into();
        let stale = check_gate_observed(&store, &spec, &empty).unwrap();
        assert_eq!(reasons(&stale), ["prerequisite-changed"]);
        let reason = serde_json::to_value(&stale.reasons[0]).unwrap();
        assert_eq!(
            reason,
            serde_json::json!({"reason": "prerequisite-changed", "name": "flags", "recorded": null, "now": ""})
        );
        assert_eq!(
            stale.reasons[0].to_string(),
            "prerequisite flags changed: (unset) -> ''"
        );
        // Dropped: the side without the prerequisite has no field.
        let dropped = check_gate_observed(&store, &spec, &Observations::new()).unwrap();
        let reason = serde_json::to_value(&dropped.reasons[0]).unwrap();
        assert_eq!(
            reason,
            serde_json::json!({"reason": "prerequisite-changed", "name": "flags", "recorded": null})
        );
        assert_eq!(
            dropped.reasons[0].to_string(),
            "prerequisite flags changed: (unset) -> (absent)"
        );
    }

    #[test]
    fn a_value_is_a_json_string_as_every_version_wrote_it() {
        let (_dir, scope, store) = workspace();
        let spec = spec(&scope, "sub", &[("flags", Observe::Literal("-O".into()))]).unwrap();
        let evidence = run_gate(&store, &spec, Echo::Off).unwrap().evidence;
        // A string value, as every version wrote it, reads as that value.
        let json = serde_json::to_value(&evidence).unwrap();
        assert_eq!(json["prerequisites"], serde_json::json!({ "flags": "-O" }));
        let back: Evidence = serde_json::from_value(json).unwrap();
        assert_eq!(back.prerequisites["flags"].as_deref(), Some("-O"));
    }

    #[test]
    fn a_command_output_that_is_not_utf8_is_refused_not_collapsed() {
        for output in [r"printf 'v\377'", r"printf 'v\376'"] {
            let how = Observe::Command(output.into());
            let e = how.value("tool").unwrap_err();
            assert_eq!(e.code(), "non-utf8-value", "{e}");
            assert!(
                e.to_string().contains("prerequisite tool (output of"),
                "{e}"
            );
            assert!(e.to_string().contains(&output[9..13].to_uppercase()), "{e}");
        }
        // Trimmed of ASCII whitespace only: a no-break space is a value of its own.
        let nbsp = Observe::Command("printf 'v\\302\\240\\n'".into());
        assert_eq!(nbsp.value("tool").unwrap().as_deref(), Some("v\u{a0}"));
        // A failing command's stderr stays on the error's one line.
        let failing = Observe::Command("echo one >&2; echo two >&2; exit 3".into());
        let e = failing.value("tool").unwrap_err();
        assert_eq!(e.code(), "prerequisite-failed");
        assert!(!e.to_string().contains('\n'), "{e}");
    }

    /// Replaces the head of `gates/test` with `edit` applied to its evidence,
    /// as a consistent record (its bytes hash to its name): a lie, not damage.
    fn rewrite(store: &Store, edit: impl FnOnce(&mut serde_json::Value)) -> RecordId {
        let head = store.head("gates/test").unwrap().unwrap();
        let record = store.read_record::<serde_json::Value>(&head).unwrap();
        let mut body = record.body;
        edit(&mut body);
        store
            .commit("gates/test", EVIDENCE_KIND, Some(&head), &body)
            .unwrap()
    }

    #[test]
    fn evidence_whose_entries_do_not_give_its_fingerprint_is_refused() {
        let (dir, scope, store) = workspace();
        let spec = spec(&scope, "sub", &[]).unwrap();
        run_gate(&store, &spec, Echo::Off).unwrap();
        std::fs::write(dir.path().join("sub/input.txt"), "v2\n").unwrap();
        let now = Inventory::expand(&scope).unwrap();
        // The fingerprint claims the inputs on disk now; the entries are those
        // the command saw. Compared by fingerprint alone, this would be fresh.
        let lie = rewrite(&store, |body| {
            body["inventory"]["fingerprint"] = now.fingerprint.to_string().into();
        });
        for e in [
            check_gate(&store, &spec).unwrap_err(),
            run_gate(&store, &spec, Echo::Off).unwrap_err(),
            latest_evidence(&store, "test").unwrap_err(),
        ] {
            assert_eq!(e.code(), "malformed-record", "{e}");
            let text = e.to_string();
            assert!(text.contains(&format!("{lie}.json")), "{text}");
            assert!(text.contains("not its recorded fingerprint"), "{text}");
        }
    }

    #[test]
    fn evidence_that_is_not_of_its_gate_is_refused() {
        let (_dir, scope, store) = workspace();
        let spec = spec(&scope, "sub", &[("v", Observe::Literal("1".into()))]).unwrap();
        run_gate(&store, &spec, Echo::Off).unwrap();
        type Edit = fn(&mut serde_json::Value);
        let edits: [(Edit, &str); 4] = [
            (|b| b["spec"]["name"] = "deploy".into(), "not of \"test\""),
            (
                |b| b["prerequisites"] = serde_json::json!({}),
                "prerequisites",
            ),
            (
                |b| b["spec"]["scope"]["roots"] = serde_json::json!(["sub"]),
                "scope",
            ),
            (
                |b| b["spec"]["argv"] = serde_json::json!([]),
                "argv is empty",
            ),
        ];
        for (edit, says) in edits {
            let lie = rewrite(&store, edit);
            let e = check_gate(&store, &spec).unwrap_err();
            assert_eq!(e.code(), "malformed-record", "{e}");
            assert!(e.to_string().contains(&format!("{lie}.json")), "{e}");
            assert!(e.to_string().contains(says), "{says}: {e}");
            // The next run follows a good record again.
            let head = store.head("gates/test").unwrap();
            let good = store.history("gates/test").unwrap()[1];
            let record = store.read_record::<serde_json::Value>(&good).unwrap();
            store
                .commit("gates/test", EVIDENCE_KIND, head.as_ref(), &record.body)
                .unwrap();
        }
        // Writing such evidence is refused too.
        let mut evidence = latest_evidence(&store, "test").unwrap().unwrap().1;
        evidence.inventory.fingerprint =
            crate::expand::fingerprint::fingerprint_entries([]).unwrap();
        let e = record_evidence(&store, &evidence).unwrap_err();
        assert_eq!(e.code(), "invalid-argument", "{e}");
    }

    #[test]
    fn evidence_is_stored_host_free_and_fresh_in_a_copy_of_its_workspace() {
        let (dir, scope, store) = workspace();
        let spec = spec(&scope, "sub", &[]).unwrap();
        run_gate(&store, &spec, Echo::Off).unwrap();
        let head = store.head("gates/test").unwrap().unwrap();
        let stored = store.read_record::<serde_json::Value>(&head).unwrap().body;
        for at in [&stored["spec"]["scope"], &stored["inventory"]["scope"]] {
            assert_eq!(at["workspace"], ".", "{stored}");
        }
        let bytes = std::fs::read(store.record_path(&head)).unwrap();
        let host = dir.path().canonicalize().unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert!(!text.contains(host.to_str().unwrap()), "{text}");
        // Read back in the store's workspace: as it was run.
        let (_, read) = latest_evidence(&store, "test").unwrap().unwrap();
        assert_eq!(read.inventory.scope, scope.resolve().unwrap());
        // A byte-identical copy elsewhere: the same inputs, so fresh there.
        let other = tempfile::tempdir().unwrap();
        let copy = other.path().join("copy");
        let cp = Command::new("cp")
            .arg("-a")
            .arg(dir.path())
            .arg(&copy)
            .output();
        assert!(
            cp.unwrap().status.success(),
            "cp -a is the oracle of a copy"
        );
        let copy = ledger_testkit::utf8(&copy);
        let mut there = Scope::new(copy);
        there.add_root(".").unwrap();
        let freshness = check_gate(&Store::open(copy).unwrap(), &spec.with_scope(there)).unwrap();
        assert!(freshness.fresh, "{:?}", reasons(&freshness));
    }

    #[test]
    fn a_stored_workspace_that_leaves_or_is_not_normal_is_refused() {
        let (_dir, scope, store) = workspace();
        let spec = spec(&scope, "sub", &[]).unwrap();
        run_gate(&store, &spec, Echo::Off).unwrap();
        for workspace in ["..", "../elsewhere", "./sub", "sub/", ""] {
            let lie = rewrite(&store, |body| {
                body["spec"]["scope"]["workspace"] = workspace.into();
                body["inventory"]["scope"]["workspace"] = workspace.into();
            });
            let e = latest_evidence(&store, "test").unwrap_err();
            assert_eq!(e.code(), "malformed-record", "{workspace:?}: {e}");
            assert!(e.to_string().contains(&format!("{lie}.json")), "{e}");
        }
    }

    #[test]
    fn old_evidence_is_not_rerooted_and_proves_only_where_it_ran() {
        let (_dir, scope, store) = workspace();
        let spec = spec(&scope, "sub", &[]).unwrap();
        run_gate(&store, &spec, Echo::Off).unwrap();
        let here = scope.resolve().unwrap().workspace;
        // As written before host-free records: absolute, the store's own.
        rewrite(&store, |body| {
            body["spec"]["scope"]["workspace"] = here.as_str().into();
            body["inventory"]["scope"]["workspace"] = here.as_str().into();
        });
        assert!(check_gate(&store, &spec).unwrap().fresh);
        // Naming another workspace: scope-differs, as it always was.
        rewrite(&store, |body| {
            body["spec"]["scope"]["workspace"] = "/elsewhere".into();
            body["inventory"]["scope"]["workspace"] = "/elsewhere".into();
        });
        let stale = check_gate(&store, &spec).unwrap();
        assert_eq!(reasons(&stale), ["scope-differs"]);
        assert!(
            stale.reasons[0]
                .to_string()
                .contains("it ran in /elsewhere")
        );
    }
}
