//! Gates (docs/gates.md), as the doors call them: a gate spec is options (its
//! scope a nested scope in the workspace), evidence is read from the
//! workspace's store, and a run may be stopped by the host's interrupt.

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::expand::ScopeOptions;
use super::{Bytes, Verb, Workspace, text};
use crate::{
    Error, Result,
    gate::{
        Declarations, DeclaredGate, DeclaredRuns, EVIDENCE_KIND, Echo, Evidence, Freshness,
        GateQuery, GateSpec, LatestEvidence, Observations, Observe, OutputBound, RunOptions,
        RunOutcome,
    },
    records::RecordId,
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
    crate::gate::check_gate(ws.store()?, &spec)
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
        unobserved: Default::default(),
        settings: ws.settings().clone(),
    };
    crate::gate::check_gate_query(&query)
}

/// Reuses fresh evidence, or runs the command and records evidence whatever
/// its exit status (`ledger gate run --json`). After `timeout_ms` the gate's
/// process group is sent SIGTERM (SIGKILL shortly after), and the run is
/// recorded as failed and not reusable. Its output is kept whole up to
/// `keep_output_bytes` (default 1 MiB); past it, its start and its end, with
/// a line between them saying which bytes and lines were dropped. A cancelled
/// call (Python's `cancel`, Node's `signal`) fails with `cancelled`: before
/// the command starts, nothing runs; during the run, its process group is
/// stopped and the run recorded as not reusable.
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
    pub timeout_ms: Option<TimeoutMs>,
    /// Keep at most so many bytes of its output (1 to 1073741824; default
    /// 1048576, 1 MiB).
    #[serde(default)]
    pub keep_output_bytes: Option<OutputBound>,
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

/// A gate's time limit: a positive, finite number of milliseconds. Refused
/// while the options are read, so that the error names the option as the
/// caller spells it (`timeout_ms`, `timeoutMs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeoutMs(Duration);

impl<'de> Deserialize<'de> for TimeoutMs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        // Refused inside the visitor, so the door's reader sees the failure at
        // the option and names it.
        struct Millis;
        impl serde::de::Visitor<'_> for Millis {
            type Value = TimeoutMs;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a positive number of milliseconds")
            }
            fn visit_f64<E: serde::de::Error>(self, ms: f64) -> std::result::Result<TimeoutMs, E> {
                RunOptions::timeout_from_secs(ms / 1000.0)
                    .map(TimeoutMs)
                    .ok_or_else(|| {
                        E::custom(format_args!(
                            "expected a positive number of milliseconds, found {ms}"
                        ))
                    })
            }
            fn visit_u64<E: serde::de::Error>(self, ms: u64) -> std::result::Result<TimeoutMs, E> {
                // Milliseconds past 2^53 are centuries: rounding them is harmless.
                #[allow(clippy::cast_precision_loss)]
                self.visit_f64(ms as f64)
            }
            fn visit_i64<E: serde::de::Error>(self, ms: i64) -> std::result::Result<TimeoutMs, E> {
                // As above; a negative count is refused as a negative float.
                #[allow(clippy::cast_precision_loss)]
                self.visit_f64(ms as f64)
            }
        }
        d.deserialize_f64(Millis)
    }
}

impl JsonSchema for TimeoutMs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TimeoutMs".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "A positive number of milliseconds.",
        })
    }
}

fn run_gate(ws: &Workspace, o: RunGateOptions) -> Result<GateRun> {
    ws.refuse_if_cancelled(&o.name)?;
    let spec = spec(ws, &o.name, o.argv, &o.cwd, &o.scope, o.prerequisites)?;
    let options = RunOptions {
        echo: o.echo,
        timeout: o.timeout_ms.map(|TimeoutMs(limit)| limit),
        // A library host keeps its own signal handlers; its interrupt (a
        // Ctrl-C in Python's main thread) stops the gate instead.
        forward_signals: false,
        interrupt: ws.interrupt(),
        keep_output: o.keep_output_bytes,
    };
    let outcome = crate::gate::run_gate_with(ws.store()?, &spec, &options)?;
    let exit_code = outcome.exit_code();
    Ok(GateRun { outcome, exit_code })
}

/// The gates the workspace's `ledger.toml` declares (docs/gates.md, Declared
/// gates), each after the gates it needs; empty when there is no such file.
/// Reading runs nothing: `bad-gate-declaration` or `gate-cycle` for a file
/// that is not valid.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeclaredGatesOptions {}

fn declared_gates(ws: &Workspace, _: DeclaredGatesOptions) -> Result<Vec<DeclaredGate>> {
    Ok(Declarations::read(ws.path())?
        .map(|d| d.gates().to_vec())
        .unwrap_or_default())
}

/// The workspace's declarations, which must exist.
fn declarations(ws: &Workspace) -> Result<Declarations> {
    Ok(Declarations::read_required(ws.path())?.with_settings(ws.settings().clone()))
}

/// The supervision of a door's run: its echo, its timeout and output bound
/// (else the gate's declared ones), the host's interrupt.
fn door_run_options(
    ws: &Workspace,
    echo: Echo,
    timeout: Option<TimeoutMs>,
    keep_output: Option<OutputBound>,
) -> RunOptions {
    RunOptions {
        echo,
        timeout: timeout.map(|TimeoutMs(limit)| limit),
        forward_signals: false,
        interrupt: ws.interrupt(),
        keep_output,
    }
}

/// Runs a gate `ledger.toml` declares, as declared (`ledger gate run NAME`):
/// reuses fresh evidence, or runs its command and records evidence. Its
/// declared timeout and `keep-output` apply unless `timeout_ms` and
/// `keep_output_bytes` are given. Cancelled, it fails with `cancelled` as
/// `run_gate` does.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunDeclaredGateOptions {
    /// The declared gate's name.
    pub name: String,
    /// Where the command's output goes while it runs.
    #[serde(default)]
    pub echo: Echo,
    /// Stop the gate after so many milliseconds (instead of its declared timeout).
    #[serde(default)]
    pub timeout_ms: Option<TimeoutMs>,
    /// Keep at most so many bytes of its output (instead of its declared
    /// `keep-output`; default 1 MiB).
    #[serde(default)]
    pub keep_output_bytes: Option<OutputBound>,
}

fn run_declared_gate(ws: &Workspace, o: RunDeclaredGateOptions) -> Result<GateRun> {
    let declarations = declarations(ws)?;
    let gate = declarations.gate(&o.name)?;
    ws.refuse_if_cancelled(&gate.name)?;
    let spec = declarations.spec(gate)?;
    let mut options = door_run_options(ws, o.echo, o.timeout_ms, o.keep_output_bytes);
    options.timeout = options.timeout.or_else(|| gate.timeout());
    options.keep_output = options.keep_output.or_else(|| gate.keep_output());
    let outcome = crate::gate::run_gate_with(ws.store()?, &spec, &options)?;
    let exit_code = outcome.exit_code();
    Ok(GateRun { outcome, exit_code })
}

/// Whether the evidence of a gate `ledger.toml` declares is fresh for its
/// declaration (`ledger gate check NAME`). Runs nothing the file says: its
/// `env` variables and literals are observed, a declared `env-cmd` is
/// `prerequisite-unverified` unless `prerequisites` gives it (those given
/// replace declared ones by name).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckDeclaredGateOptions {
    /// The declared gate's name.
    pub name: String,
    /// How to observe prerequisites now, over the declared ones.
    #[serde(default)]
    pub prerequisites: BTreeMap<String, Observe>,
}

fn check_declared_gate(ws: &Workspace, o: CheckDeclaredGateOptions) -> Result<Freshness> {
    let declarations = declarations(ws)?;
    let query = declarations.query(declarations.gate(&o.name)?, &o.prerequisites)?;
    crate::gate::check_gate_query(&query)
}

/// Whether the evidence of every gate `ledger.toml` declares is fresh
/// (`ledger gate check --all`), in dependency order, each checked as
/// `check_declared_gate` checks it; nothing runs.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckDeclaredGatesOptions {
    /// How to observe prerequisites now, over the declared ones (for every gate).
    #[serde(default)]
    pub prerequisites: BTreeMap<String, Observe>,
}

fn check_declared_gates(ws: &Workspace, o: CheckDeclaredGatesOptions) -> Result<Vec<Freshness>> {
    crate::gate::check_declared(&declarations(ws)?, &o.prerequisites)
}

/// Runs every gate `ledger.toml` declares in dependency order (`ledger gate
/// run --all`): fresh ones are reused, the others run, one whose needs did not
/// pass is blocked (not run). Cancelled, it fails with `cancelled`: the gate
/// running is stopped and recorded as not reusable, and no later gate starts.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunDeclaredGatesOptions {
    /// Where each command's output goes while it runs.
    #[serde(default)]
    pub echo: Echo,
    /// Stop each gate after so many milliseconds (instead of its declared timeout).
    #[serde(default)]
    pub timeout_ms: Option<TimeoutMs>,
    /// Keep at most so many bytes of each gate's output (instead of its
    /// declared `keep-output`; default 1 MiB).
    #[serde(default)]
    pub keep_output_bytes: Option<OutputBound>,
}

fn run_declared_gates(ws: &Workspace, o: RunDeclaredGatesOptions) -> Result<DeclaredRuns> {
    let declarations = declarations(ws)?;
    if let Some(first) = declarations.gates().first() {
        ws.refuse_if_cancelled(&first.name)?;
    }
    let options = door_run_options(ws, o.echo, o.timeout_ms, o.keep_output_bytes);
    crate::gate::run_declared(ws.store()?, &declarations, &options, &mut |_| {})
}

/// The gate's latest evidence and its record, or null when it never ran.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LatestEvidenceOptions {
    /// The gate's name.
    pub gate: String,
}

fn latest_evidence(ws: &Workspace, o: LatestEvidenceOptions) -> Result<Option<LatestEvidence>> {
    Ok(crate::gate::latest_evidence(ws.store()?, &o.gate)?.map(LatestEvidence::from))
}

/// Records how far back reuse of the gate's evidence reaches: from now on
/// only its newest `keep_newest` runs are reused (docs/gates.md, Reusing
/// earlier evidence). Nothing is deleted. Returns the policy's record.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitReuseOptions {
    /// The gate's name.
    pub gate: String,
    /// How many of its newest runs may be reused (at least 1).
    pub keep_newest: u64,
    /// Why, in the decider's words.
    pub reason: String,
}

fn limit_reuse(ws: &Workspace, o: LimitReuseOptions) -> Result<RecordId> {
    crate::gate::limit_reuse(ws.store()?, &o.gate, o.keep_newest, &o.reason)
}

/// The output the gate's latest run kept (raw bytes, as the command wrote
/// them; what `ledger gate show` prints), or null when it never ran. An output
/// past the bound was kept as its start and its end, with a line between them
/// saying which bytes and lines were dropped there (the evidence's
/// `output.truncated` says the same).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GateOutputOptions {
    /// The gate's name.
    pub gate: String,
}

fn gate_output(ws: &Workspace, o: GateOutputOptions) -> Result<Option<Bytes>> {
    Ok(crate::gate::gate_output(ws.store()?, &o.gate)?.map(|kept| Bytes(kept.bytes)))
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
        .store()?
        .read_record_of_kind::<Evidence>(&id, EVIDENCE_KIND)?;
    let kept = crate::gate::evidence_output(ws.store()?, id, &record.body)?;
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
        Verb::method("run_gate", &["name"], run_gate).cancellable(),
        Verb::method("declared_gates", &[], declared_gates),
        Verb::method("run_declared_gate", &["name"], run_declared_gate)
            .cancellable()
            .shown(|run: &GateRun| text::run_outcome(&run.outcome)),
        Verb::method("check_declared_gate", &["name"], check_declared_gate).shown(text::freshness),
        Verb::method("check_declared_gates", &[], check_declared_gates),
        Verb::method("run_declared_gates", &[], run_declared_gates).cancellable(),
        Verb::method("latest_evidence", &["gate"], latest_evidence),
        Verb::method(
            "limit_reuse",
            &["gate", "keep_newest", "reason"],
            limit_reuse,
        ),
        Verb::method("gate_output", &["gate"], gate_output).shown(text::output),
        Verb::method("evidence_output", &["record"], evidence_output),
        Verb::free("observe", &["prerequisites"], observe),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::door::testing::{call, code};
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde_json::{Value, json};

    use std::time::Duration;

    use super::TimeoutMs;
    use crate::door::{Case, Hooks, respond};

    /// A workspace with one input file, `src/lib.txt`.
    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.txt"), "one\n").unwrap();
        dir
    }

    #[test]
    fn a_timeout_is_a_positive_finite_number_of_milliseconds_named_in_the_callers_case() {
        let read = |json: &str| serde_json::from_str::<TimeoutMs>(json);
        assert_eq!(
            read("1500").unwrap(),
            TimeoutMs(Duration::from_millis(1500))
        );
        assert_eq!(read("0.5").unwrap(), TimeoutMs(Duration::from_micros(500)));
        for bad in ["0", "-1", "1e400", "\"soon\"", "null"] {
            assert!(read(bad).is_err(), "{bad}");
        }
        let dir = workspace();
        for (case, key, shown) in [
            (Case::Snake, "timeout_ms", "`timeout_ms`"),
            (Case::Camel, "timeoutMs", "`timeoutMs`"),
        ] {
            let mut options = json!({"name": "t", "argv": ["true"]});
            options[key] = json!(0);
            let reply = call(&dir, "run_gate", options, case);
            assert_eq!(code(&reply), "invalid-argument");
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(shown) && message.contains("positive"),
                "{message}"
            );
        }
        let ran = call(
            &dir,
            "run_gate",
            json!({"name": "t", "argv": ["sleep", "5"], "timeout_ms": 200}),
            Case::Snake,
        );
        assert_eq!(ran["ok"]["exit_code"], 124, "stopped by its timeout: {ran}");
        let stopped = &ran["ok"]["evidence"]["stopped"];
        assert_eq!(stopped, &json!({"by": "timeout", "after_ms": 200}));
    }

    #[test]
    fn the_output_bound_is_a_whole_number_of_bytes_and_the_kept_output_says_what_was_dropped() {
        let dir = workspace();
        for (case, key, shown) in [
            (Case::Snake, "keep_output_bytes", "`keep_output_bytes`"),
            (Case::Camel, "keepOutputBytes", "`keepOutputBytes`"),
        ] {
            for bad in [
                json!(0),
                json!(-1),
                json!(1.5),
                json!("1MiB"),
                json!(1u64 << 31),
            ] {
                let mut options = json!({"name": "t", "argv": ["true"]});
                options[key] = bad.clone();
                let reply = call(&dir, "run_gate", options, case);
                assert_eq!(code(&reply), "invalid-argument", "{bad}: {reply}");
                let message = reply["error"]["message"].as_str().unwrap();
                assert!(message.contains(shown), "{message}");
            }
        }
        // Four lines of 4 bytes in a bound of 8: the first 2 bytes are kept,
        // then the marker, then the last 6; bytes 2..10, of lines 1 to 3, are
        // dropped.
        let ran = call(
            &dir,
            "run_gate",
            json!({"name": "t", "argv": ["printf", "111\\n222\\n333\\n444\\n"], "keepOutputBytes": 8}),
            Case::Camel,
        );
        let output = &ran["ok"]["evidence"]["output"];
        assert_eq!(output["boundBytes"], 8, "{ran}");
        let cut = &output["truncated"];
        assert_eq!(
            (
                &cut["headBytes"],
                &cut["droppedBytes"],
                &cut["droppedFromLine"],
                &cut["droppedToLine"]
            ),
            (&json!(2), &json!(8), &json!(1), &json!(3)),
            "{ran}"
        );
        let kept = call(&dir, "gate_output", json!({"gate": "t"}), Case::Snake);
        let bytes = STANDARD.decode(kept["ok"].as_str().unwrap()).unwrap();
        let marker_bytes = cut["markerBytes"].as_u64().unwrap() as usize;
        assert_eq!(marker_bytes, bytes.len() - 8);
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "11\n[ledger: output elided: bytes 2..10 (lines 1 to 3) of 16 bytes dropped; the start and the end are kept]\n3\n444\n"
        );
    }

    /// `run_gate` in `dir` with the cancellation token `token`, as a door calls it.
    fn run_with_token(dir: &tempfile::TempDir, gate: &Value, token: u64) -> Value {
        let hooks = Hooks {
            cancel: Some(token),
            ..Hooks::default()
        };
        let ws = dir.path().to_str().unwrap();
        let reply = respond(Some(ws), "run_gate", &gate.to_string(), Case::Camel, &hooks);
        serde_json::from_str(&reply).unwrap()
    }

    #[test]
    fn a_cancelled_token_runs_nothing_and_one_cancelled_during_the_run_stops_it() {
        use crate::door::cancel;
        let dir = workspace();
        let marker = dir.path().join("started");
        let script = format!("echo x >> '{}'; sleep 30", marker.to_str().unwrap());
        let gate =
            json!({"name": "slow", "argv": ["sh", "-c", script], "scope": {"roots": ["src"]}});

        // Cancelled before the call: nothing runs, nothing is recorded.
        let token = cancel::new_token();
        assert!(cancel::cancel(token));
        let reply = run_with_token(&dir, &gate, token);
        cancel::release(token);
        assert_eq!(code(&reply), "cancelled", "{reply}");
        assert!(!marker.exists(), "the command ran");
        let latest = call(
            &dir,
            "latest_evidence",
            json!({"gate": "slow"}),
            Case::Camel,
        );
        assert_eq!(latest["ok"], Value::Null, "{latest}");

        // Cancelled from another thread once the command has started.
        let token = cancel::new_token();
        let canceller = {
            let marker = marker.clone();
            std::thread::spawn(move || {
                while !marker.exists() {
                    std::thread::sleep(Duration::from_millis(10));
                }
                cancel::cancel(token)
            })
        };
        let started = std::time::Instant::now();
        let reply = run_with_token(&dir, &gate, token);
        assert!(canceller.join().unwrap());
        cancel::release(token);
        assert_eq!(code(&reply), "cancelled", "{reply}");
        assert!(started.elapsed() < Duration::from_secs(20), "not stopped");
        let latest = call(
            &dir,
            "latest_evidence",
            json!({"gate": "slow"}),
            Case::Camel,
        );
        let evidence = &latest["ok"]["evidence"];
        assert_eq!(evidence["stopped"], json!({"by": "interrupt"}), "{latest}");
        let record = latest["ok"]["record"].as_str().unwrap();
        assert!(reply["error"]["message"].as_str().unwrap().contains(record));
        let check = call(&dir, "check_gate", gate.clone(), Case::Camel);
        assert_eq!(check["ok"]["fresh"], false, "{check}");

        // A token released (or never made) is refused, naming it.
        let reply = run_with_token(&dir, &gate, token);
        assert_eq!(code(&reply), "invalid-argument", "{reply}");
    }

    #[test]
    fn a_gate_runs_records_its_output_and_is_reused_while_fresh() {
        let dir = workspace();
        let gate = json!({
            "name": "test",
            "argv": ["sh", "-c", "echo checked; exit 0"],
            "scope": {"roots": ["src"]},
            "prerequisites": {"mode": {"literal": "ci"}},
        });
        let ran = call(&dir, "run_gate", gate.clone(), Case::Camel);
        let outcome = &ran["ok"];
        assert_eq!(
            (outcome["reused"].as_bool(), outcome["exitCode"].as_i64()),
            (Some(false), Some(0)),
            "{ran}"
        );
        let record = outcome["record"].as_str().unwrap();
        assert_eq!(outcome["evidence"]["exitStatus"], 0);
        assert_eq!(outcome["evidence"]["prerequisites"]["mode"], "ci");
        let again = call(&dir, "run_gate", gate.clone(), Case::Snake);
        assert_eq!(
            (
                again["ok"]["reused"].as_bool(),
                again["ok"]["exit_code"].as_i64()
            ),
            (Some(true), Some(0)),
            "{again}"
        );
        let mut check = gate.clone();
        check.as_object_mut().unwrap().remove("prerequisites");
        let fresh = call(&dir, "check_gate", check, Case::Snake);
        assert_eq!(
            fresh["ok"]["fresh"], false,
            "a prerequisite left out is a difference"
        );
        let latest = call(
            &dir,
            "latest_evidence",
            json!({"gate": "test"}),
            Case::Snake,
        );
        assert_eq!(latest["ok"]["record"], record);
        let output = call(&dir, "gate_output", json!({"gate": "test"}), Case::Snake);
        let bytes = STANDARD.decode(output["ok"].as_str().unwrap()).unwrap();
        assert_eq!(bytes, b"checked\n");
        let kept = call(
            &dir,
            "evidence_output",
            json!({"record": record}),
            Case::Snake,
        );
        assert_eq!(kept["ok"], output["ok"]);
        let never = call(&dir, "gate_output", json!({"gate": "lint"}), Case::Snake);
        assert_eq!(never["ok"], Value::Null);
        let bad = call(&dir, "evidence_output", json!({"record": "x"}), Case::Snake);
        assert_eq!(code(&bad), "bad-record-id");
        // An input changed: the evidence is stale, and says why.
        std::fs::write(dir.path().join("src/lib.txt"), "two\n").unwrap();
        let query = json!({"name": "test", "prerequisites": {"mode": {"literal": "ci"}}});
        let stale = call(&dir, "check_recorded_gate", query, Case::Snake);
        let reasons = stale["ok"]["reasons"].as_array().unwrap();
        assert_eq!(reasons[0]["reason"], "inputs-changed", "{stale}");
    }

    #[test]
    fn a_failing_gate_exits_with_its_status_and_bad_options_are_refused() {
        let dir = workspace();
        let failing =
            json!({"name": "t", "argv": ["sh", "-c", "exit 3"], "scope": {"roots": ["src"]}});
        let ran = call(&dir, "run_gate", failing.clone(), Case::Snake);
        assert_eq!(ran["ok"]["exit_code"], 3, "{ran}");
        let mut loud = failing.clone();
        loud["echo"] = json!("loud");
        let reply = call(&dir, "run_gate", loud, Case::Snake);
        assert_eq!(code(&reply), "invalid-argument");
        assert!(
            reply["error"]["message"].as_str().unwrap().contains("echo"),
            "{reply}"
        );
        let mut instant = failing.clone();
        instant["timeoutMs"] = json!(0);
        assert_eq!(
            code(&call(&dir, "run_gate", instant, Case::Camel)),
            "invalid-argument"
        );
        let mut normalized = failing;
        normalized["scope"] = json!({"tasks": ["src/lib.txt"]});
        assert_eq!(
            code(&call(&dir, "run_gate", normalized, Case::Snake)),
            "invalid-argument"
        );
        let alone = json!({"name": "t", "cwd": "src"});
        let reply = call(&dir, "check_recorded_gate", alone, Case::Snake);
        assert_eq!(code(&reply), "invalid-argument", "{reply}");
        let nested = json!({"name": "t", "argv": ["true"], "scope": {"root": ["src"]}});
        let reply = call(&dir, "check_gate", nested, Case::Snake);
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("scope.root"),
            "{reply}"
        );
    }

    #[test]
    fn declared_gates_are_listed_run_checked_and_run_all() {
        let dir = workspace();
        let none = call(&dir, "declared_gates", json!({}), Case::Snake);
        assert_eq!(none["ok"], json!([]));
        let reply = call(&dir, "run_declared_gates", json!({}), Case::Snake);
        assert_eq!(code(&reply), "invalid-argument", "{reply}");
        std::fs::write(
            dir.path().join("ledger.toml"),
            "[gates.lint]\ncommand = [\"true\"]\nroots = [\"src\"]\nenv-cmd = { v = \"echo 1\" }\n\
             [gates.test]\ncommand = [\"sh\", \"-c\", \"echo t\"]\nneeds = [\"lint\"]\ntimeout = \"1m\"\n",
        )
        .unwrap();
        let listed = call(&dir, "declared_gates", json!({}), Case::Camel);
        let names: Vec<&str> = listed["ok"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["lint", "test"]);
        assert_eq!(listed["ok"][1]["timeoutMs"], 60_000);
        assert_eq!(listed["ok"][0]["envCmd"], json!({"v": "echo 1"}));
        let ran = call(
            &dir,
            "run_declared_gate",
            json!({"name": "lint"}),
            Case::Snake,
        );
        assert_eq!(
            (
                ran["ok"]["reused"].as_bool(),
                ran["ok"]["exit_code"].as_i64()
            ),
            (Some(false), Some(0)),
            "{ran}"
        );
        let check = call(
            &dir,
            "check_declared_gate",
            json!({"name": "lint"}),
            Case::Snake,
        );
        assert_eq!(
            check["ok"]["reasons"][0]["reason"], "prerequisite-unverified",
            "{check}"
        );
        let given = json!({"name": "lint", "prerequisites": {"v": {"literal": "1"}}});
        let fresh = call(&dir, "check_declared_gate", given, Case::Snake);
        assert_eq!(fresh["ok"]["fresh"], true, "{fresh}");
        let all = call(&dir, "run_declared_gates", json!({}), Case::Camel);
        let statuses: Vec<&str> = all["ok"]["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["reused", "passed"], "{all}");
        assert_eq!(all["ok"]["exitCode"], 0);
        let given = json!({"prerequisites": {"v": {"literal": "1"}}});
        let checked = call(&dir, "check_declared_gates", given, Case::Snake);
        let fresh: Vec<(&str, bool)> = checked["ok"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["gate"].as_str().unwrap(), f["fresh"].as_bool().unwrap()))
            .collect();
        assert_eq!(fresh, [("lint", true), ("test", true)], "{checked}");
        let unverified = call(&dir, "check_declared_gates", json!({}), Case::Snake);
        assert_eq!(unverified["ok"][0]["fresh"], false, "{unverified}");
        let unknown = call(&dir, "run_declared_gate", json!({"name": "x"}), Case::Snake);
        assert_eq!(code(&unknown), "invalid-argument");
        std::fs::write(dir.path().join("ledger.toml"), "[gates.x]\n").unwrap();
        let bad = call(&dir, "declared_gates", json!({}), Case::Snake);
        assert_eq!(code(&bad), "bad-gate-declaration", "{bad}");
    }

    #[test]
    fn prerequisites_are_observed_as_a_gate_observes_them() {
        let observe = |prerequisites: Value| {
            let options = json!({ "prerequisites": prerequisites }).to_string();
            let reply = respond(None, "observe", &options, Case::Snake, &Hooks::default());
            serde_json::from_str::<Value>(&reply).unwrap()
        };
        let seen = observe(json!({
            "mode": {"literal": "ci"},
            "shell": {"command": "printf ' hi \\n'"},
            "unset": {"environment": "LEDGER_DOOR_TEST_SURELY_UNSET"},
        }));
        assert_eq!(
            seen["ok"],
            json!({"mode": "ci", "shell": "hi", "unset": null}),
            "{seen}"
        );
        let failed = observe(json!({"x": {"command": "exit 7"}}));
        assert_eq!(code(&failed), "prerequisite-failed");
        let two = observe(json!({"x": {"literal": "a", "command": "b"}}));
        assert_eq!(code(&two), "invalid-argument", "{two}");
    }
}
