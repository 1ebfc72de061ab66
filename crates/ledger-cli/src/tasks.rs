//! The Tasks verbs: `tasks` (a change's tasks, ids and progress) and
//! `normalize` (the bytes a Tasks file is hashed as).

use ledger_core::Settings;
use std::io::Read;
use std::process::ExitCode;

use clap::Args;
use ledger_core::{
    Error,
    tasks::{TaskRule, normalize_tasks_with},
};

use crate::change_args::ChangeArgs;
use crate::report::json_line;
use ledger_core::door::text;

#[derive(Args)]
pub struct TasksArgs {
    #[command(flatten)]
    change: ChangeArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct NormalizeArgs {
    /// The rule to apply (docs/format.md §4).
    #[arg(long, value_name = "R", value_parser = crate::scope_args::task_rule(), default_value = "task-checkbox-v1")]
    task_rule: TaskRule,
}

pub fn run_tasks(args: TasksArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let store = args.change.place.store(settings)?;
    let tasks = args.change.change_set(settings)?.tasks_in(&store)?;
    let text = if args.json {
        json_line(&tasks)
    } else {
        text::tasks(&tasks)
    };
    Ok((text, ExitCode::SUCCESS))
}

/// Reads stdin and returns it normalized, byte for byte (not necessarily UTF-8).
pub fn run_normalize(args: NormalizeArgs) -> Result<(Vec<u8>, ExitCode), Error> {
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .map_err(|source| Error::Unreadable {
            path: "-".into(),
            operation: "read standard input",
            source,
        })?;
    Ok((
        normalize_tasks_with(&input, args.task_rule),
        ExitCode::SUCCESS,
    ))
}
