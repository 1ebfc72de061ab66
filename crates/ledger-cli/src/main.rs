//! The `ledger` command: fingerprints, inventory records and verification,
//! approvals, gates and the change lifecycle.

mod approvals;
mod change_args;
#[cfg(test)]
mod doc_examples;
mod exit_codes;
mod gates;
mod hints;
mod inventory;
mod lifecycle;
mod mcp;
mod overlap;
mod parse;
mod progress;
mod report;
mod resume;
mod scope_args;
mod settings;
mod sharing;
mod shell;
mod tasks;
mod verdicts;

use std::io::{self, Write};
use std::process::ExitCode;

use camino::Utf8PathBuf;
use clap::{Parser, Subcommand};
use ledger_core::Error;

pub(crate) const EXIT_CODES: &str = "\
Exit codes:
  0  success (verify: the fingerprints match; status: all approved;
     store check: clean; validate check: the PASS stands; finalize check:
     every difference is an expected completion output)
  1  verify: the files changed since the record (the changes are listed);
     status: some artifact is not approved; store check: problems found;
     validate check: the PASS does not stand (changed paths, stale gates);
     finalize check: a new change blocks (listed path by path)
  2  error: a blocking condition, bad input or bad usage; stderr says
     `error[<code>]: <message naming the path>` and stdout stays empty";

/// Content fingerprints of explicit file inventories, for approvals and gate evidence.
#[derive(Parser)]
#[command(name = "ledger", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Read and hash files with N threads (0: one per core) [default: the
    /// LEDGER_THREADS environment variable, else one per core].
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,
    /// Read every file instead of answering unchanged ones from the digest
    /// cache in .ledger/ [default: the cache is used unless LEDGER_NO_CACHE is
    /// set to anything but 0].
    #[arg(long, global = true)]
    no_cache: bool,
    /// Sign every record written with this OpenSSH private key, as git signs
    /// commits with `gpg.format=ssh` [default: the LEDGER_SIGNING_KEY
    /// environment variable, else unsigned].
    #[arg(long, global = true, value_name = "FILE")]
    signing_key: Option<Utf8PathBuf>,
    /// Trust signatures by the keys of this allowed-signers file (git's
    /// `gpg.ssh.allowedSignersFile` format): fetched gate evidence is reused
    /// only when one of them signed it [default: the LEDGER_ALLOWED_SIGNERS
    /// environment variable, else none].
    #[arg(long, global = true, value_name = "FILE")]
    allowed_signers: Option<Utf8PathBuf>,
    /// Show no progress line, even on a terminal.
    #[arg(long, global = true, conflicts_with = "progress")]
    quiet: bool,
    /// Show the progress line from the start, even when stderr is not a
    /// terminal (a line a second there), and a closing summary [default: on
    /// a terminal, once an expansion runs past about a second].
    #[arg(long, global = true)]
    progress: bool,
}

// Every subcommand enum is `defer`red: a run builds the arguments of its own
// subcommand only, not the whole tree (0.25 ms and a hundred page faults of
// every start; docs/performance.md, The fixed cost of a run). A deferred
// `Args` struct's doc comment would replace its subcommand's description, so
// those structs carry plain comments.
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    /// Print the v1 fingerprint (`sha256:<hex>`) of the scope as the last line.
    ///
    /// With no flags inside a Git checkout: every file `git ls-files --cached
    /// --others --exclude-standard` lists in the whole checkout.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Fingerprint(inventory::Expand),
    /// Show the scope's entries: mode, kind, digest and path, one per line
    /// (paths quoted when they hold odd characters; `-z` for raw paths).
    #[command(after_help = crate::exit_codes::PLAIN)]
    Entries(inventory::EntriesArgs),
    /// Write an inventory record (JSON): scope, entries, fingerprint, metadata.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Inventory(inventory::InventoryArgs),
    /// Re-expand a record's scope and report what changed, path by path.
    #[command(after_help = crate::exit_codes::VERIFY)]
    Verify(inventory::VerifyArgs),
    /// Bind an artifact's current fingerprint to the owner's observed decision.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Approve(approvals::ApproveArgs),
    /// Show each artifact's approval: approved, unbound, changed, reset or blocked
    /// (exit 0 only when all are approved).
    #[command(after_help = crate::exit_codes::STATUS)]
    Status(approvals::StatusArgs),
    /// Read, advance (the handoff), log or retire the state envelope of a change.
    #[command(subcommand)]
    State(approvals::StateCommand),
    /// Record a validation verdict with its PASS inventory, or check that it stands.
    #[command(subcommand)]
    Validate(lifecycle::ValidateCommand),
    /// Classify every difference from the PASS after the terminal mutations.
    #[command(subcommand)]
    Finalize(lifecycle::FinalizeCommand),
    /// Check the record store's integrity, or resolve heads that went apart.
    #[command(subcommand)]
    Store(approvals::StoreCommand),
    /// Share the store through a Git remote (docs/sharing.md).
    #[command(subcommand)]
    Remote(sharing::RemoteCommand),
    /// Print the completion script for SHELL on stdout, e.g.
    /// `ledger completions bash > /etc/bash_completion.d/ledger`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page, ledger(1), in roff on stdout: `ledger man > ledger.1`.
    Man,
    /// Run a gate unless fresh evidence of it exists, or check its evidence.
    #[command(subcommand)]
    Gate(gates::GateCommand),
    /// List a change's tasks from its tracked Tasks file: id, done or not,
    /// line, text, and the totals.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Tasks(tasks::TasksArgs),
    /// Write standard input to standard output as a Tasks file is hashed:
    /// normalized under `--task-rule`.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Normalize(tasks::NormalizeArgs),
    /// Everything a resuming session must know, in one report and one exit
    /// code: each active change's approvals, gates, PASS, envelope, tasks
    /// and the work left, and the store's health.
    #[command(after_help = resume::CHECK_EXIT_CODES)]
    Check(resume::CheckArgs),
    /// List the changes of the workspace (active, archived, and recorded
    /// ones whose files are gone), one line of state each.
    #[command(after_help = resume::CHANGES_EXIT_CODES)]
    Changes(resume::ChangesArgs),
    /// Record an audit's verdict bound to a fingerprint, check that it
    /// stands, downgrade it, or list its records (docs/verdicts.md).
    #[command(subcommand)]
    Verdict(verdicts::VerdictCommand),
    /// Which writers' file sets overlap: every path in more than one, with
    /// their names (parallel writers whose sets overlap run one after another).
    #[command(after_help = crate::exit_codes::OVERLAP)]
    Overlap(overlap::OverlapArgs),
    /// Serve the tools an agent needs over the Model Context Protocol on
    /// stdio (docs/agents.md), in one workspace fixed for the server's life.
    Mcp(mcp::McpArgs),
}

/// The command, from its arguments to its exit status. std's start does the
/// rest, on every platform alike: standard streams opened on /dev/null when
/// closed, `SIGPIPE` ignored (a closed pipe is a write error the CLI
/// answers), 101 on a panic.
fn main() -> ExitCode {
    let cli = match parse::cli(std::env::args_os().collect()) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let reporter = progress::Reporter::start(progress::Show::chosen(cli.quiet, cli.progress));
    // `run` drops the reporter before it prints, and on an error before this
    // prints it: the line never lands beside either.
    match run(cli, reporter) {
        Ok(code) => code,
        Err(Failure::Ledger(e)) => {
            match json_wanted() {
                true => hints::print_json_error(e.code(), &e.to_string(), e.path()),
                false => hints::print_error(&e),
            }
            ExitCode::from(gates::own_failure_exit_code().unwrap_or(2))
        }
        // A closed pipe is answered where the output is written (`answer`):
        // one that reaches here is a failure like any other, never a success.
        Err(Failure::Output(e)) => {
            hints::to_stderr(&format!("error[output]: cannot write to stdout: {e}\n"));
            ExitCode::from(gates::own_failure_exit_code().unwrap_or(2))
        }
    }
}

/// Help and version go to stdout as usual; a usage error follows the error
/// contract: `error[invalid-argument]: ...` on stderr, exit 2.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let text = e.render().to_string();
    let (message, hint) = one_line_usage(&text);
    match json_wanted() {
        true => hints::print_json_error("invalid-argument", &message, None),
        false => {
            hints::to_stderr(&format!("error[invalid-argument]: {message}\n"));
            if let Some(hint) = hint {
                hints::to_stderr(&format!("hint: {hint}\n"));
            }
        }
    }
    ExitCode::from(gates::own_failure_exit_code().unwrap_or(2))
}

/// clap's rendered usage error as one line, and at most one hint: its tip
/// when it gives one, else the usage line of the command at fault.
fn one_line_usage(text: &str) -> (String, Option<String>) {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let message = lines
        .next()
        .unwrap_or("bad usage")
        .trim_start_matches("error: ")
        .to_owned();
    let rest: Vec<&str> = lines.collect();
    let tip = rest.iter().find_map(|l| l.strip_prefix("tip: "));
    let values = rest.iter().find(|l| l.starts_with("[possible values: "));
    let usage = rest.iter().find_map(|l| l.strip_prefix("Usage: "));
    let hint = match (tip, values, usage) {
        (Some(tip), _, _) => Some(tip.to_owned()),
        (None, Some(values), _) => Some(values.trim_matches(['[', ']']).to_owned()),
        (None, None, Some(usage)) => Some(format!("usage: {usage} (--help says more)")),
        (None, None, None) => None,
    };
    (message, hint)
}

/// Whether the caller asked for JSON (`--json` before any `--`, after which
/// the arguments are a gate's command): errors are then JSON on stderr too.
fn json_wanted() -> bool {
    std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json")
}

/// Why a command failed: a ledger error, or stdout could not be written.
enum Failure {
    Ledger(Error),
    Output(io::Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Ledger(e)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

fn run(cli: Cli, reporter: Option<progress::Reporter>) -> Result<ExitCode, Failure> {
    // The environment and the flags, read once into the run's one value.
    let flags = settings::Flags {
        threads: cli.threads,
        no_cache: cli.no_cache,
        signing_key: cli.signing_key,
        allowed_signers: cli.allowed_signers,
    };
    let sink = reporter.as_ref().map(progress::Reporter::sink);
    let run_settings = settings::read(flags, |name| std::env::var_os(name), sink)?;
    let settings = &run_settings;
    // Every output is built completely before anything is printed, so that on
    // an error stdout stays empty.
    let (text, code) = match cli.command {
        // Bytes, not text: a Tasks file need not be UTF-8.
        Command::Normalize(args) => {
            let (bytes, code) = tasks::run_normalize(args)?;
            return answer(&bytes, code);
        }
        Command::Completions { shell } => {
            return answer(&shell::completions(shell), ExitCode::SUCCESS);
        }
        Command::Mcp(args) => {
            drop(reporter);
            mcp::serve(args, settings)?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Man => {
            return answer(&shell::man_page()?, ExitCode::SUCCESS);
        }
        Command::Gate(gates::GateCommand::Show(args)) => {
            let output = gates::show(&args, settings)?;
            gates::print_output(&output, true)?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Fingerprint(args) => inventory::run_fingerprint(args, settings)?,
        Command::Entries(args) => inventory::run_entries(args, settings)?,
        Command::Inventory(args) => inventory::run_inventory(args, settings)?,
        Command::Verify(args) => inventory::run_verify(args, settings)?,
        Command::Approve(args) => approvals::run_approve(args, settings)?,
        Command::Status(args) => approvals::run_status(args, settings)?,
        Command::State(command) => approvals::run_state(command, settings)?,
        Command::Validate(command) => lifecycle::run_validate(command, settings)?,
        Command::Finalize(command) => lifecycle::run_finalize(command, settings)?,
        Command::Store(command) => approvals::run_store(command, settings)?,
        Command::Remote(command) => sharing::run_remote(command, settings)?,
        Command::Gate(command) => gates::run(command, settings)?,
        Command::Tasks(args) => tasks::run_tasks(args, settings)?,
        Command::Check(args) => resume::run_check(args, settings)?,
        Command::Changes(args) => resume::run_changes(args, settings)?,
        Command::Verdict(command) => verdicts::run(command, settings)?,
        Command::Overlap(args) => overlap::run(args, settings)?,
    };
    drop(reporter);
    answer(text.as_bytes(), code)
}

/// Writes a verb's output to stdout and gives the exit status of its answer.
///
/// A reader that closed its end of the pipe early (`ledger check | head -1`)
/// ends the output there and changes nothing else: the status stays the
/// answer's, 1 as 1 and 0 as 0, which a `set -o pipefail` script or a gate
/// reads (issue 42). The process does not die of `SIGPIPE` on the way:
/// std's start ignores it, whatever was inherited, so the write fails instead.
/// Any other failure to write is an error. The flush makes a failure of the
/// last bytes (after the last newline) this write's, not the exit's, which
/// cannot report it.
fn answer(output: &[u8], code: ExitCode) -> Result<ExitCode, Failure> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(output).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(code),
        written => Ok(written.map(|()| code)?),
    }
}
