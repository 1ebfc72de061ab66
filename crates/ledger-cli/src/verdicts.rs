//! The verdict verbs (docs/verdicts.md): `verdict record`, `verdict check`,
//! `verdict downgrade`, `verdict log`.

use ledger_core::Settings;
use std::process::ExitCode;

use camino::Utf8PathBuf;
use clap::{Args, Subcommand};
use ledger_core::{
    Error,
    quote::quote,
    records::Store,
    verdict::{
        DowngradeRequest, VerdictRequest, VerdictSummary, check_verdict, downgrade_verdict,
        record_verdict, verdict_log,
    },
};

use crate::report::json_line;
use crate::scope_args::{ScopeArgs, default_workspace};
use ledger_core::door::text;

const CHECK_EXIT_CODES: &str = "\
Exit codes:
  0  the verdict stands: no path of its scope changed since it was recorded
     (whatever it says: a FAIL that stands is still a FAIL)
  1  it does not stand: the changed paths are listed (re-audit, or
     downgrade it explicitly), it was fetched from elsewhere and no allowed
     signer signed it (unproven), or no verdict of that name is recorded
  2  error: bad input or usage; stderr says `error[<code>]: <message>`";

const WRITE_EXIT_CODES: &str = "\
Exit codes:
  0  recorded
  2  error: bad input or usage, or another writer moved the verdict
     meanwhile (pointer-conflict); stderr says `error[<code>]: <message>`";

/// `ledger verdict …`.
#[derive(Subcommand)]
#[command(defer = true)]
pub enum VerdictCommand {
    /// Record an audit's verdict, bound to the fingerprint of the scope now
    /// (a first audit or a re-audit), before any fix it leads to.
    ///
    /// The scope flags are those of `ledger fingerprint`: any directory, in a
    /// Git checkout or not. A `--report` inside the scope is excluded from it
    /// with the reason "the verdict's own report", so that writing the
    /// report after the verdict does not invalidate it.
    #[command(after_help = WRITE_EXIT_CODES)]
    Record(Box<RecordArgs>),
    /// Say whether the verdict still stands: its scope re-expanded and
    /// compared with the state it was given on, changed paths listed.
    #[command(after_help = CHECK_EXIT_CODES)]
    Check(NameArgs),
    /// Lower the verdict explicitly (after a fix that is not re-audited):
    /// the lower verdict is bound to the state now. Never to PASS, never to
    /// the verdict it has: those need a new audit.
    #[command(after_help = WRITE_EXIT_CODES)]
    Downgrade(DowngradeArgs),
    /// List the verdict's records, newest first.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Log(NameArgs),
}

#[derive(Args)]
pub struct RecordArgs {
    /// The verdict's name, e.g. `pr-118` (its ref is `verdicts/NAME`).
    #[arg(long, value_name = "NAME")]
    name: String,
    /// The verdict: PASS, FAIL, or another word of letters, digits, `.`,
    /// `_`, `+`, `-`.
    #[arg(long, value_name = "V")]
    verdict: String,
    /// Where the verdict came from (the audit's summary, a review id).
    #[arg(long, value_name = "TEXT")]
    source: String,
    /// A finding of the audit (repeatable, kept in order).
    #[arg(long = "finding", value_name = "TEXT")]
    findings: Vec<String>,
    /// The verdict's own report, a workspace path inside the scope
    /// (repeatable): excluded from it, with a reason.
    #[arg(long = "report", value_name = "PATH")]
    reports: Vec<String>,
    /// The verdict's record this write started from (`no-record`: none was
    /// recorded); refused with pointer-conflict when another writer advanced
    /// the chain [default: the head as read now].
    #[arg(long, value_name = "RECORD|no-record")]
    expect: Option<String>,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct NameArgs {
    /// The verdict's name.
    #[arg(long, value_name = "NAME")]
    name: String,
    #[command(flatten)]
    place: WorkspaceArg,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct DowngradeArgs {
    /// The verdict's name.
    #[arg(long, value_name = "NAME")]
    name: String,
    /// The lower verdict, e.g. FAIL.
    #[arg(long, value_name = "V")]
    to: String,
    /// Why, as observed (e.g. the fix made after the verdict).
    #[arg(long, value_name = "TEXT")]
    reason: String,
    /// The verdict's record this write started from (`no-record`: none was
    /// recorded); refused with pointer-conflict when another writer advanced
    /// the chain [default: the head as read now].
    #[arg(long, value_name = "RECORD|no-record")]
    expect: Option<String>,
    #[command(flatten)]
    place: WorkspaceArg,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct WorkspaceArg {
    /// Workspace directory [default: the top of the Git checkout containing
    /// the current directory, else the current directory].
    #[arg(long, value_name = "DIR")]
    workspace: Option<Utf8PathBuf>,
}

impl WorkspaceArg {
    fn store(&self, settings: &Settings) -> Result<Store, Error> {
        match &self.workspace {
            Some(dir) => Store::open(dir),
            None => Store::open(&default_workspace()?),
        }
        .map(|store| store.with_settings(settings.clone()))
    }
}

pub fn run(command: VerdictCommand, settings: &Settings) -> Result<(String, ExitCode), Error> {
    match command {
        VerdictCommand::Record(args) => {
            let scope = args.scope.to_scope(settings)?;
            let store = Store::of_scope(&scope)?;
            let request = VerdictRequest {
                findings: args.findings,
                reports: args.reports,
                expected: args.expect.as_deref().map(str::parse).transpose()?,
                ..VerdictRequest::new(&args.name, &args.verdict, &args.source, scope)
            };
            let summary = record_verdict(&store, &request)?;
            Ok((written(&summary, args.json), ExitCode::SUCCESS))
        }
        VerdictCommand::Check(args) => {
            let check = check_verdict(&args.place.store(settings)?, &args.name)?;
            let code = ExitCode::from(if check.stands { 0 } else { 1 });
            let text = match args.json {
                true => json_line(&check),
                false => text::verdict_check(&check),
            };
            Ok((text, code))
        }
        VerdictCommand::Downgrade(args) => {
            let request = DowngradeRequest {
                name: args.name,
                to: args.to,
                reason: args.reason,
                expected: args.expect.as_deref().map(str::parse).transpose()?,
            };
            let summary = downgrade_verdict(&args.place.store(settings)?, &request)?;
            Ok((written(&summary, args.json), ExitCode::SUCCESS))
        }
        VerdictCommand::Log(args) => {
            let log = verdict_log(&args.place.store(settings)?, &args.name)?;
            let text = match args.json {
                true => json_line(&log),
                false if log.is_empty() => format!("{}: no verdict recorded\n", quote(&args.name)),
                false => text::verdict_log(&log),
            };
            Ok((text, ExitCode::SUCCESS))
        }
    }
}

/// What `record` and `downgrade` print.
fn written(s: &VerdictSummary, json: bool) -> String {
    if json {
        return json_line(s);
    }
    text::verdict_written(s)
}
