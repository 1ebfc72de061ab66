//! The gate verbs: `gate run` (reuse fresh evidence or run and record) and
//! `gate check` (fresh or stale, with every reason).

use ledger_core::{OsStrBytes, Settings};
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::process::ExitCode;

use camino::{Utf8Path, Utf8PathBuf};
use clap::{Args, Subcommand};
use std::io::Write;

use ledger_core::{
    DisplayPath, Error,
    expand::Scope,
    gate::{
        Declarations, DeclaredGate, Echo, GateOutput, GateQuery, GateSpec, Observe, OutputBound,
        RunOptions, RunOutcome, check_declared, check_gate_query, evidence_output, gate_output,
        run_declared, run_gate_with, wrapper_exit_code,
    },
    quote::quote,
    records::Store,
};

use crate::report::json_line;
use crate::scope_args::{ScopeArgs, default_workspace};
use ledger_core::door::text;

/// The exit statuses of `gate run`, after the wrapper convention of `env`,
/// `timeout` and `xargs`, so that a gate's own status is never taken for
/// ledger's.
const RUN_EXIT_CODES: &str = "\
Exit codes:
  0        fresh evidence was reused (the command did not run), or it exited 0
  1-124    the command's own exit status
  125      ledger itself failed (bad usage, a bad global option such as
           --threads, a blocking condition, a refused record, an output that
           cannot be written); stderr says `error[<code>]: <message>`
  126      the command was found but cannot be executed
  127      the command was not found
  124      --timeout expired (the command was stopped, as timeout(1) reports)
  128+N    the command was killed by signal N
A command that exits 125-127 or above 128 itself is reported as it exited.";

#[derive(Subcommand)]
#[command(defer = true)]
pub enum GateCommand {
    /// Reuse fresh evidence, or run the command (output streamed through) and
    /// record evidence whatever its exit status; exit with the command's status.
    ///
    /// The command runs in a process group of its own: SIGINT, SIGTERM and
    /// SIGHUP sent to ledger are forwarded to that group, ledger waits for the
    /// command and records the run as not reusable. When the command ends,
    /// what it left in its group is stopped (SIGTERM, SIGKILL 2 s later), and
    /// its pipes are read for at most 1 s more. Its output is kept whole up to
    /// 1 MiB, or `--keep-output SIZE` (`ledger gate show NAME` prints it).
    ///
    /// A gate declared in the workspace's `ledger.toml` (docs/gates.md,
    /// Declared gates) takes its command, directory, inputs, prerequisites,
    /// timeout and output bound from there: `ledger gate run test`; flags
    /// given still override
    /// (scope flags or `--scope-file` replace the declared inputs, `-- CMD`
    /// the command, `--env`/`--env-cmd` a prerequisite of the same name).
    /// `--all` runs every declared gate in dependency order, reusing the fresh
    /// ones and saying so; a gate whose needs did not pass is not run.
    #[command(after_help = RUN_EXIT_CODES)]
    Run(RunArgs),
    /// Answer whether the gate's evidence is fresh (exit 0) or stale (exit 1,
    /// with every reason) without running the gate.
    ///
    /// The scope and command not given on the command line are taken from the
    /// evidence (the command is compared, never run). Prerequisites are
    /// observed only as given now (`--env`, `--env-cmd`): a recorded one not
    /// given is `prerequisite-unverified`, because a check never runs a command
    /// read from the store.
    ///
    /// A gate declared in `ledger.toml` is checked as declared (scope,
    /// command, `env` variables and literals); a declared `env-cmd` is not run
    /// by a check: it is `prerequisite-unverified` unless `--env-cmd` gives it.
    ///
    /// `--all` checks every declared gate, in dependency order, each as
    /// `gate check NAME` would: exit 0 when all are fresh.
    #[command(after_help = crate::exit_codes::GATE_CHECK)]
    Check(CheckArgs),
    /// Print the output the gate's latest run kept, raw bytes exactly as the
    /// command wrote them (stdout and stderr in the order ledger read them).
    ///
    /// An output longer than its bound (1 MiB unless `--keep-output` or
    /// `keep-output` set another) was kept as its first quarter and its last
    /// three quarters, with a line between them, part of the kept output:
    /// `[ledger: output elided: bytes A..B (lines L to M) of N bytes dropped;
    /// the start and the end are kept]`. Exits 0, or 2 on an error.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Show(ShowArgs),
    /// Record how far back reuse of the gate's evidence reaches: from now on
    /// only its newest N runs are reused (any earlier run whose scope,
    /// fingerprint, prerequisites, argv and cwd match is reused otherwise).
    /// Nothing is deleted; the policy is a record of its own.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Prune(PruneArgs),
}

#[derive(Args)]
pub struct PruneArgs {
    /// The gate's name, e.g. `test`.
    #[arg(value_name = "NAME")]
    name: String,
    /// How many of its newest runs may be reused (at least 1).
    #[arg(long, value_name = "N")]
    keep_newest: u64,
    /// Why (recorded with the policy).
    #[arg(long, value_name = "TEXT")]
    because: String,
    /// The workspace whose store holds the evidence [default: the top of the
    /// enclosing Git checkout, else the current directory].
    #[arg(long, value_name = "DIR")]
    workspace: Option<Utf8PathBuf>,
}

#[derive(Args)]
pub struct ShowArgs {
    /// The gate's name, e.g. `test`.
    #[arg(value_name = "NAME")]
    name: String,
    /// The workspace whose store holds the evidence [default: the top of the
    /// enclosing Git checkout, else the current directory].
    #[arg(long, value_name = "DIR")]
    workspace: Option<Utf8PathBuf>,
}

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    gate: GateArgs,
    /// Bound the whole run by DURATION (e.g. `90s`, `10m`, `1h 30m`),
    /// whoever holds the command's pipes: its process group gets SIGTERM,
    /// then SIGKILL 2 s later; the run is recorded as failed and not
    /// reusable, and exits 124.
    #[arg(long, value_name = "DURATION")]
    timeout: Option<String>,
    /// Keep at most SIZE of the command's output (default 1MiB, at most
    /// 1GiB): `4096`, `64KiB`, `4MiB`, `10MB`. A longer output keeps its
    /// first quarter and its last three quarters, and a line between them
    /// says which bytes and lines were dropped (`ledger gate show` prints
    /// it). With `--all`, for every gate (over its declared `keep-output`).
    #[arg(long, value_name = "SIZE")]
    keep_output: Option<String>,
    /// When fresh evidence is reused, print the output its run kept, where
    /// the command's output would have gone.
    #[arg(long)]
    replay: bool,
    /// Run every gate `ledger.toml` declares, in dependency order: fresh ones
    /// are reused (and said so), the others run; one whose needs did not pass
    /// is not run. Exits 0 when all passed or were reused, else the status of
    /// the first that failed (1 when only blocked ones are left).
    #[arg(long, conflicts_with_all = ["name", "gate", "scope_file", "env", "env_cmd", "command"])]
    all: bool,
}

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    gate: GateArgs,
    /// Check every gate `ledger.toml` declares, in dependency order (`--env`
    /// and `--env-cmd` observe a prerequisite for each gate that declares
    /// it). Exits 0 when every one is fresh, else 1.
    #[arg(long, conflicts_with_all = ["name", "gate", "scope_file", "command"])]
    all: bool,
}

#[derive(Args)]
pub struct GateArgs {
    /// The gate's name, e.g. `test` (or `--name test`).
    #[arg(value_name = "NAME")]
    gate: Option<String>,
    /// The gate's name, as the positional NAME.
    #[arg(long, value_name = "N")]
    name: Option<String>,
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

/// A gate of `ledger.toml` and the declarations it belongs to.
type Declared = (Declarations, DeclaredGate);

impl GateArgs {
    /// The gate's name: NAME or `--name` (one of them, or both alike).
    fn name(&self) -> Result<&str, Error> {
        match (&self.gate, &self.name) {
            (Some(a), Some(b)) if a != b => Err(usage("NAME and --name name two gates; give one")),
            (Some(name), _) | (None, Some(name)) => Ok(name),
            (None, None) => Err(usage("name the gate: NAME or --name NAME")),
        }
    }

    /// The declaration of the gate in the workspace's `ledger.toml`, if it
    /// declares it. A `ledger.toml` that is not valid is refused whatever the
    /// gate; with `required`, a gate it does not declare is too.
    fn declared(&self, required: bool, settings: &Settings) -> Result<Option<Declared>, Error> {
        let name = self.name()?;
        let Some(declarations) = Declarations::read(&self.scope.workspace()?)?
            .map(|d| d.with_settings(settings.clone()))
        else {
            return Ok(None);
        };
        let gate = match declarations.gate(name) {
            Ok(gate) => gate.clone(),
            Err(e) if required => return Err(e),
            Err(_) => return Ok(None),
        };
        Ok(Some((declarations, gate)))
    }

    /// The full gate spec `gate run` runs: every part from the command line,
    /// or, for a declared gate, what the command line leaves out from its
    /// declaration.
    fn spec(&self, declared: Option<&Declared>, settings: &Settings) -> Result<GateSpec, Error> {
        let name = self.name()?;
        let scope = match (self.scope(declared.is_some(), settings)?, declared) {
            (Some(scope), _) => scope,
            (None, Some((declarations, gate))) => declarations.scope(gate)?,
            (None, None) => self.scope.to_scope(settings)?,
        };
        let (argv, cwd) = match declared {
            Some((_, gate)) if self.command.is_empty() => (gate.command.clone(), gate.cwd.clone()),
            _ => (
                self.command.clone(),
                current_dir_in(scope.resolve()?.workspace())?,
            ),
        };
        let mut prerequisites = declared.map(|(_, g)| g.prerequisites()).unwrap_or_default();
        prerequisites.extend(self.prerequisites()?);
        GateSpec::new(name, argv, &cwd, scope, prerequisites)
    }

    /// What `gate check` asks: the parts given on the command line; the core
    /// takes the rest from the evidence, and runs none of it. A declared gate
    /// is asked about as declared, flags overriding.
    fn query(&self, settings: &Settings) -> Result<GateQuery, Error> {
        if let Some((declarations, gate)) = self.declared(false, settings)? {
            let mut query = declarations.query(&gate, &self.prerequisites()?)?;
            if let Some(scope) = self.scope(true, settings)? {
                query.scope = Some(scope);
            }
            if !self.command.is_empty() {
                let inputs = query
                    .scope
                    .as_ref()
                    .map_or(query.workspace.as_path(), |s| s.workspace());
                let cwd = current_dir_in(Scope::new(inputs).resolve()?.workspace())?;
                query.command = Some((self.command.clone(), cwd));
            }
            return Ok(query);
        }
        let scope = self.scope(false, settings)?;
        // The caller's workspace: the one of the scope flags, else the default
        // (a scope file lies at or below it).
        let workspace = match (&self.scope_file, &scope) {
            (None, Some(flags)) => flags.workspace().to_owned(),
            _ => default_workspace()?,
        };
        let command = match self.command.is_empty() {
            true => None,
            false => {
                let inputs = scope
                    .as_ref()
                    .map_or(workspace.as_path(), |s| s.workspace());
                let cwd = current_dir_in(Scope::new(inputs).resolve()?.workspace())?;
                Some((self.command.clone(), cwd))
            }
        };
        let observes = !(self.env.is_empty() && self.env_cmd.is_empty());
        Ok(GateQuery {
            name: self.name()?.to_owned(),
            workspace,
            scope,
            command,
            prerequisites: observes.then(|| self.prerequisites()).transpose()?,
            unobserved: Default::default(),
            settings: settings.clone(),
        })
    }

    /// The scope the flags give: `None` when none is given (`gate check`
    /// then takes the recorded one). A scope file's workspace must be the
    /// caller's workspace or lie below it.
    fn scope(&self, declared: bool, settings: &Settings) -> Result<Option<Scope>, Error> {
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
        // `--workspace` alone selects no inputs: a declared gate keeps its own.
        let given = match declared {
            true => self.scope.selects(),
            false => !self.scope.is_empty(),
        };
        match given {
            false => Ok(None),
            true => self.scope.to_scope(settings).map(Some),
        }
    }

    fn prerequisites(&self) -> Result<BTreeMap<String, Observe>, Error> {
        prerequisites_of(&self.env, &self.env_cmd)
    }
}

/// The prerequisites `--env NAME[=VALUE]` and `--env-cmd NAME=COMMAND` give,
/// as `gate run` and `gate check` take them (a validation takes the same, per gate).
pub(crate) fn prerequisites_of(
    env: &[OsString],
    env_cmd: &[OsString],
) -> Result<BTreeMap<String, Observe>, Error> {
    let mut out = BTreeMap::new();
    for item in env {
        let item = exact_text(item, "--env")?;
        match item.split_once('=') {
            Some((name, value)) => out.insert(name.to_owned(), Observe::Literal(value.to_owned())),
            None => out.insert(item.to_owned(), Observe::Environment(item.to_owned())),
        };
    }
    for item in env_cmd {
        let (name, command) = exact_text(item, "--env-cmd")?
            .split_once('=')
            .ok_or_else(|| usage("--env-cmd takes NAME=COMMAND"))?;
        out.insert(name.to_owned(), Observe::Command(command.to_owned()));
    }
    Ok(out)
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

pub fn run(command: GateCommand, settings: &Settings) -> Result<(String, ExitCode), Error> {
    match command {
        GateCommand::Run(args) => gate_run(&args, settings),
        GateCommand::Check(args) => gate_check(&args, settings),
        // Printed by `show`, bytes rather than text; main routes it there.
        GateCommand::Show(_) => Ok((String::new(), ExitCode::SUCCESS)),
        GateCommand::Prune(args) => prune(&args, settings),
    }
}

/// `gate prune`: records the reuse policy.
fn prune(args: &PruneArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let workspace = match &args.workspace {
        Some(dir) => dir.clone(),
        None => default_workspace()?,
    };
    let store = Store::of_scope(&Scope::new(workspace).with_settings(settings.clone()))?;
    let record =
        ledger_core::gate::limit_reuse(&store, &args.name, args.keep_newest, &args.because)?;
    let text = format!(
        "gate {}: only its newest {} run(s) are reused from now on (policy {record})\n",
        quote(&args.name),
        args.keep_newest
    );
    Ok((text, ExitCode::SUCCESS))
}

/// `gate show`: the kept output of the gate's latest run, read whole before
/// anything is printed (an error leaves stdout empty).
pub fn show(args: &ShowArgs, settings: &Settings) -> Result<GateOutput, Error> {
    let workspace = match &args.workspace {
        Some(dir) => dir.clone(),
        None => default_workspace()?,
    };
    let store = Store::of_scope(&Scope::new(workspace).with_settings(settings.clone()))?;
    gate_output(&store, &args.name)?.ok_or_else(|| Error::InvalidArgument {
        message: format!(
            "gate {} has no evidence: it never ran here",
            quote(&args.name)
        ),
    })
}

/// Writes a kept output raw, to stdout or stderr. Where bytes were dropped,
/// the kept bytes say so (the elision marker between the head and the
/// tail); those of a run recorded before the marker have a line on stderr
/// written there instead.
///
/// A reader that closed its end of the pipe early (`gate show | head -1`)
/// ends the output there, and that is no failure: the exit status stays the
/// answer's (issue 42; `answer` in main.rs says the same of every verb).
pub fn print_output(output: &GateOutput, to_stdout: bool) -> std::io::Result<()> {
    match write_output(output, to_stdout) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        written => written,
    }
}

fn write_output(output: &GateOutput, to_stdout: bool) -> std::io::Result<()> {
    let mut to: Box<dyn Write> = match to_stdout {
        true => Box::new(std::io::stdout().lock()),
        false => Box::new(std::io::stderr().lock()),
    };
    to.write_all(output.head())?;
    to.flush()?;
    if let Some(cut) = output.kept.truncated.filter(|cut| cut.marker_bytes == 0) {
        crate::hints::to_stderr(&format!(
            "ledger: [{} bytes of output dropped here: kept the first {} and the last {} of {} bytes]\n",
            cut.dropped_bytes,
            cut.head_bytes,
            output.tail().len(),
            output.kept.total_bytes
        ));
    }
    to.write_all(output.tail())?;
    to.flush()?;
    if output.kept.incomplete {
        crate::hints::to_stderr(
            "ledger: [the output may go on: ledger stopped reading it when the run was over]\n",
        );
    }
    Ok(())
}

/// `gate run`: exits with the command's status; ledger's own failures are
/// reported here, with the wrapper convention's 125/126/127.
fn gate_run(args: &RunArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    match run_supervised(args, settings) {
        Ok(done) => Ok(done),
        Err(e) => {
            crate::hints::print_error(&e);
            Ok((String::new(), ExitCode::from(wrapper_exit_code(&e))))
        }
    }
}

fn run_supervised(args: &RunArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let gate = &args.gate;
    let mut options = RunOptions {
        echo: if gate.json {
            Echo::Stderr
        } else {
            Echo::Passthrough
        },
        timeout: args.timeout.as_deref().map(parse_timeout).transpose()?,
        forward_signals: true,
        interrupt: None,
        keep_output: args
            .keep_output
            .as_deref()
            .map(|size| OutputBound::parse(size, "--keep-output"))
            .transpose()?,
    };
    if args.all {
        return run_all(args, &options, settings);
    }
    let declared = gate.declared(gate.command.is_empty(), settings)?;
    if gate.command.is_empty() && declared.is_none() {
        return Err(usage(
            "gate run needs the command after `--`, or a gate declared in ledger.toml",
        ));
    }
    let spec = gate.spec(declared.as_ref(), settings)?;
    if options.timeout.is_none() {
        options.timeout = declared.as_ref().and_then(|(_, g)| g.timeout());
    }
    if options.keep_output.is_none() {
        options.keep_output = declared.as_ref().and_then(|(_, g)| g.keep_output());
    }
    let store = Store::of_scope(spec.scope())?;
    let outcome = run_gate_with(&store, &spec, &options)?;
    let code = ExitCode::from(u8::try_from(outcome.exit_code()).unwrap_or(125));
    if args.replay {
        replay(&store, &outcome, gate.json)?;
    }
    if gate.json {
        return Ok((json_line(&outcome), code));
    }
    crate::hints::to_stderr(&text::run_outcome(&outcome));
    Ok((String::new(), code))
}

/// With `--replay`, the output a reused run kept, where the command's output
/// would have gone.
fn replay(store: &Store, outcome: &RunOutcome, json: bool) -> Result<(), Error> {
    if let (true, Some(record), Some(evidence)) = (
        outcome.reused,
        outcome.freshness.record,
        outcome.freshness.evidence.as_ref(),
    ) {
        let output = evidence_output(store, record, evidence)?;
        print_output(&output, !json).map_err(|e| Error::Unwritable {
            path: "-".into(),
            operation: "replay the gate's output to",
            source: e,
        })?;
    }
    Ok(())
}

/// `gate run --all`: every declared gate in dependency order, each said
/// as it is settled (ran, reused, or not run for a need that did not pass).
fn run_all(
    args: &RunArgs,
    options: &RunOptions,
    settings: &Settings,
) -> Result<(String, ExitCode), Error> {
    if args.gate.scope.selects() {
        return Err(usage(
            "--all runs the gates as ledger.toml declares them: give no scope flags",
        ));
    }
    let workspace = args.gate.scope.workspace()?;
    let declarations = Declarations::read_required(&workspace)?.with_settings(settings.clone());
    let store = Store::open(&workspace)?.with_settings(settings.clone());
    let json = args.gate.json;
    let mut failure = None;
    let runs = run_declared(&store, &declarations, options, &mut |run| {
        if failure.is_some() {
            return;
        }
        if args.replay
            && let Some(outcome) = &run.outcome
            && let Err(e) = replay(&store, outcome, json)
        {
            failure = Some(e);
        }
        if !json {
            crate::hints::to_stderr(&text::declared_run(run));
        }
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    let code = ExitCode::from(u8::try_from(runs.exit_code).unwrap_or(125));
    if json {
        return Ok((json_line(&runs), code));
    }
    crate::hints::to_stderr(&text::declared_runs(&runs));
    Ok((String::new(), code))
}

/// `--timeout` in humantime's format; zero is refused (it would stop every gate).
fn parse_timeout(text: &str) -> Result<std::time::Duration, Error> {
    match humantime::parse_duration(text) {
        Ok(limit) if !limit.is_zero() => Ok(limit),
        Ok(_) => Err(usage("--timeout must be longer than zero")),
        Err(e) => Err(Error::InvalidArgument {
            message: format!("--timeout {}: {e} (e.g. 90s, 10m, 1h 30m)", quote(text)),
        }),
    }
}

/// The exit status of a failure outside the verb (a usage error, a bad
/// global option, stdout that cannot be written): 125 for `gate run`
/// (ledger's own failure, apart from the command's statuses), otherwise
/// `None` (the usual 2).
pub fn own_failure_exit_code() -> Option<u8> {
    is_gate_run(std::env::args_os().skip(1)).then_some(125)
}

/// Whether the command line names `gate run`, whatever global options come
/// before or between (`--threads N`, `--threads=N`, `--no-cache`,
/// `--signing-key FILE`): its first two words that are neither options nor
/// a global option's value.
fn is_gate_run(args: impl Iterator<Item = OsString>) -> bool {
    let with_a_value = crate::parse::options_with_a_value();
    let mut words = Vec::new();
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        match arg.as_bytes() {
            b"--" => break,
            _ if with_a_value.iter().any(|option| arg == option.as_str()) => {
                args.next();
            }
            word if word.starts_with(b"-") => {}
            _ => words.push(arg),
        }
        if words.len() == 2 {
            break;
        }
    }
    words == ["gate", "run"]
}

fn gate_check(args: &CheckArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    if args.all {
        return check_all(&args.gate, settings);
    }
    let args = &args.gate;
    let freshness = check_gate_query(&args.query(settings)?)?;
    let code = ExitCode::from(if freshness.fresh { 0 } else { 1 });
    let text = if args.json {
        json_line(&freshness)
    } else {
        text::freshness(&freshness)
    };
    Ok((text, code))
}

/// `gate check --all`: every declared gate's freshness, then one line of
/// which are stale.
fn check_all(args: &GateArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    if args.scope.selects() {
        return Err(usage(
            "--all checks the gates as ledger.toml declares them: give no scope flags",
        ));
    }
    let declarations =
        Declarations::read_required(&args.scope.workspace()?)?.with_settings(settings.clone());
    let checked = check_declared(&declarations, &args.prerequisites()?)?;
    let stale: Vec<String> = checked
        .iter()
        .filter(|f| !f.fresh)
        .map(|f| f.gate.clone())
        .collect();
    let code = ExitCode::from(if stale.is_empty() { 0 } else { 1 });
    if args.json {
        return Ok((json_line(&checked), code));
    }
    Ok((text::freshness_all(&checked), code))
}
