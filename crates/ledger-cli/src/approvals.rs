//! The approval verbs: `approve`, `status`, `state show`, `state retire`,
//! `store check` (`state set` and `state log` are in `lifecycle.rs`).

use ledger_core::Settings;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use ledger_core::records::Provenance;
use ledger_core::{
    Error,
    approval::{
        ApprovalState, ApprovalStatus, ArtifactStatus, CurrentState, SchemaChange,
        SchemaChangeReason, approve_advised, changes, current_state, recorded_state, retire_from,
        status,
    },
    openspec::{ChangeLocation, SchemaSource},
    quote::quote,
    records::StoreReport,
};

use crate::change_args::{BasisArgs, ChangeArgs, ExpectArgs, PlaceArgs, short};
use crate::report::json_line;

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
    let binding = &approved.binding;
    // Every value is the caller's or the workspace's: escaped like any text output.
    let text = format!(
        "approved {} of {} at {} (source: {})\n{}\n",
        quote(&binding.artifact),
        quote(&binding.change),
        binding.observed_at,
        quote(&binding.source),
        binding.fingerprint
    );
    Ok((text, ExitCode::SUCCESS))
}

pub fn run_status(args: StatusArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let change = args.change.change_set(settings)?;
    let status = status(&args.change.place.store(settings)?, &change)?;
    let text = if args.json {
        json_line(&status)
    } else {
        status_table(&status)
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
        states.iter().map(crate::lifecycle::state_text).collect()
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
        store_report(&report)
    };
    let code = if report.is_clean() { 0 } else { 1 };
    Ok((text, ExitCode::from(code)))
}

fn status_table(status: &ApprovalStatus) -> String {
    let mut out = format!(
        "change {} ({}; state record: {})\n",
        status.change,
        location(&status.location),
        status
            .state_record
            .as_ref()
            .map_or_else(|| "no-record".to_owned(), |r| r.to_string())
    );
    if let Some(line) = status.provenance.as_ref().and_then(provenance_line) {
        out.push_str(&line);
    }
    if let Some(schema) = &status.schema {
        out.push_str(&format!("schema {}\n", schema_label(schema)));
    }
    for changed in &status.schema_changed {
        out.push_str(&format!(
            "schema changed for {}: {}\n",
            quote(&changed.artifact),
            schema_change(changed)
        ));
    }
    if let Some(retired) = &status.retired {
        out.push_str(&format!(
            "retired at {}: {}\n",
            retired.observed_at,
            quote(&retired.reason)
        ));
    }
    out.push_str(&format!(
        "{:<10} {:<9} {:<20} {:<20} cause\n",
        "artifact", "state", "approved", "current"
    ));
    for a in &status.artifacts {
        out.push_str(&format!(
            "{:<10} {:<9} {:<20} {:<20} {}\n",
            quote(&a.artifact),
            a.state.as_str(),
            short(a.approved),
            short(a.current),
            cause(a)
        ));
        for change in a.changes.iter().flatten() {
            out.push_str(&format!(
                "    {}: {}\n",
                change.change.label(),
                change.path()
            ));
        }
    }
    out
}

/// Where the state record came from and who signed it; nothing for an
/// unsigned record this store wrote (the everyday case says nothing new).
fn provenance_line(p: &Provenance) -> Option<String> {
    if p.local && p.remote.is_none() && p.key.is_none() {
        return None;
    }
    let (origin, signature) = crate::sharing::described(p);
    Some(format!("state record {origin}, {signature}\n"))
}

/// `rapid (openspec/schemas/rapid/schema.yaml, sha256:…)`.
fn schema_label(schema: &SchemaSource) -> String {
    let place = quote(schema.place());
    match &schema.sha256 {
        Some(sha) => {
            let sha = sha.to_string();
            format!("{} ({place}, {}…)", quote(schema.label()), &sha[..19])
        }
        None => format!("{} ({place})", quote(schema.label())),
    }
}

fn schema_change(changed: &SchemaChange) -> String {
    let recorded = changed
        .recorded
        .as_ref()
        .map_or_else(|| "spec-driven (unrecorded)".to_owned(), schema_label);
    match &changed.reason {
        SchemaChangeReason::ContentChanged => {
            format!("the schema file changed since it was approved with {recorded}")
        }
        SchemaChangeReason::OtherSchema => format!("approved with another schema, {recorded}"),
        SchemaChangeReason::Redeclared { declared } => format!(
            "the change now declares schema {}; approved with {recorded}",
            quote(declared)
        ),
    }
}

fn location(location: &ChangeLocation) -> String {
    match location.directory() {
        Some(directory) => format!("{} in {}", location.state(), quote(directory)),
        None => "its directory is gone".to_owned(),
    }
}

fn cause(a: &ArtifactStatus) -> String {
    match a.state {
        ApprovalState::Approved => String::new(),
        ApprovalState::Unbound => "no binding: needs an explicit decision".to_owned(),
        ApprovalState::Changed if a.changes.is_none() => {
            "its own files changed since approval (approved before ledger kept approved files: re-approve to list them)".to_owned()
        }
        ApprovalState::Changed => "its own files changed since approval:".to_owned(),
        ApprovalState::Reset => format!("upstream changed: {}", a.reset_by.join(", ")),
        ApprovalState::Blocked => a.blocked.clone().unwrap_or_default(),
        ApprovalState::Archived => "archived as approved (byte-identical)".to_owned(),
        ApprovalState::Gone => "the change's files are gone (neither active nor archived)".to_owned(),
        ApprovalState::Skipped => "skipped: the change sets skip_specs in .openspec.yaml".to_owned(),
    }
}

/// `<id>: a <kind> record refused on <ref> after <record>`, or as much of
/// that as is known.
fn orphan_line(orphan: &ledger_core::records::Orphan) -> String {
    let what = format!("{}: a {} record refused", orphan.id, orphan.kind);
    match (&orphan.reference, &orphan.follows) {
        (Some(reference), Some(previous)) => {
            format!("{what} on {} after {previous}", quote(reference))
        }
        (None, Some(previous)) => format!("{what} after {previous}, which no ref holds"),
        (_, None) => format!("{what} as the first record of a ref"),
    }
}

fn store_report(report: &StoreReport) -> String {
    let mut out = format!(
        "{} records, {} pointers: {}\n",
        report.records,
        report.refs.len(),
        if report.is_clean() {
            "clean"
        } else {
            "problems found"
        }
    );
    let mut section = |title: &str, lines: Vec<String>| {
        if !lines.is_empty() {
            out.push_str(&format!("{title} ({}):\n", lines.len()));
            for line in lines {
                out.push_str(&format!("  {line}\n"));
            }
        }
    };
    section(
        "orphan records (ledger store decide)",
        report.orphans.iter().map(orphan_line).collect(),
    );
    section("temporary files", report.temp_files.clone());
    section(
        "corrupt or untrusted entries",
        report
            .corrupt
            .iter()
            .map(|c| format!("{}: {}", c.file, c.reason))
            .collect(),
    );
    section(
        "refs whose heads went apart (ledger store resolve)",
        report
            .divergent
            .iter()
            .map(|d| format!("{}: {}", quote(&d.reference), d.heads.join(", ")))
            .collect(),
    );
    section(
        "pointers to missing records",
        report
            .dangling
            .iter()
            .map(|d| format!("{} -> {}", d.reference, d.missing))
            .collect(),
    );
    section(
        "ref lock files left behind (ledger store unlock)",
        report
            .locks
            .iter()
            .map(|l| {
                let age = humantime::format_duration(std::time::Duration::from_secs(l.age_seconds));
                let state = match l.abandoned {
                    true => "abandoned",
                    false => "a writer may hold it",
                };
                format!("{}: {age} old, {state}", quote(&l.file))
            })
            .collect(),
    );
    if let Some(cache) = &report.cache {
        let state = if cache.intact {
            format!("{} files", cache.entries)
        } else {
            "does not check out; the next expansion replaces it".to_owned()
        };
        out.push_str(&format!("digest cache: {} bytes, {state}\n", cache.bytes));
    }
    out
}
