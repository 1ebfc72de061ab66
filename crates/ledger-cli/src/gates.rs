//! The gate verbs: `gate run` (reuse fresh evidence or run and record) and
//! `gate check` (fresh or stale, with every reason).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

use camino::{Utf8Path, Utf8PathBuf};
use clap::{Args, Subcommand};
use ledger_core::{
    DisplayPath, Echo, Error, Freshness, GateQuery, GateSpec, Observe, RunOutcome, Scope,
    StaleReason, Store, check_gate_query, quote, run_gate,
};

use crate::report::{comparison_text, json_line};
use crate::scope_args::{ScopeArgs, default_workspace};

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
    /// The full gate spec `gate run` runs: every part from the command line.
    fn spec(&self) -> Result<GateSpec, Error> {
        let scope = self.scope()?.unwrap_or(self.scope.to_scope()?);
        let cwd = current_dir_in(&scope.resolve()?.workspace)?;
        GateSpec::new(
            &self.name,
            self.command.clone(),
            &cwd,
            scope,
            self.prerequisites()?,
        )
    }

    /// What `gate check` asks: the parts given on the command line; the core
    /// takes the rest from the evidence, and runs none of it.
    fn query(&self) -> Result<GateQuery, Error> {
        let scope = self.scope()?;
        // The caller's workspace: the one of the scope flags, else the default
        // (a scope file lies at or below it).
        let workspace = match (&self.scope_file, &scope) {
            (None, Some(flags)) => flags.workspace.clone(),
            _ => default_workspace()?,
        };
        let command = match self.command.is_empty() {
            true => None,
            false => {
                let inputs = scope.as_ref().map_or(&workspace, |s| &s.workspace);
                let cwd = current_dir_in(&Scope::new(inputs.clone()).resolve()?.workspace)?;
                Some((self.command.clone(), cwd))
            }
        };
        let observes = !(self.env.is_empty() && self.env_cmd.is_empty());
        Ok(GateQuery {
            name: self.name.clone(),
            workspace,
            scope,
            command,
            prerequisites: observes.then(|| self.prerequisites()).transpose()?,
        })
    }

    /// The scope the flags give: `None` when none is given (`gate check`
    /// then takes the recorded one). A scope file's workspace must be the
    /// caller's workspace or lie below it.
    fn scope(&self) -> Result<Option<Scope>, Error> {
        if let Some(file) = &self.scope_file {
            if !self.scope.is_empty() {
                return Err(usage(
                    "--scope-file replaces the scope flags; give one or the other",
                ));
            }
            let scope = Scope::read(file)?;
            scope.check_within(&default_workspace()?)?;
            return Ok(Some(scope));
        }
        match self.scope.is_empty() {
            true => Ok(None),
            false => self.scope.to_scope().map(Some),
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
    let spec = args.spec()?;
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
    let freshness = check_gate_query(&args.query()?)?;
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
        quote(e.spec.name()),
        e.duration_ms as f64 / 1000.0,
        e.fingerprint()
    );
    if let Some(why) = &e.not_reusable {
        // Built by the core for this run, its paths quoted.
        out.push_str(&format!("ledger: this evidence is not reusable: {why}\n"));
    }
    out
}

fn freshness_text(f: &Freshness) -> String {
    if f.fresh {
        let e = f.evidence.as_ref();
        return format!(
            "fresh: gate {} passed at {} on {}; reused, not run\n",
            quote(&f.gate),
            quote(e.map_or("?", |e| e.started_at.as_str())),
            e.map_or_else(|| "?".to_owned(), |e| e.fingerprint().to_string()),
        );
    }
    let mut out = format!("stale: gate {}\n", quote(&f.gate));
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
