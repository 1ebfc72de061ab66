//! The resuming verbs: `check` (everything a resuming session must know, one
//! exit code) and `changes` (every change in brief, like `openspec list`).

use ledger_core::Settings;
use std::process::ExitCode;

use clap::Args;
use ledger_core::{
    Error,
    lifecycle::{ResumeRequest, list_changes, resume_check},
    tasks::TaskRule,
};

use crate::change_args::PlaceArgs;
use crate::lifecycle::GateObserveArgs;
use crate::report::json_line;
use ledger_core::door::text;

#[derive(Args)]
pub struct CheckArgs {
    /// The one change to check [default: every active change, and every
    /// change with live recorded state whose files are gone].
    #[arg(long, value_name = "C")]
    change: Option<String>,
    #[command(flatten)]
    place: PlaceArgs,
    /// The rule of each tracked Tasks file [default: each change's own].
    #[arg(long, value_name = "R", value_parser = crate::scope_args::task_rule())]
    task_rule: Option<TaskRule>,
    #[command(flatten)]
    observe: GateObserveArgs,
    /// Run the prerequisite commands `ledger.toml` declares (`env-cmd`) to
    /// observe them [default: not run, each stays unverified: whoever writes
    /// the checkout chose them].
    #[arg(long)]
    allow_env_cmd: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct ChangesArgs {
    #[command(flatten)]
    place: PlaceArgs,
    /// The rule of each tracked Tasks file [default: each change's own].
    #[arg(long, value_name = "R", value_parser = crate::scope_args::task_rule())]
    task_rule: Option<TaskRule>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) const CHECK_EXIT_CODES: &str = "\
Exit codes:
  0  nothing to do: no active change, every declared gate fresh, every
     recorded verdict standing, no store problem (a named change: archived
     and its finalization checks out)
  1  work to do: every item is listed, each with the command that shows it
     (an active change always has some: at the least, to archive it)
  2  error: a blocking condition, bad input or bad usage; stderr says
     `error[<code>]: <message naming the path>` and stdout stays empty";

pub(crate) const CHANGES_EXIT_CODES: &str = "\
Exit codes:
  0  the changes are listed (none: `no changes`)
  2  error: a blocking condition, bad input or bad usage; stderr says
     `error[<code>]: <message naming the path>` and stdout stays empty";

fn request(place: &PlaceArgs, task_rule: Option<TaskRule>) -> Result<ResumeRequest, Error> {
    let mut request = ResumeRequest::new(place.workspace()?);
    request.changes_root = place.changes_root().to_owned();
    request.schema = place.schema().map(str::to_owned);
    request.task_rule = task_rule;
    Ok(request)
}

pub fn run_check(args: CheckArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let mut request = request(&args.place, args.task_rule)?;
    request.change = args.change;
    request.gate_prerequisites = args.observe.prerequisites()?;
    request.allow_env_cmd = args.allow_env_cmd;
    let resume = resume_check(&args.place.store(settings)?, &request)?;
    let text = if args.json {
        json_line(&resume)
    } else {
        text::resume(&resume)
    };
    let code = if resume.nothing_to_do { 0 } else { 1 };
    Ok((text, ExitCode::from(code)))
}

pub fn run_changes(args: ChangesArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let request = request(&args.place, args.task_rule)?;
    let changes = list_changes(&args.place.store(settings)?, &request)?;
    let text = if args.json {
        json_line(&changes)
    } else {
        text::changes(&changes)
    };
    Ok((text, ExitCode::SUCCESS))
}
