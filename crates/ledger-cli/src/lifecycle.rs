//! The lifecycle verbs (docs/lifecycle.md): `state set`, `state log`,
//! `validate record`, `validate check` and `finalize check`. Each converts its
//! flags, calls the core and renders the answer.

use ledger_core::{OsStrBytes, Settings};
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use ledger_core::{
    Error,
    approval::{
        Check, CurrentState, StateEnvelope, StatePatch, TaskIds, ValidationVerdict, advance_state,
        recorded_state_log,
    },
    lifecycle::{
        GatePrerequisites, ValidationRequest, check_validation_with, finalize_check,
        record_validation,
    },
    quote::quote,
    records::RecordId,
};

use crate::change_args::{BasisArgs, ChangeArgs, ExpectArgs, PlaceArgs};
use crate::report::json_line;
use ledger_core::door::text;

#[derive(Args)]
pub struct SetArgs {
    #[command(flatten)]
    change: ChangeArgs,
    /// The current role, e.g. `implementation`.
    #[arg(long, value_name = "R")]
    role: Option<String>,
    /// The current outcome, e.g. `tasks in progress`.
    #[arg(long, value_name = "O")]
    outcome: Option<String>,
    /// An affected area (repeatable); given, the list replaces the recorded one.
    #[arg(long = "area", value_name = "A")]
    areas: Vec<String>,
    /// A short observed check (repeatable); replaces the check of the same name.
    #[arg(long = "check", value_name = "NAME=RESULT", value_parser = check)]
    checks: Vec<Check>,
    /// A blocker to add (repeatable).
    #[arg(long = "blocker", value_name = "TEXT")]
    blockers: Vec<String>,
    /// Remove every recorded blocker (before adding the --blocker ones).
    #[arg(long)]
    clear_blockers: bool,
    /// The one next allowed outcome.
    #[arg(long, value_name = "OUTCOME")]
    next: Option<String>,
    /// A task id the caller says is done (repeatable). The tracked Tasks file
    /// is the record: both lists are read from it, ids that agree with it
    /// change nothing, and an id it contradicts (open or not listed there) is
    /// refused unless --tasks-reason says why the given lists win [default:
    /// read from the file].
    #[arg(long = "completed", value_name = "ID")]
    completed: Vec<String>,
    /// A task id the caller says is open (repeatable); see --completed.
    #[arg(long = "remaining", value_name = "ID")]
    remaining: Vec<String>,
    /// Why --completed/--remaining win over the Tasks file they contradict:
    /// they then replace its lists as given, and the reason is kept as the
    /// check `task-ids`.
    #[arg(long, value_name = "TEXT")]
    tasks_reason: Option<String>,
    #[command(flatten)]
    expect: ExpectArgs,
    /// Print `{record, state}` as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct LogArgs {
    /// The change.
    #[arg(long, value_name = "C")]
    change: String,
    #[command(flatten)]
    place: PlaceArgs,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
#[command(defer = true)]
pub enum ValidateCommand {
    /// Record a verdict with its PASS inventory: the change's planning
    /// artifacts raw, the baseline specs of the capabilities it has deltas
    /// for, the delivery roots and paths and the instruction files given. A
    /// PASS is refused unless every artifact is approved and every gate named
    /// is fresh now.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Record(Box<RecordArgs>),
    /// Re-expand the recorded PASS inventory and check its gates: exit 0 when
    /// the PASS stands, 1 with every changed path and stale gate when not.
    #[command(after_help = crate::exit_codes::VALIDATE_CHECK)]
    Check(CheckArgs),
}

#[derive(Subcommand)]
#[command(defer = true)]
pub enum FinalizeCommand {
    /// After the terminal mutations (archive, spec sync, completion evidence,
    /// registry), classify every difference from the PASS inventory: exit 0
    /// when all are expected completion outputs, 1 when a new change blocks.
    #[command(after_help = crate::exit_codes::FINALIZE_CHECK)]
    Check(FinalizeArgs),
}

#[derive(Args)]
pub struct RecordArgs {
    #[command(flatten)]
    change: ChangeArgs,
    /// PASS or FAIL.
    #[arg(long, value_name = "PASS|FAIL", value_parser = verdict)]
    verdict: ValidationVerdict,
    /// Where the verdict was observed (a review id, a message).
    #[arg(long, value_name = "TEXT")]
    source: String,
    /// A Git repository at or below the workspace (`.` for the workspace itself).
    #[arg(long = "repo", value_name = "P")]
    repos: Vec<String>,
    /// A delivery root: a directory (or file) whose files the PASS covers.
    #[arg(long = "root", value_name = "P")]
    roots: Vec<String>,
    /// A delivery path: an exact file, included regardless of Git.
    #[arg(long = "path", value_name = "P")]
    paths: Vec<String>,
    /// A path or directory to leave out of the delivery roots.
    #[arg(long = "exclude", value_name = "P")]
    excludes: Vec<String>,
    /// A path or directory to leave out, with the reason a reviewer reads.
    #[arg(long = "exclude-because", num_args = 2, value_names = ["P", "REASON"])]
    excludes_because: Vec<String>,
    /// A local unversioned instruction file the validation read.
    #[arg(long = "instructions", value_name = "PATH")]
    instructions: Vec<String>,
    /// A gate the verdict relies on: its latest evidence must be fresh, as
    /// `ledger gate check --name NAME` answers.
    #[arg(long = "gate", value_name = "NAME")]
    gates: Vec<String>,
    /// A phase record of this change, excluded from the PASS (it records it):
    /// one regular file, now and at every check.
    #[arg(long = "phase-record", value_name = "PATH")]
    phase_records: Vec<String>,
    /// Declare that the change has no delivery files, and why (recorded with
    /// the verdict); a PASS naming no --root or --path needs it (no-delivery).
    #[arg(long, value_name = "REASON")]
    no_delivery: Option<String>,
    #[command(flatten)]
    basis: BasisArgs,
    #[command(flatten)]
    observe: GateObserveArgs,
    /// Print `{record, state}` as JSON.
    #[arg(long)]
    json: bool,
}

// How to observe the prerequisites of the gates a validation relies on:
// what `gate check --env/--env-cmd` takes, prefixed with the gate's name.
#[derive(Args)]
pub struct GateObserveArgs {
    /// A prerequisite of gate GATE, as `gate check --env` takes it:
    /// `GATE:NAME=VALUE`, or `GATE:NAME` to read the environment variable.
    #[arg(long = "gate-env", value_name = "GATE:NAME[=VALUE]")]
    env: Vec<OsString>,
    /// A prerequisite of gate GATE observed from a command's trimmed stdout,
    /// as `gate check --env-cmd` takes it: `GATE:NAME=COMMAND`.
    #[arg(long = "gate-env-cmd", value_name = "GATE:NAME=COMMAND")]
    env_cmd: Vec<OsString>,
}

impl GateObserveArgs {
    /// The prerequisites by gate, each parsed as `gate check` parses them.
    pub(crate) fn prerequisites(&self) -> Result<GatePrerequisites, Error> {
        let mut given: BTreeMap<String, (Vec<OsString>, Vec<OsString>)> = BTreeMap::new();
        for item in &self.env {
            let (gate, rest) = split_gate(item, "--gate-env")?;
            given.entry(gate).or_default().0.push(rest);
        }
        for item in &self.env_cmd {
            let (gate, rest) = split_gate(item, "--gate-env-cmd")?;
            given.entry(gate).or_default().1.push(rest);
        }
        given
            .into_iter()
            .map(|(gate, (env, env_cmd))| {
                Ok((gate, crate::gates::prerequisites_of(&env, &env_cmd)?))
            })
            .collect()
    }
}

/// `GATE:REST` split at the first `:` (a gate's name has none).
fn split_gate(item: &OsStr, flag: &str) -> Result<(String, OsString), Error> {
    let bytes = item.as_bytes();
    let refused = || Error::InvalidArgument {
        message: format!(
            "{flag} {}: expected GATE:NAME…, the gate's name first",
            quote(&String::from_utf8_lossy(bytes))
        ),
    };
    let at = bytes.iter().position(|b| *b == b':').ok_or_else(refused)?;
    let gate = std::str::from_utf8(&bytes[..at]).map_err(|_| refused())?;
    if gate.is_empty() {
        return Err(refused());
    }
    Ok((
        gate.to_owned(),
        OsStr::from_bytes(&bytes[at + 1..]).to_owned(),
    ))
}

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    change: ChangeArgs,
    #[command(flatten)]
    observe: GateObserveArgs,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct FinalizeArgs {
    #[command(flatten)]
    change: ChangeArgs,
    /// A registry file the finalization writes (repeatable): an expected output.
    #[arg(long = "expect", value_name = "PATH")]
    expect: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn check(text: &str) -> Result<Check, String> {
    match text.split_once('=') {
        Some((name, result)) if !name.is_empty() => Ok(Check {
            name: name.to_owned(),
            result: result.to_owned(),
        }),
        _ => Err(format!("expected NAME=RESULT, got {text:?}")),
    }
}

fn verdict(text: &str) -> Result<ValidationVerdict, String> {
    text.parse().map_err(|e: Error| e.to_string())
}

pub fn run_set(args: SetArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let change = args.change.change_set(settings)?;
    let tasks = if args.completed.is_empty() && args.remaining.is_empty() {
        TaskIds::FromTasksFile
    } else {
        TaskIds::Given {
            completed: args.completed,
            remaining: args.remaining,
            reason: args.tasks_reason,
        }
    };
    let patch = StatePatch {
        role: args.role,
        outcome: args.outcome,
        areas: (!args.areas.is_empty()).then_some(args.areas),
        checks: args.checks,
        blockers: args.blockers,
        clear_blockers: args.clear_blockers,
        next: args.next,
        tasks,
    };
    let expected = args.expect.started_from()?;
    let store = args.change.place.store(settings)?;
    let (record, state) = advance_state(&store, &change, &patch, expected.as_ref())?;
    Ok((written(record, state, args.json), ExitCode::SUCCESS))
}

/// The answer of a write: the new state, as text or JSON.
fn written(record: RecordId, state: StateEnvelope, json: bool) -> String {
    let current = CurrentState {
        record: Some(record),
        state,
    };
    if json {
        json_line(&current)
    } else {
        text::state(&current)
    }
}

pub fn run_log(args: LogArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let change = args.place.change_set(&args.change, settings)?;
    let log = recorded_state_log(&args.place.store(settings)?, &change)?;
    let text = if args.json {
        json_line(&log)
    } else {
        log.iter().map(text::state_log).collect()
    };
    Ok((text, ExitCode::SUCCESS))
}

pub fn run_validate(
    command: ValidateCommand,
    settings: &Settings,
) -> Result<(String, ExitCode), Error> {
    match command {
        ValidateCommand::Record(args) => {
            let change = args.change.change_set(settings)?;
            let workspace = args.change.place.workspace()?;
            let mut request = ValidationRequest::new(args.verdict, &args.source);
            request.repositories = args.repos;
            request.roots = args.roots;
            request.paths = args.paths;
            request.exclusions =
                crate::scope_args::exclusions(&args.excludes, &args.excludes_because);
            request.instructions = args.instructions;
            request.phase_records = args.phase_records;
            request.no_delivery = args.no_delivery;
            request.basis = args.basis.basis()?;
            request.gates_observing(&workspace, &args.gates, &args.observe.prerequisites()?)?;
            let store = args.change.place.store(settings)?;
            let (record, state) = record_validation(&store, &change, &request)?;
            Ok((written(record, state, args.json), ExitCode::SUCCESS))
        }
        ValidateCommand::Check(args) => {
            let change = args.change.change_set(settings)?;
            let prerequisites = args.observe.prerequisites()?;
            let check = check_validation_with(
                &args.change.place.store(settings)?,
                &change,
                &prerequisites,
            )?;
            let text = if args.json {
                json_line(&check)
            } else {
                text::validation(&check)
            };
            Ok((text, ExitCode::from(if check.stands { 0 } else { 1 })))
        }
    }
}

pub fn run_finalize(
    command: FinalizeCommand,
    settings: &Settings,
) -> Result<(String, ExitCode), Error> {
    let FinalizeCommand::Check(args) = command;
    let change = args.change.change_set(settings)?;
    let done = finalize_check(&args.change.place.store(settings)?, &change, &args.expect)?;
    let text = if args.json {
        json_line(&done)
    } else {
        text::finalization(&done)
    };
    Ok((text, ExitCode::from(if done.clean { 0 } else { 1 })))
}
