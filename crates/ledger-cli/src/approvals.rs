//! The approval verbs: `approve`, `status`, `state show`, `state retire`,
//! `store check` (`state set` and `state log` are in `lifecycle.rs`).

use ledger_core::Settings;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use ledger_core::{
    Error,
    approval::{
        CurrentState, approve_advised, changes, current_state, recorded_state, retire_from, status,
    },
    quote::quote,
};

use crate::change_args::{BasisArgs, ChangeArgs, ExpectArgs, PlaceArgs};
use crate::report::json_line;
use ledger_core::door::text;

#[derive(Args)]
pub struct ApproveArgs {
    #[command(flatten)]
    change: ChangeArgs,
    /// The artifact to approve, e.g. `design`.
    #[arg(long, value_name = "A")]
    artifact: String,
    /// Where the owner's decision was observed (a message id, a URL...).
    #[arg(long, value_name = "TEXT")]
    source: String,
    /// Approve the artifact although none of its files exist (absent on purpose).
    #[arg(long)]
    absent: bool,
    #[command(flatten)]
    basis: BasisArgs,
    /// Print the binding as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct StatusArgs {
    #[command(flatten)]
    change: ChangeArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
#[command(defer = true)]
pub enum StateCommand {
    /// Print the state envelope a change's pointer names (every change's
    /// without --change): a readable summary, or the envelopes with --json.
    Show {
        /// The change [default: every change with recorded state].
        #[arg(long, value_name = "C")]
        change: Option<String>,
        #[command(flatten)]
        place: PlaceArgs,
        /// Print `[{record, state}]`, the envelopes as stored.
        #[arg(long)]
        json: bool,
    },
    /// Advance a change's state envelope (the handoff): a new record after the
    /// head; only the fields named change, the task ids are read from the
    /// tracked Tasks file unless given.
    #[command(after_help = crate::exit_codes::PLAIN)]
    Set(Box<crate::lifecycle::SetArgs>),
    /// Walk a change's chain of state records, newest first: record, time,
    /// what changed (for investigating a discrepancy; normal reads never walk it).
    #[command(after_help = crate::exit_codes::PLAIN)]
    Log(crate::lifecycle::LogArgs),
    /// Retire a change's state (a mistyped name, an abandoned change): a new
    /// record without bindings that says why; the records before it stay.
    Retire {
        /// The change.
        #[arg(long, value_name = "C")]
        change: String,
        /// Why it is retired.
        #[arg(long, value_name = "TEXT")]
        reason: String,
        #[command(flatten)]
        place: PlaceArgs,
        #[command(flatten)]
        expect: ExpectArgs,
        /// Print `{change, record, reason}` as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
#[command(defer = true)]
pub enum StoreCommand {
    /// List orphan records, leftover temporary files, corrupt records,
    /// pointers to missing records and leftover ref lock files; exit 0 only
    /// when there are none.
    #[command(after_help = crate::exit_codes::STORE_CHECK)]
    Check {
        #[command(flatten)]
        place: PlaceArgs,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Keep one head of a ref whose heads went apart (a local head and a
    /// fetched one): a write that has every head as a parent, so nothing is
    /// lost and the next push fast-forwards.
    Resolve(crate::sharing::ResolveArgs),
    /// Decide an orphan record (what a write refused with pointer-conflict
    /// left): keep its content on top of its ref's head, or discard it; the
    /// decision is recorded with its reason and the orphan is no longer
    /// listed. Nothing is deleted.
    Decide(crate::sharing::DecideArgs),
    /// Where the record a ref names came from (this store, or a remote's
    /// fetched head) and who signed it, judged against --allowed-signers.
    Provenance(crate::sharing::ProvenanceArgs),
    /// Remove the ref lock files a killed writer left (`store check` lists
    /// them): only those older than --older-than (default 10m, at least 1m),
    /// never one a writer may still hold.
    Unlock(UnlockArgs),
}

// `ledger store unlock`.
#[derive(Args)]
pub struct UnlockArgs {
    #[command(flatten)]
    place: PlaceArgs,
    /// Remove only lock files at least this old (e.g. `10m`, `2h`; at least `1m`).
    #[arg(long, value_name = "DUR")]
    older_than: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `ledger store unlock`: exit 0 when no lock is left, 1 when some are kept
/// (too young to be taken as abandoned).
fn run_unlock(args: UnlockArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let older_than = match args.older_than.as_deref() {
        None => None,
        Some(text) => {
            Some(
                humantime::parse_duration(text).map_err(|e| Error::InvalidArgument {
                    message: format!("--older-than {}: {e} (e.g. 10m, 2h)", quote(text)),
                })?,
            )
        }
    };
    let unlocked = args.place.store(settings)?.unlock(older_than)?;
    let code = ExitCode::from(if unlocked.kept.is_empty() { 0 } else { 1 });
    if args.json {
        return Ok((json_line(&unlocked), code));
    }
    let bound =
        humantime::format_duration(std::time::Duration::from_secs(unlocked.older_than_seconds));
    let mut out = String::new();
    for lock in &unlocked.removed {
        out.push_str(&format!("removed {}\n", quote(&lock.file)));
    }
    for lock in &unlocked.kept {
        let age = humantime::format_duration(std::time::Duration::from_secs(lock.age_seconds));
        out.push_str(&format!(
            "kept {}: {age} old, younger than {bound}\n",
            quote(&lock.file)
        ));
    }
    if out.is_empty() {
        out.push_str("no ref lock files\n");
    }
    Ok((out, code))
}

pub fn run_approve(args: ApproveArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let change = args.change.change_set(settings)?;
    let store = args.change.place.store(settings)?;
    let approved = approve_advised(
        &store,
        &change,
        &args.artifact,
        &args.source,
        args.absent.into(),
        &args.basis.basis()?,
    )?;
    // A likely wrong rule is advice, not a failure: the approval is recorded.
    for warning in &approved.warnings {
        crate::hints::to_stderr(&format!("warning: {}\n", warning.message));
    }
    if args.json {
        return Ok((json_line(&approved), ExitCode::SUCCESS));
    }
    Ok((text::approved(&approved), ExitCode::SUCCESS))
}

pub fn run_status(args: StatusArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let change = args.change.change_set(settings)?;
    let status = status(&args.change.place.store(settings)?, &change)?;
    let text = if args.json {
        json_line(&status)
    } else {
        text::status(&status)
    };
    let code = if status.all_approved() { 0 } else { 1 };
    Ok((text, ExitCode::from(code)))
}

pub fn run_state(command: StateCommand, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let (change, place, json) = match command {
        StateCommand::Show {
            change,
            place,
            json,
        } => (change, place, json),
        StateCommand::Set(args) => return crate::lifecycle::run_set(*args, settings),
        StateCommand::Log(args) => return crate::lifecycle::run_log(args, settings),
        StateCommand::Retire {
            change,
            reason,
            place,
            expect,
            json,
        } => {
            let from = expect.started_from()?;
            let record = retire_from(&place.store(settings)?, &change, &reason, from.as_ref())?;
            let text = match json {
                true => json_line(
                    &serde_json::json!({ "change": change, "record": record, "reason": reason }),
                ),
                false => format!(
                    "retired the state of {} (record {record}): {}\n",
                    quote(&change),
                    quote(&reason)
                ),
            };
            return Ok((text, ExitCode::SUCCESS));
        }
    };
    let store = place.store(settings)?;
    let names_given = change.is_some();
    let names: Vec<String> = match change {
        Some(c) => vec![c],
        None => changes(&store)?,
    };
    let states = match names_given {
        // A name the caller typed: unknown-change when it names nothing.
        true => names
            .iter()
            .map(|c| {
                recorded_state(&store, &place.change_set(c, settings)?).map(CurrentState::from)
            })
            .collect::<Result<Vec<_>, Error>>()?,
        false => names
            .iter()
            .map(|c| current_state(&store, c).map(CurrentState::from))
            .collect::<Result<Vec<_>, Error>>()?,
    };
    let text = if json {
        json_line(&states)
    } else {
        states.iter().map(text::state).collect()
    };
    Ok((text, ExitCode::SUCCESS))
}

pub fn run_store(command: StoreCommand, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let (place, json) = match command {
        StoreCommand::Check { place, json } => (place, json),
        StoreCommand::Resolve(args) => return crate::sharing::run_resolve(args, settings),
        StoreCommand::Decide(args) => return crate::sharing::run_decide(args, settings),
        StoreCommand::Provenance(args) => return crate::sharing::run_provenance(args, settings),
        StoreCommand::Unlock(args) => return run_unlock(args, settings),
    };
    let report = place.store(settings)?.check()?;
    let text = if json {
        json_line(&report)
    } else {
        text::store_report(&report)
    };
    let code = if report.is_clean() { 0 } else { 1 };
    Ok((text, ExitCode::from(code)))
}
