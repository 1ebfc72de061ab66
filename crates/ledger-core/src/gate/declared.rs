//! Gates declared once (docs/gates.md, Declared gates): `ledger.toml` at the
//! top of the workspace names each gate's command, working directory, inputs,
//! prerequisites, timeout, output bound and the gates it needs, so that `gate
//! run NAME`, `gate check NAME` and `gate run --all` need nothing else.
//!
//! The file is untrusted input, like a scope file (SPEC §15): it is read
//! without following a symlink, only as a regular file, with a size bound, and
//! nothing it says runs unless the caller asked to run that gate. A check
//! ([`Declarations::query`]) observes environment variables and literals, never
//! a declared prerequisite command. The file is part of every declared gate's
//! scope, so editing a declaration makes the evidence stale.
//!
//! ```
//! use ledger_core::gate::{Declarations, Echo, RunOptions, run_declared};
//! use ledger_core::records::Store;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
//! std::fs::write(dir.path().join("lib.rs"), "fn main() {}\n")?;
//! std::fs::write(
//!     dir.path().join("ledger.toml"),
//!     "[gates.lint]\ncommand = [\"true\"]\nroots = [\"lib.rs\"]\n\n\
//!      [gates.test]\ncommand = [\"true\"]\nneeds = [\"lint\"]\n",
//! )?;
//! let declared = Declarations::read(workspace)?.ok_or("no ledger.toml")?;
//! let order: Vec<&str> = declared.gates().iter().map(|g| g.name.as_str()).collect();
//! assert_eq!(order, ["lint", "test"]);
//! let store = Store::open(workspace)?;
//! let options = RunOptions { echo: Echo::Off, ..RunOptions::default() };
//! let first = run_declared(&store, &declared, &options, &mut |_| {})?;
//! assert_eq!(first.exit_code, 0);
//! // Nothing changed: both are reused.
//! let again = run_declared(&store, &declared, &options, &mut |_| {})?;
//! assert!(again.runs.iter().all(|run| run.status == ledger_core::gate::DeclaredStatus::Reused));
//! # Ok(())
//! # }
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::scope::{Scope, ScopeLists};
use crate::gate::check::check_gate_query;
use crate::gate::evidence::{Freshness, GateQuery, GateSpec, Observe};
use crate::gate::output::OutputBound;
use crate::gate::process::RunOptions;
use crate::gate::run::{RunOutcome, run_gate_with};
use crate::own_file::read_in_workspace;
use crate::path::WorkspacePath;
use crate::quote::quote;
use crate::records::store::Store;

/// The file that declares gates, at the top of the workspace.
pub const DECLARATIONS_FILE: &str = "ledger.toml";

/// The most ledger reads of `ledger.toml`.
const DECLARATIONS_LIMIT: u64 = 1024 * 1024;

/// The file as written: `[gates.<name>]` tables and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    gates: BTreeMap<String, Table>,
}

/// One `[gates.<name>]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Table {
    command: Vec<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    repos: Vec<String>,
    #[serde(default)]
    roots: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    exclude: Vec<DeclaredExclusion>,
    #[serde(default)]
    env: Vec<String>,
    #[serde(default)]
    env_cmd: BTreeMap<String, String>,
    #[serde(default)]
    timeout: Option<String>,
    #[serde(default)]
    keep_output: Option<SizeText>,
    #[serde(default)]
    needs: Vec<String>,
    #[serde(default)]
    purpose: Option<String>,
}

/// A size as written: a string (`"4MiB"`) or a whole number of bytes
/// (`4096`), kept as its text for [`OutputBound::parse_described`].
struct SizeText(String);

impl<'de> Deserialize<'de> for SizeText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Size;
        impl serde::de::Visitor<'_> for Size {
            type Value = SizeText;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a size such as \"4MiB\" or a number of bytes")
            }
            fn visit_str<E: serde::de::Error>(
                self,
                text: &str,
            ) -> std::result::Result<SizeText, E> {
                Ok(SizeText(text.to_owned()))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<SizeText, E> {
                Ok(SizeText(n.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<SizeText, E> {
                Ok(SizeText(n.to_string()))
            }
        }
        d.deserialize_any(Size)
    }
}

/// A declared exclusion: a path or directory root left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeclaredExclusion {
    /// The workspace path or directory root.
    pub path: String,
    /// Why it is left out (required: an exclusion is a decision).
    pub reason: String,
}

/// A gate as `ledger.toml` declares it, validated: its spec builds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DeclaredGate {
    /// Its name (the table's key).
    pub name: String,
    /// The exact command and its arguments (`command`).
    pub command: Vec<String>,
    /// The working directory relative to the workspace, normalized (`cwd`, default `.`).
    pub cwd: String,
    /// Git repositories at or below the workspace (`repos`).
    pub repos: Vec<String>,
    /// Directory roots or single paths (`roots`; none: the whole workspace).
    pub roots: Vec<String>,
    /// Exact paths included regardless of Git (`paths`); `ledger.toml` itself
    /// is always one of the gate's inputs.
    pub paths: Vec<String>,
    /// Paths left out, each with its reason (`exclude`).
    pub exclude: Vec<DeclaredExclusion>,
    /// Environment prerequisites (`env`): `NAME` reads the variable, `NAME=VALUE` is a literal.
    pub env: Vec<String>,
    /// Prerequisites observed from a command's trimmed stdout (`env-cmd`: name → command).
    pub env_cmd: BTreeMap<String, String>,
    /// The run's time limit in milliseconds (`timeout`, e.g. `"10m"`).
    pub timeout_ms: Option<u64>,
    /// How many bytes of the run's output are kept (`keep-output`, e.g.
    /// `"4MiB"`; default 1 MiB).
    pub keep_output_bytes: Option<u64>,
    /// The gates that must pass before this one runs (`needs`).
    pub needs: Vec<String>,
    /// What the gate is for (`purpose`, stored in its scope).
    pub purpose: String,
}

impl DeclaredGate {
    /// The run's time limit, if declared.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout_ms.map(Duration::from_millis)
    }

    /// How much of the run's output is kept, if declared (a bound out of
    /// range, which [`Declarations::read`] never gives, is none).
    pub fn keep_output(&self) -> Option<OutputBound> {
        self.keep_output_bytes
            .and_then(|bytes| OutputBound::new(bytes).ok())
    }

    /// How each declared prerequisite is observed when the gate runs.
    pub fn prerequisites(&self) -> BTreeMap<String, Observe> {
        let mut out = self.observed_without_commands();
        for (name, command) in &self.env_cmd {
            out.insert(name.clone(), Observe::Command(command.clone()));
        }
        out
    }

    /// The declared prerequisites a check observes: variables and literals,
    /// and the declared commands only when `allow_commands` — the caller's
    /// explicit decision, since whoever writes the checkout chose them.
    pub fn checked_prerequisites(&self, allow_commands: bool) -> BTreeMap<String, Observe> {
        match allow_commands {
            true => self.prerequisites(),
            false => self.observed_without_commands(),
        }
    }

    /// The declared prerequisites a check may observe: variables and literals,
    /// never a command read from the file.
    fn observed_without_commands(&self) -> BTreeMap<String, Observe> {
        self.env
            .iter()
            .map(|item| match item.split_once('=') {
                Some((name, value)) => (name.to_owned(), Observe::Literal(value.to_owned())),
                None => (item.clone(), Observe::Environment(item.clone())),
            })
            .collect()
    }
}

/// The gates of a workspace's `ledger.toml`, in dependency order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declarations {
    /// The workspace whose top holds the file.
    pub workspace: Utf8PathBuf,
    /// The file, relative to the workspace (`ledger.toml`).
    pub file: String,
    /// Every declared gate, each after the gates it needs (ties by name).
    gates: Vec<DeclaredGate>,
    /// The settings of the workspace: every gate's scope carries them
    /// ([`Declarations::with_settings`]).
    settings: crate::Settings,
}

impl Declarations {
    /// The same gates, in a workspace of `settings`: their scopes carry them.
    pub fn with_settings(self, settings: crate::Settings) -> Declarations {
        Declarations { settings, ..self }
    }

    /// [`Declarations::read`] for a caller that needs gates declared (`gate
    /// run --all`, `gate check --all`): no `ledger.toml` is `invalid-argument`.
    pub fn read_required(workspace: &Utf8Path) -> Result<Declarations> {
        Declarations::read(workspace)?.ok_or_else(|| Error::InvalidArgument {
            message: format!(
                "{} declares no gate (there is no such file)",
                quote(workspace.join(DECLARATIONS_FILE).as_str())
            ),
        })
    }

    /// Reads `ledger.toml` at the top of `workspace`; `Ok(None)` when there is
    /// none. Read like a scope file (no symlink followed, a regular file,
    /// at most 1 MiB); an unknown key, a gate whose spec cannot be built, a
    /// `needs` naming an undeclared gate or an exclusion without a reason is
    /// `bad-gate-declaration`; gates that need each other in a cycle are
    /// `gate-cycle`.
    pub fn read(workspace: &Utf8Path) -> Result<Option<Declarations>> {
        let file = WorkspacePath::new(DECLARATIONS_FILE)?;
        let Some(bytes) = read_in_workspace(
            workspace.as_std_path(),
            &file,
            "gate declarations",
            DECLARATIONS_LIMIT,
        )?
        else {
            return Ok(None);
        };
        let shown = DisplayPath::from(workspace.join(DECLARATIONS_FILE).as_str());
        let bad = |reason: String| Error::BadGateDeclaration {
            path: shown.clone(),
            reason,
        };
        let text = std::str::from_utf8(&bytes).map_err(|e| bad(format!("not UTF-8 text ({e})")))?;
        let parsed: File = toml::from_str(text).map_err(|e| {
            // toml's message spans lines (it shows the source): one line here.
            bad(e.message().trim().to_owned() + &located(text, e.span()))
        })?;
        let mut gates = BTreeMap::new();
        for (name, table) in parsed.gates {
            let gate =
                declared(&name, table).map_err(|e| bad(format!("gate {}: {e}", quote(&name))))?;
            gates.insert(name, gate);
        }
        for gate in gates.values() {
            if let Some(missing) = gate.needs.iter().find(|n| !gates.contains_key(*n)) {
                return Err(bad(format!(
                    "gate {} needs {}, which is not declared",
                    quote(&gate.name),
                    quote(missing)
                )));
            }
        }
        let declarations = Declarations {
            workspace: workspace.to_owned(),
            file: DECLARATIONS_FILE.to_owned(),
            gates: in_dependency_order(gates)?,
            settings: crate::Settings::default(),
        };
        // Every spec must build now, so that a bad declaration is refused
        // whichever gate is asked for.
        for gate in &declarations.gates {
            declarations
                .spec(gate)
                .map_err(|e| bad(format!("gate {}: {e}", quote(&gate.name))))?;
        }
        Ok(Some(declarations))
    }

    /// Every declared gate, each after the gates it needs.
    pub fn gates(&self) -> &[DeclaredGate] {
        &self.gates
    }

    /// The declared gate `name`; `invalid-argument` (listing the declared
    /// ones) when there is none.
    pub fn gate(&self, name: &str) -> Result<&DeclaredGate> {
        self.gates
            .iter()
            .find(|g| g.name == name)
            .ok_or_else(|| Error::InvalidArgument {
                message: format!(
                    "gate {} is not declared in {} (declared: {})",
                    quote(name),
                    quote(self.workspace.join(&self.file).as_str()),
                    self.names()
                ),
            })
    }

    fn names(&self) -> String {
        match self.gates.is_empty() {
            true => "none".to_owned(),
            false => self
                .gates
                .iter()
                .map(|g| quote(&g.name).into_owned())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// The inputs of `gate`: its declared roots, paths and exclusions in the
    /// workspace, and `ledger.toml` itself.
    pub fn scope(&self, gate: &DeclaredGate) -> Result<Scope> {
        let mut paths = gate.paths.clone();
        paths.push(self.file.clone());
        let lists = ScopeLists {
            repositories: gate.repos.clone(),
            // No root: the whole workspace (the file alone is not "no root").
            roots: match gate.roots.is_empty() {
                true => vec![".".to_owned()],
                false => gate.roots.clone(),
            },
            paths,
            exclusions: gate
                .exclude
                .iter()
                .map(|e| (e.path.clone(), Some(e.reason.clone())))
                .collect(),
            tasks: Vec::new(),
            purpose: gate.purpose.clone(),
        };
        Ok(Scope::from_lists(self.workspace.clone(), &lists)?.with_settings(self.settings.clone()))
    }

    /// The full spec `gate run NAME` runs: every part as declared.
    pub fn spec(&self, gate: &DeclaredGate) -> Result<GateSpec> {
        GateSpec::new(
            &gate.name,
            gate.command.clone(),
            &gate.cwd,
            self.scope(gate)?,
            gate.prerequisites(),
        )
    }

    /// What `gate check NAME` asks: the declared scope, command and the
    /// prerequisites a check may observe (variables, literals). A declared
    /// `env-cmd` is not run: it is `prerequisite-unverified` unless the caller
    /// observes it (`prerequisites` given here replace declared ones by name).
    pub fn query(
        &self,
        gate: &DeclaredGate,
        given: &BTreeMap<String, Observe>,
    ) -> Result<GateQuery> {
        self.query_allowing(gate, given, false)
    }

    /// [`Declarations::query`], the declared commands observed too when
    /// `allow_commands` (the caller's explicit opt-in, never the file's).
    pub fn query_allowing(
        &self,
        gate: &DeclaredGate,
        given: &BTreeMap<String, Observe>,
        allow_commands: bool,
    ) -> Result<GateQuery> {
        let mut prerequisites = gate.checked_prerequisites(allow_commands);
        prerequisites.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
        let unobserved: BTreeSet<String> = gate
            .env_cmd
            .keys()
            .filter(|name| !prerequisites.contains_key(*name))
            .cloned()
            .collect();
        Ok(GateQuery {
            name: gate.name.clone(),
            workspace: self.workspace.clone(),
            scope: Some(self.scope(gate)?),
            command: Some((gate.command.clone(), gate.cwd.clone())),
            prerequisites: Some(prerequisites),
            unobserved,
            settings: self.settings.clone(),
        })
    }
}

/// ` (line L, column C)` of a byte span in `text`, or nothing.
fn located(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    let Some(span) = span else {
        return String::new();
    };
    let before = &text.as_bytes()[..span.start.min(text.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
    format!(" (line {line}, column {column})")
}

/// A table checked into a [`DeclaredGate`] (its spec is built afterwards).
fn declared(name: &str, t: Table) -> std::result::Result<DeclaredGate, String> {
    let timeout_ms = match &t.timeout {
        None => None,
        Some(text) => match humantime::parse_duration(text) {
            Ok(limit) if !limit.is_zero() => {
                Some(u64::try_from(limit.as_millis()).unwrap_or(u64::MAX))
            }
            Ok(_) => return Err("`timeout` must be longer than zero".to_owned()),
            Err(e) => {
                return Err(format!(
                    "`timeout` {}: {e} (e.g. \"90s\", \"10m\", \"1h 30m\")",
                    quote(text)
                ));
            }
        },
    };
    let keep_output = t
        .keep_output
        .as_ref()
        .map(|SizeText(text)| OutputBound::parse_described(text, "`keep-output`"))
        .transpose()?;
    if let Some(e) = t.exclude.iter().find(|e| e.reason.trim().is_empty()) {
        return Err(format!(
            "the exclusion of {} needs a reason",
            quote(&e.path)
        ));
    }
    if t.needs.iter().any(|n| n == name) {
        return Err("it needs itself".to_owned());
    }
    Ok(DeclaredGate {
        name: name.to_owned(),
        command: t.command,
        cwd: t.cwd.unwrap_or_else(|| ".".to_owned()),
        repos: t.repos,
        roots: t.roots,
        paths: t.paths,
        exclude: t.exclude,
        env: t.env,
        env_cmd: t.env_cmd,
        timeout_ms,
        keep_output_bytes: keep_output.map(OutputBound::bytes),
        needs: t
            .needs
            .into_iter()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        purpose: t.purpose.unwrap_or_default(),
    })
}

/// The gates ordered so that each comes after those it needs (Kahn's
/// algorithm, ties by name); `gate-cycle` naming those left when no more can
/// be ordered.
fn in_dependency_order(mut left: BTreeMap<String, DeclaredGate>) -> Result<Vec<DeclaredGate>> {
    let mut ordered: Vec<DeclaredGate> = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let ready = left
            .values()
            .find(|g| g.needs.iter().all(|n| ordered.iter().any(|o| &o.name == n)))
            .map(|g| g.name.clone());
        let Some(name) = ready else {
            return Err(Error::GateCycle {
                gates: left
                    .keys()
                    .map(|n| quote(n).into_owned())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        if let Some(gate) = left.remove(&name) {
            ordered.push(gate);
        }
    }
    Ok(ordered)
}

/// What became of one gate in a run of every declared gate (`gate run --all`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DeclaredStatus {
    /// Fresh evidence was reused: the command did not run.
    Reused,
    /// It ran and passed.
    Passed,
    /// It ran and did not pass (or ledger stopped it).
    Failed,
    /// Not run: a gate it needs did not pass.
    Blocked,
}

/// One gate of a run of every declared gate (`gate run --all`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DeclaredRun {
    /// The gate.
    pub gate: String,
    /// Reused, passed, failed or blocked.
    pub status: DeclaredStatus,
    /// What `gate run` would exit with for it (`None` when blocked).
    pub exit_code: Option<i32>,
    /// The gates it needs that did not pass (when blocked).
    pub blocked_by: Vec<String>,
    /// The run or the reuse (`None` when blocked).
    pub outcome: Option<RunOutcome>,
}

/// What a run of every declared gate (`gate run --all`) did, gate by gate in dependency order.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DeclaredRuns {
    /// Each declared gate, in the order it was considered.
    pub runs: Vec<DeclaredRun>,
    /// 0 when every gate was reused or passed; else the exit code of the first
    /// gate that failed, or 1 when only blocked ones are left.
    pub exit_code: i32,
}

/// Runs every declared gate in dependency order (`ledger gate run --all`):
/// each one fresh is reused, the others run; a gate whose needs did not all
/// pass is blocked, not run; gates that do not depend on a failure still run.
/// `options` supervise each run; a gate's declared timeout and output bound
/// apply unless `options` sets them. `done` is told of each gate as it is settled.
pub fn run_declared(
    store: &Store,
    declarations: &Declarations,
    options: &RunOptions,
    done: &mut dyn FnMut(&DeclaredRun),
) -> Result<DeclaredRuns> {
    let mut runs: Vec<DeclaredRun> = Vec::new();
    for gate in declarations.gates() {
        let blocked_by: Vec<String> = gate
            .needs
            .iter()
            .filter(|need| {
                !runs.iter().any(|r| {
                    &r.gate == *need
                        && matches!(r.status, DeclaredStatus::Reused | DeclaredStatus::Passed)
                })
            })
            .cloned()
            .collect();
        let run = if blocked_by.is_empty() {
            let spec = declarations.spec(gate)?;
            let options = RunOptions {
                timeout: options.timeout.or_else(|| gate.timeout()),
                keep_output: options.keep_output.or_else(|| gate.keep_output()),
                ..options.clone()
            };
            let outcome = run_gate_with(store, &spec, &options)?;
            let exit_code = outcome.exit_code();
            let status = match (outcome.reused, exit_code) {
                (true, _) => DeclaredStatus::Reused,
                (false, 0) => DeclaredStatus::Passed,
                (false, _) => DeclaredStatus::Failed,
            };
            // A run that exited 0 yet was stopped or is not reusable did not pass.
            let status = match status == DeclaredStatus::Passed && !outcome.evidence.passed() {
                true => DeclaredStatus::Failed,
                false => status,
            };
            DeclaredRun {
                gate: gate.name.clone(),
                status,
                exit_code: Some(exit_code),
                blocked_by,
                outcome: Some(outcome),
            }
        } else {
            DeclaredRun {
                gate: gate.name.clone(),
                status: DeclaredStatus::Blocked,
                exit_code: None,
                blocked_by,
                outcome: None,
            }
        };
        done(&run);
        runs.push(run);
    }
    let exit_code = runs
        .iter()
        .find(|r| r.status == DeclaredStatus::Failed)
        .map(|r| match r.exit_code {
            Some(0) | None => 1,
            Some(code) => code,
        })
        .or_else(|| {
            runs.iter()
                .any(|r| r.status == DeclaredStatus::Blocked)
                .then_some(1)
        })
        .unwrap_or(0);
    Ok(DeclaredRuns { runs, exit_code })
}

/// Whether the evidence of every declared gate is fresh (`ledger gate check
/// --all`), in dependency order, each asked as [`Declarations::query`] asks
/// it: nothing runs, a declared `env-cmd` not given is
/// `prerequisite-unverified`. A `given` prerequisite replaces the declared
/// one of that name in each gate that declares it, and is added to none (one
/// observation for many gates must not change what each depends on). All
/// are fresh exactly when every answer is.
pub fn check_declared(
    declarations: &Declarations,
    given: &BTreeMap<String, Observe>,
) -> Result<Vec<Freshness>> {
    crate::expand::opened_once(|| {
        declarations
            .gates()
            .iter()
            .map(|gate| {
                let declared = gate.prerequisites();
                let mut own = given.clone();
                own.retain(|name, _| declared.contains_key(name));
                check_gate_query(&declarations.query(gate, &own)?)
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::gate::Echo;

    fn workspace(toml: &str) -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.txt"), "one\n").unwrap();
        std::fs::write(dir.path().join(DECLARATIONS_FILE), toml).unwrap();
        let path = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        (dir, path)
    }

    fn quiet() -> RunOptions {
        RunOptions {
            echo: Echo::Off,
            ..RunOptions::default()
        }
    }

    #[test]
    fn a_declaration_gives_the_whole_spec_and_the_file_is_an_input() {
        let (_dir, ws) = workspace(
            r#"
[gates.test]
command = ["sh", "-c", "exit 0"]
cwd = "src/"
roots = ["src"]
exclude = [{ path = "src/gen", reason = "generated" }]
env = ["MODE=ci", "LEDGER_DECLARED_SURELY_UNSET"]
env-cmd = { shell = "echo hi" }
timeout = "1m 30s"
keep-output = "4MiB"
"#,
        );
        let declared = Declarations::read(&ws).unwrap().unwrap();
        let gate = declared.gate("test").unwrap();
        assert_eq!(gate.timeout_ms, Some(90_000));
        assert_eq!(gate.keep_output_bytes, Some(4 << 20));
        assert_eq!(gate.keep_output().map(OutputBound::bytes), Some(4 << 20));
        let spec = declared.spec(gate).unwrap();
        assert_eq!(spec.cwd(), "src");
        assert_eq!(spec.scope().roots(), ["src"]);
        let paths: Vec<&str> = spec.scope().paths().iter().map(|p| p.as_str()).collect();
        assert_eq!(paths, ["ledger.toml"]);
        let excluded = spec
            .scope()
            .exclusions()
            .iter()
            .find(|e| e.path == "src/gen");
        assert_eq!(excluded.unwrap().reason, "generated");
        assert_eq!(
            spec.prerequisites().get("shell"),
            Some(&Observe::Command("echo hi".into()))
        );
        assert_eq!(
            spec.prerequisites().get("MODE"),
            Some(&Observe::Literal("ci".into()))
        );
        let query = declared.query(gate, &BTreeMap::new()).unwrap();
        assert!(!query.prerequisites.as_ref().unwrap().contains_key("shell"));
        assert_eq!(query.unobserved, BTreeSet::from(["shell".to_owned()]));
        let err = declared.gate("lint").unwrap_err();
        assert_eq!(err.code(), "invalid-argument");
        assert!(err.to_string().contains("\"test\"") || err.to_string().contains("test"));
    }

    #[test]
    fn bad_declarations_are_refused_with_the_file_named() {
        for (toml, says) in [
            ("[gate.test]\ncommand = [\"true\"]\n", "unknown field"),
            (
                "[gates.test]\ncommand = [\"true\"]\nenv_cmd = {}\n",
                "unknown field",
            ),
            ("[gates.test]\ncommand = []\n", "argv is empty"),
            (
                "[gates.test]\ncommand = [\"true\"]\nneeds = [\"lint\"]\n",
                "not declared",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\nneeds = [\"test\"]\n",
                "needs itself",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\ncwd = \"../up\"\n",
                "test",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\ntimeout = \"soon\"\n",
                "timeout",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\ntimeout = \"0s\"\n",
                "zero",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\nkeep-output = \"0\"\n",
                "`keep-output` '0': a bound of zero",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\nkeep-output = \"lots\"\n",
                "`keep-output` 'lots'",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\nkeep-output = -1\n",
                "`keep-output` '-1'",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\nkeep-output = true\n",
                "a size",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\nexclude = [{ path = \"x\" }]\n",
                "reason",
            ),
            (
                "[gates.test]\ncommand = [\"true\"]\nexclude = [{ path = \"x\", reason = \" \" }]\n",
                "reason",
            ),
            ("[gates.test]\ncommand = \"true\"\n", "line 2"),
        ] {
            let (_dir, ws) = workspace(toml);
            let err = Declarations::read(&ws).unwrap_err();
            assert_eq!(err.code(), "bad-gate-declaration", "{toml}: {err}");
            let message = err.to_string();
            assert!(message.contains(says), "{toml}: {message}");
            assert!(
                message.contains("ledger.toml") && !message.contains('\n'),
                "{message}"
            );
        }
    }

    #[test]
    fn a_cycle_of_needs_is_refused_and_order_follows_needs() {
        let (_dir, ws) = workspace(
            "[gates.a]\ncommand = [\"true\"]\nneeds = [\"b\"]\n[gates.b]\ncommand = [\"true\"]\nneeds = [\"a\"]\n[gates.c]\ncommand = [\"true\"]\n",
        );
        let err = Declarations::read(&ws).unwrap_err();
        assert_eq!(err.code(), "gate-cycle");
        assert!(
            err.to_string().contains("a") && !err.to_string().contains("\"c\""),
            "{err}"
        );
        let (_dir, ws) = workspace(
            "[gates.a]\ncommand = [\"true\"]\nneeds = [\"z\"]\n[gates.z]\ncommand = [\"true\"]\n[gates.m]\ncommand = [\"true\"]\nneeds = [\"a\"]\n",
        );
        let declared = Declarations::read(&ws).unwrap().unwrap();
        let names: Vec<&str> = declared.gates().iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["z", "a", "m"]);
    }

    #[test]
    fn no_file_is_no_declarations_and_a_symlink_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Utf8PathBuf::from_path_buf(dir.path().to_owned()).unwrap();
        assert_eq!(Declarations::read(&ws).unwrap(), None);
        std::fs::write(
            dir.path().join("real.toml"),
            "[gates.t]\ncommand = [\"true\"]\n",
        )
        .unwrap();
        crate::platform::symlink("real.toml", dir.path().join(DECLARATIONS_FILE)).unwrap();
        let err = Declarations::read(&ws).unwrap_err();
        assert_eq!(err.code(), "unreadable", "{err}");
        assert!(err.to_string().contains("ledger.toml"), "{err}");
    }

    #[test]
    fn run_all_reuses_fresh_gates_and_blocks_what_needs_a_failure() {
        let (dir, ws) = workspace(
            r#"
[gates.lint]
command = ["sh", "-c", "test -f src/lib.txt"]
roots = ["src"]
[gates.test]
command = ["sh", "-c", "grep -q one src/lib.txt"]
roots = ["src"]
needs = ["lint"]
[gates.docs]
command = ["true"]
roots = ["src"]
needs = ["test"]
[gates.alone]
command = ["true"]
paths = []
roots = ["src"]
"#,
        );
        let declared = Declarations::read(&ws).unwrap().unwrap();
        let store = Store::open(&ws).unwrap();
        let first = run_declared(&store, &declared, &quiet(), &mut |_| {}).unwrap();
        let statuses: Vec<(&str, DeclaredStatus)> = first
            .runs
            .iter()
            .map(|r| (r.gate.as_str(), r.status))
            .collect();
        assert_eq!(
            statuses,
            [
                ("alone", DeclaredStatus::Passed),
                ("lint", DeclaredStatus::Passed),
                ("test", DeclaredStatus::Passed),
                ("docs", DeclaredStatus::Passed)
            ]
        );
        assert_eq!(first.exit_code, 0);
        let mut seen = Vec::new();
        let again = run_declared(&store, &declared, &quiet(), &mut |r| {
            seen.push(r.gate.clone())
        })
        .unwrap();
        assert!(
            again
                .runs
                .iter()
                .all(|r| r.status == DeclaredStatus::Reused)
        );
        assert_eq!(seen, ["alone", "lint", "test", "docs"]);
        // `test` now fails: `docs`, which needs it, is blocked; the others ran or were reused.
        std::fs::write(dir.path().join("src/lib.txt"), "two\n").unwrap();
        let failing = run_declared(&store, &declared, &quiet(), &mut |_| {}).unwrap();
        let statuses: Vec<DeclaredStatus> = failing.runs.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [
                DeclaredStatus::Passed,
                DeclaredStatus::Passed,
                DeclaredStatus::Failed,
                DeclaredStatus::Blocked
            ]
        );
        assert_eq!(failing.runs[3].blocked_by, ["test"]);
        assert_eq!(failing.exit_code, 1);
    }

    #[test]
    fn editing_the_file_makes_every_declared_gate_stale() {
        let (dir, ws) = workspace("[gates.t]\ncommand = [\"true\"]\nroots = [\"src\"]\n");
        let store = Store::open(&ws).unwrap();
        let declared = Declarations::read(&ws).unwrap().unwrap();
        run_declared(&store, &declared, &quiet(), &mut |_| {}).unwrap();
        std::fs::write(
            dir.path().join(DECLARATIONS_FILE),
            "# a comment\n[gates.t]\ncommand = [\"true\"]\nroots = [\"src\"]\n",
        )
        .unwrap();
        let declared = Declarations::read(&ws).unwrap().unwrap();
        let again = run_declared(&store, &declared, &quiet(), &mut |_| {}).unwrap();
        assert_eq!(again.runs[0].status, DeclaredStatus::Passed, "it ran again");
    }
}
