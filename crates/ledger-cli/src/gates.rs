//! The gate verbs: `gate run` (reuse fresh evidence or run and record) and
//! `gate check` (fresh or stale, with every reason).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

use camino::{Utf8Path, Utf8PathBuf};
use clap::{Args, Subcommand};
use ledger_core::{
    DisplayPath, Echo, Error, Freshness, GateSpec, Observe, RunOutcome, Scope, StaleReason, Store,
    check_gate, latest_evidence, run_gate,
};

use crate::report::{comparison_text, json_line};
use crate::scope_args::ScopeArgs;

#[derive(Subcommand)]
pub enum GateCommand {
    /// Reuse fresh evidence, or run the command (output streamed through) and
    /// record evidence whatever its exit status; exit with the command's status.
    Run(GateArgs),
    /// Answer whether the gate's evidence is fresh (exit 0) or stale (exit 1,
    /// with every reason) without running anything. Parts not given on the
    /// command line (scope, command, prerequisites) are taken from the evidence.
    Check(GateArgs),
}

#[derive(Args)]
pub struct GateArgs {
    /// The gate's name, e.g. `test`.
    #[arg(long, value_name = "N")]
    name: String,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Read the scope from a JSON file (a `Scope`; a relative workspace is
    /// relative to the file) instead of scope flags.
    #[arg(long, value_name = "F")]
    scope_file: Option<Utf8PathBuf>,
    /// A prerequisite: `NAME=VALUE` as given, or `NAME` to read the environment variable.
    #[arg(long = "env", value_name = "NAME[=VALUE]")]
    env: Vec<OsString>,
    /// A prerequisite observed from a command's trimmed stdout, e.g. `rustc='rustc --version'`.
    #[arg(long = "env-cmd", value_name = "NAME=COMMAND")]
    env_cmd: Vec<OsString>,
    /// Print a JSON summary on stdout (the command's own output then goes to stderr).
    #[arg(long)]
    json: bool,
    /// The command and its arguments.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

impl GateArgs {
    /// The gate spec the flags describe; parts they leave out come from `recorded`.
    fn spec(&self, recorded: Option<&GateSpec>) -> Result<GateSpec, Error> {
        let scope = self.scope(recorded)?;
        // The command runs where it was given; a recorded command where it was recorded.
        let (argv, cwd) = match (self.command.is_empty(), recorded) {
            (true, Some(spec)) => (spec.argv().to_vec(), spec.cwd().to_owned()),
            _ => (
                self.command.clone(),
                current_dir_in(&scope.resolve()?.workspace)?,
            ),
        };
        let prerequisites = match (self.env.is_empty() && self.env_cmd.is_empty(), recorded) {
            (true, Some(spec)) => spec.prerequisites().clone(),
            _ => self.prerequisites()?,
        };
        GateSpec::new(&self.name, argv, &cwd, scope, prerequisites)
    }

    fn scope(&self, recorded: Option<&GateSpec>) -> Result<Scope, Error> {
        if let Some(file) = &self.scope_file {
            if !self.scope.is_empty() {
                return Err(usage(
                    "--scope-file replaces the scope flags; give one or the other",
                ));
            }
            return read_scope_file(file);
        }
        match recorded {
            Some(spec) if self.scope.is_empty() => Ok(spec.scope().clone()),
            _ => self.scope.to_scope(),
        }
    }

    fn prerequisites(&self) -> Result<BTreeMap<String, Observe>, Error> {
        let mut out = BTreeMap::new();
        for item in &self.env {
            let item = exact_text(item, "--env")?;
            match item.split_once('=') {
                Some((name, value)) => {
                    out.insert(name.to_owned(), Observe::Literal(value.to_owned()))
                }
                None => out.insert(item.to_owned(), Observe::Environment(item.to_owned())),
            };
        }
        for item in &self.env_cmd {
            let (name, command) = exact_text(item, "--env-cmd")?
                .split_once('=')
                .ok_or_else(|| usage("--env-cmd takes NAME=COMMAND"))?;
            out.insert(name.to_owned(), Observe::Command(command.to_owned()));
        }
        Ok(out)
    }
}

/// A prerequisite argument as UTF-8 text: one that is not is `non-utf8-value`
/// naming its bytes, never a lossy value.
fn exact_text<'a>(arg: &'a OsStr, flag: &str) -> Result<&'a str, Error> {
    arg.to_str().ok_or_else(|| Error::NonUtf8Value {
        what: format!("the {flag} argument"),
        value: DisplayPath::from_bytes(arg.as_bytes()).0,
    })
}

fn usage(message: &str) -> Error {
    Error::InvalidArgument {
        message: message.to_owned(),
    }
}

/// A scope from a JSON file; a relative workspace is relative to the file.
fn read_scope_file(file: &Utf8Path) -> Result<Scope, Error> {
    let text = std::fs::read_to_string(file).map_err(|source| Error::Unreadable {
        path: DisplayPath::from(file.as_str()),
        operation: "read scope file",
        source,
    })?;
    let mut scope = Scope::from_json(&text, file.as_str())?;
    if scope.workspace.is_relative() {
        let base = file
            .parent()
            .filter(|p| !p.as_str().is_empty())
            .unwrap_or(Utf8Path::new("."));
        scope.workspace = base.join(&scope.workspace);
    }
    Ok(scope)
}

/// The current directory relative to the (absolute) workspace: `.` or a path,
/// byte-exact (a directory name that is not UTF-8 is refused, never decoded lossily).
fn current_dir_in(workspace: &Utf8Path) -> Result<String, Error> {
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .map_err(|source| Error::Unreadable {
            path: ".".into(),
            operation: "find the current directory",
            source,
        })?;
    let shown = |path: &std::path::Path| DisplayPath::from_bytes(path.as_os_str().as_bytes());
    let relative =
        cwd.strip_prefix(workspace.as_std_path())
            .map_err(|_| Error::OutsideWorkspace {
                path: shown(&cwd),
                reason: "a gate runs inside its workspace",
            })?;
    match relative.to_str() {
        Some("") => Ok(".".to_owned()),
        Some(text) => Ok(text.to_owned()),
        None => Err(Error::NonUtf8Path {
            path: shown(relative),
        }),
    }
}

pub fn run(command: GateCommand) -> Result<(String, ExitCode), Error> {
    match command {
        GateCommand::Run(args) => gate_run(&args),
        GateCommand::Check(args) => gate_check(&args),
    }
}

fn gate_run(args: &GateArgs) -> Result<(String, ExitCode), Error> {
    if args.command.is_empty() {
        return Err(usage("gate run needs the command after `--`"));
    }
    let spec = args.spec(None)?;
    let echo = if args.json {
        Echo::Stderr
    } else {
        Echo::Passthrough
    };
    let outcome = run_gate(&Store::of_scope(spec.scope())?, &spec, echo)?;
    let code = ExitCode::from(u8::try_from(outcome.exit_code()).unwrap_or(1));
    if args.json {
        return Ok((json_line(&outcome), code));
    }
    eprint!("{}", run_summary(&outcome));
    Ok((String::new(), code))
}

fn gate_check(args: &GateArgs) -> Result<(String, ExitCode), Error> {
    let store = Store::of_scope(&args.scope(None)?)?;
    let recorded = latest_evidence(&store, &args.name)?.map(|(_, e)| e.spec);
    let freshness = match recorded {
        // Nothing to take a left-out command from, and nothing to compare with.
        None if args.command.is_empty() => Freshness::no_evidence(&args.name),
        recorded => check_gate(&store, &args.spec(recorded.as_ref())?)?,
    };
    let code = ExitCode::from(if freshness.fresh { 0 } else { 1 });
    let text = if args.json {
        json_line(&freshness)
    } else {
        freshness_text(&freshness)
    };
    Ok((text, code))
}

fn run_summary(outcome: &RunOutcome) -> String {
    if outcome.reused {
        return format!(
            "ledger: {}\n",
            freshness_text(&outcome.freshness).trim_end()
        );
    }
    let Some(e) = &outcome.evidence else {
        return String::new();
    };
    let status = e.exit_status.map_or_else(
        || "was killed by a signal".to_owned(),
        |c| format!("exited {c}"),
    );
    let mut out = format!(
        "ledger: gate {} {status} after {:.1} s; evidence recorded on {}\n",
        e.spec.name(),
        e.duration_ms as f64 / 1000.0,
        e.fingerprint()
    );
    if let Some(why) = &e.not_reusable {
        out.push_str(&format!("ledger: this evidence is not reusable: {why}\n"));
    }
    out
}

fn freshness_text(f: &Freshness) -> String {
    if f.fresh {
        let e = f.evidence.as_ref();
        return format!(
            "fresh: gate {} passed at {} on {}; reused, not run\n",
            f.gate,
            e.map_or("?", |e| e.started_at.as_str()),
            e.map_or_else(|| "?".to_owned(), |e| e.fingerprint().to_string()),
        );
    }
    let mut out = format!("stale: gate {}\n", f.gate);
    for reason in &f.reasons {
        out.push_str(&format!("  - {reason}\n"));
        if let StaleReason::InputsChanged { comparison } = reason {
            for line in comparison_text(comparison).lines().skip(3) {
                out.push_str(&format!("    {line}\n"));
            }
        }
    }
    out
}
