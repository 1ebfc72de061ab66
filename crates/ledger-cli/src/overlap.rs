//! `ledger overlap`: which writers' file sets overlap (seed 001: parallel
//! fixers whose file sets intersect run one after another).

use std::process::ExitCode;

use camino::Utf8PathBuf;
use clap::Args;
use ledger_core::expand::{FileSet, overlap_sets};
use ledger_core::{Error, Settings};

use crate::report::json_line;
use crate::scope_args::default_workspace;
use ledger_core::door::text;

#[derive(Args)]
pub struct OverlapArgs {
    /// A writer's file set: its name, `=`, then its roots (directories or
    /// files) and gitignore-style patterns separated by commas
    /// (`fixer-a=src/auth,tests/auth`, `cases=g/case-*.md`); two or more.
    #[arg(value_name = "NAME=PATH[,PATH…]", required = true, num_args = 2.., value_parser = named_scope)]
    scopes: Vec<(String, Vec<String>)>,
    /// Workspace directory [default: the top of the Git checkout containing
    /// the current directory, else the current directory].
    #[arg(long, value_name = "DIR")]
    workspace: Option<Utf8PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn named_scope(text: &str) -> Result<(String, Vec<String>), String> {
    match text.split_once('=') {
        Some((name, roots)) if !name.is_empty() && !roots.is_empty() => Ok((
            name.to_owned(),
            roots.split(',').map(str::to_owned).collect(),
        )),
        _ => Err(format!("expected NAME=PATH[,PATH…], got {text:?}")),
    }
}

/// Compares the scopes: exit 0 when disjoint, 1 when a path is shared.
pub fn run(args: OverlapArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let workspace = match args.workspace {
        Some(dir) => dir,
        None => default_workspace()?,
    };
    let sets = (args.scopes.into_iter())
        .map(|(name, items)| {
            let mut set = FileSet::from_items(name, &workspace, items)?;
            set.scope = set.scope.with_settings(settings.clone());
            Ok(set)
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let found = overlap_sets(&sets)?;
    let code = ExitCode::from(if found.disjoint { 0 } else { 1 });
    let text = match args.json {
        true => json_line(&found),
        false => text::overlap(&found),
    };
    Ok((text, code))
}
