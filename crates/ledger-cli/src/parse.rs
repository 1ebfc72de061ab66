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
//!
//! `--json` is each verb's own option, yet it is accepted before the verb
//! too, as the global options are (`ledger --json gate check …`): it is
//! moved to just after the verb's name before clap parses.

use std::ffi::{OsStr, OsString};

use clap::{CommandFactory, FromArgMatches};

use crate::Cli;

/// The command line `args` (the program's name first) parsed as clap would
/// parse it, with the global options copied to one subcommand at most.
pub fn cli(mut args: Vec<OsString>) -> Result<Cli, clap::Error> {
    let command = Cli::command();
    json_after_the_verb(&command, &mut args);
    let command = with_globals_where_they_run(command, &args);
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

/// Moves each `--json` given before the verb (`ledger --json gate check`)
/// to just after the verb's name (`ledger gate check --json`), where clap
/// reads it; `args` is left as it is when no `--json` comes before a verb.
///
/// Why not a global `--json`: it would clash with the verbs' own, which a
/// deferred subcommand adds only after clap has copied the globals into it,
/// and every verb's `json` field would have to yield to it. Moved, it means
/// exactly what it means after the name, and a verb without it refuses it
/// the same way. The verb is found as clap finds it: the first word after
/// the leading global options (and their values), then its subcommands'
/// names (`gate check`), global options allowed between them.
fn json_after_the_verb(command: &clap::Command, args: &mut Vec<OsString>) {
    // Most command lines: nothing to look up, nothing built.
    if !(args.iter().skip(1))
        .take_while(|arg| *arg != "--")
        .any(|arg| arg == "--json")
    {
        return;
    }
    let mut before = Vec::new();
    let mut at = 1;
    while let Some(arg) = args.get(at) {
        if arg == "--json" {
            before.push(at);
            at += 1;
        } else if let Some(width) = global_option_width(command, arg) {
            at += width;
        } else {
            break;
        }
    }
    let verb = (args.get(at))
        .and_then(|arg| arg.to_str())
        .and_then(|name| command.find_subcommand(name));
    let (Some(verb), false) = (verb, before.is_empty()) else {
        return;
    };
    // Only this verb is built, to know the names of its subcommands.
    let mut level = verb.clone();
    level.build();
    let mut after = at + 1;
    let mut next = after;
    while let Some(arg) = args.get(next).filter(|_| level.has_subcommands()) {
        if let Some(width) = global_option_width(command, arg) {
            next += width;
            continue;
        }
        let Some(sub) = (arg.to_str()).and_then(|name| level.find_subcommand(name)) else {
            break;
        };
        level = sub.clone();
        next += 1;
        after = next;
    }
    for _ in &before {
        args.insert(after, OsString::from("--json"));
    }
    for at in before.into_iter().rev() {
        args.remove(at);
    }
}

/// How many arguments the global option `arg` of `command` spans: 2 when
/// it takes the next one as its value (`--threads 4`), else 1 (a flag, or
/// `--threads=4`); `None` when `arg` is not a global option.
fn global_option_width(command: &clap::Command, arg: &OsStr) -> Option<usize> {
    let option = arg.to_str()?.strip_prefix("--")?;
    let (name, inline_value) = match option.split_once('=') {
        Some((name, _)) => (name, true),
        None => (option, false),
    };
    let global =
        (command.get_arguments()).find(|a| a.is_global_set() && a.get_long() == Some(name))?;
    match global.get_action().takes_values() && !inline_value {
        true => Some(2),
        false => Some(1),
    }
}

/// The global options that take the next argument as their value, as
/// spelled on the command line (`--threads`, `--signing-key`, …): what a
/// look at the raw command line for its words must skip. Builds the
/// command, so meant for the rare path (an error's exit status).
pub fn options_with_a_value() -> Vec<String> {
    (Cli::command().get_arguments())
        .filter(|a| a.is_global_set() && a.get_action().takes_values())
        .filter_map(|a| a.get_long().map(|long| format!("--{long}")))
        .collect()
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

    /// `line` as `json_after_the_verb` leaves it.
    fn moved(line: &str) -> String {
        let mut args = args(line);
        json_after_the_verb(&Cli::command(), &mut args);
        let words: Vec<String> = args.iter().map(|a| a.to_string_lossy().into()).collect();
        words.join(" ")
    }

    #[test]
    fn a_json_before_the_verb_goes_just_after_its_name() {
        for (given, parsed) in [
            ("ledger --json status", "ledger status --json"),
            (
                "ledger --threads 2 --json --signing-key k approve --change c",
                "ledger --threads 2 --signing-key k approve --json --change c",
            ),
            (
                "ledger --json gate check --name t",
                "ledger gate check --json --name t",
            ),
            (
                "ledger --json gate --threads=2 --quiet check --name t",
                "ledger gate --threads=2 --quiet check --json --name t",
            ),
            ("ledger --json verify r.json", "ledger verify --json r.json"),
            (
                "ledger --json gate run --name t -- echo --json",
                "ledger gate run --json --name t -- echo --json",
            ),
            // Twice is refused as twice after the name is.
            ("ledger --json --json check", "ledger check --json --json"),
        ] {
            assert_eq!(moved(given), parsed, "{given}");
        }
    }

    #[test]
    fn a_json_elsewhere_is_left_to_clap() {
        for line in [
            "ledger status --json",
            "ledger gate run --name t -- --json",
            "ledger --json",
            "ledger --json --bogus status",
            // An option's value, which clap refuses.
            "ledger --signing-key --json status",
        ] {
            assert_eq!(moved(line), line);
        }
    }

    #[test]
    fn a_json_before_the_verb_is_accepted_where_the_verb_has_one() {
        for line in [
            "ledger --json check",
            "ledger --quiet --json store check",
            "ledger --json verdict check --name v",
            "ledger --json --threads 2 gate run --name t -- true",
        ] {
            if let Err(e) = cli(args(line)) {
                panic!("{line}: {e}");
            }
        }
        // A verb without `--json` refuses it before its name as after it.
        let before = cli(args("ledger --json inventory")).err().unwrap();
        let after = cli(args("ledger inventory --json")).err().unwrap();
        assert_eq!(before.kind(), clap::error::ErrorKind::UnknownArgument);
        assert_eq!(before.to_string(), after.to_string());
    }
}
