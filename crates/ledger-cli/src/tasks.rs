//! The Tasks verbs: `tasks` (a change's tasks, ids and progress) and
//! `normalize` (the bytes a Tasks file is hashed as).

use ledger_core::Settings;
use std::io::Read;
use std::process::ExitCode;

use clap::Args;
use ledger_core::{
    Error,
    approval::ChangeTasks,
    quote::{quote, quote_bytes},
    tasks::{TaskRule, normalize_tasks_with},
};

use crate::change_args::ChangeArgs;
use crate::report::json_line;

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
        tasks_text(&tasks)
    };
    Ok((text, ExitCode::SUCCESS))
}

/// A heading with the file, rule and progress, then one line per task:
/// its box, line number and text. The text shown is the task's exact bytes,
/// quoted (a byte that is not UTF-8 as `\351`), not its lossy `text`: two
/// lines that differ in any byte never print the same.
fn tasks_text(tasks: &ChangeTasks) -> String {
    let t = &tasks.tasks;
    let mut text = format!(
        "{}: {} of {} done ({}, {}{})\n",
        quote(&tasks.change),
        t.done,
        t.total,
        quote(tasks.path.as_str()),
        t.rule,
        if tasks.exists { "" } else { ", no such file" }
    );
    // The line numbers right-aligned; the id, when there is one, opens the text.
    let width = t.tasks.last().map_or(1, |task| task.line.to_string().len());
    for task in &t.tasks {
        text.push_str(&format!(
            "[{}] {:>width$}  {}\n",
            if task.done { 'x' } else { ' ' },
            task.line,
            quote_bytes(task.exact_text()),
        ));
    }
    text
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
