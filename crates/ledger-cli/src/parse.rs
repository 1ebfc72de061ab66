//! Parsing the command line with the global options given to the subcommand
//! that runs only.
//!
//! clap copies every global option into every subcommand before it parses
//! (even a deferred one, which has nothing else built yet): seven options into
//! each of nineteen top-level subcommands, 133 copies of a 712-byte `Arg` with
//! its help text in argument lists grown twice each, some 160 KB of fresh heap
//! and 0.14 ms of every run (docs/performance.md,
//! The fixed cost of a run). When exactly one argument names a top-level
//! subcommand, that one is the subcommand that runs, if any does (a
//! subcommand is only ever given by its whole name), so it alone is given the
//! global options, still global below it; the options stay accepted before it
//! too, and their values reach [`Cli`] from either place as clap's own
//! propagation would bring them. Otherwise (no name, or two, as in a
//! `--purpose status` beside `status`) clap does it all, as before.

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches};

use crate::Cli;

/// The command line `args` (the program's name first) parsed as clap would
/// parse it, with the global options copied to one subcommand at most.
pub fn cli(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    let command = with_globals_where_they_run(Cli::command(), &args);
    let mut matches = command.try_get_matches_from(args)?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut Cli::command()))
}

/// `command` with its global options moved to the subcommand `args` name,
/// when exactly one argument names one.
fn with_globals_where_they_run(mut command: clap::Command, args: &[OsString]) -> clap::Command {
    let named: Vec<&str> = args
        .iter()
        .skip(1)
        .filter_map(|arg| arg.to_str())
        .filter(|arg| command.find_subcommand(arg).is_some())
        .collect();
    let [name] = named[..] else {
        return command;
    };
    let globals: Vec<clap::Arg> = command
        .get_arguments()
        .filter(|arg| arg.is_global_set())
        .cloned()
        .collect();
    for arg in &globals {
        command = command.mut_arg(arg.get_id().clone(), |arg| arg.global(false));
    }
    command.mut_subcommand(name, |subcommand| subcommand.args(globals))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn args(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    /// The globals' values as the parse gives them.
    fn globals(cli: &Cli) -> (Option<usize>, bool, bool, bool) {
        (cli.threads, cli.no_cache, cli.quiet, cli.progress)
    }

    #[test]
    fn a_global_option_reads_the_same_before_and_after_the_subcommand() {
        for line in [
            "ledger --threads 3 --no-cache fingerprint",
            "ledger fingerprint --threads 3 --no-cache",
            "ledger --threads 3 fingerprint --no-cache",
        ] {
            let cli = cli(args(line)).unwrap();
            assert_eq!(globals(&cli), (Some(3), true, false, false), "{line}");
        }
    }

    #[test]
    fn a_nested_subcommand_takes_the_global_options_too() {
        let cli = cli(args("ledger gate show --quiet x")).unwrap_or_else(|e| panic!("{e}"));
        assert!(cli.quiet);
    }

    #[test]
    fn only_the_named_subcommand_gets_the_global_options() {
        let moved = with_globals_where_they_run(Cli::command(), &args("ledger fingerprint"));
        let has_threads =
            |c: &clap::Command| c.get_arguments().any(|a| a.get_id().as_str() == "threads");
        let fingerprint = moved.find_subcommand("fingerprint").unwrap();
        assert!(has_threads(fingerprint));
        assert!(!has_threads(moved.find_subcommand("status").unwrap()));
        assert!(moved.get_arguments().all(|a| !a.is_global_set()));
        // Two names: clap propagates, as without this module.
        let kept = with_globals_where_they_run(
            Cli::command(),
            &args("ledger status --purpose fingerprint"),
        );
        assert!(kept.get_arguments().any(|a| a.is_global_set()));
        assert!(!has_threads(kept.find_subcommand("fingerprint").unwrap()));
    }

    #[test]
    fn conflicts_and_errors_read_as_before() {
        let both = cli(args("ledger fingerprint --quiet --progress"))
            .err()
            .unwrap();
        assert_eq!(both.kind(), clap::error::ErrorKind::ArgumentConflict);
        let unknown = cli(args("ledger fingerprint --bogus")).err().unwrap();
        assert_eq!(unknown.kind(), clap::error::ErrorKind::UnknownArgument);
        let other = Cli::command()
            .try_get_matches_from(args("ledger fingerprint --bogus"))
            .err()
            .unwrap();
        assert_eq!(unknown.to_string(), other.to_string());
    }
}
