//! The approval verbs: `approve`, `status`, `state show`, `state retire`,
//! `store check` (`state set` and `state log` are in `lifecycle.rs`).

use std::process::ExitCode;

use camino::Utf8PathBuf;
use clap::{Args, Subcommand};
use ledger_core::{
    ApprovalState, ApprovalStatus, ArtifactStatus, ChangeLocation, ChangeSet, CurrentState,
    DEFAULT_CHANGES_ROOT, Error, Fingerprint, SchemaChange, SchemaChangeReason, SchemaSource,
    StartedFrom, Store, StoreReport, TaskRule, WriteBasis, approve_with, changes, current_state,
    quote, retire_from, status,
};

use crate::report::json_line;
use crate::scope_args::default_workspace;

/// Which change, where, and with which artifact graph.
#[derive(Args)]
pub struct ChangeArgs {
    /// The change's name (its directory under the changes root).
    #[arg(long, value_name = "C")]
    pub(crate) change: String,
    #[command(flatten)]
    pub(crate) place: PlaceArgs,
    /// The rule the tracked Tasks file is read and normalized under [default:
    /// the rule the tasks approval recorded, else the schema's
    /// `ledger.task_rule`, else openspec/config.yaml's, else task-checkbox-v1;
    /// `status` uses the rule each binding recorded].
    #[arg(long, value_name = "R", value_parser = crate::scope_args::task_rule)]
    task_rule: Option<TaskRule>,
}

/// Where the workspace and its changes are.
#[derive(Args)]
pub struct PlaceArgs {
    /// Workspace directory [default: the top of the enclosing Git checkout].
    #[arg(long, value_name = "DIR")]
    workspace: Option<Utf8PathBuf>,
    /// Where changes live, relative to the workspace.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_CHANGES_ROOT)]
    changes_root: String,
    /// The artifact schema: a name (`openspec/schemas/NAME/schema.yaml`, else
    /// built in) or a path to a `schema.yaml` [default: the change's
    /// `.openspec.yaml`, else `openspec/config.yaml`, else spec-driven].
    #[arg(long, value_name = "NAME|PATH")]
    schema: Option<String>,
}

impl PlaceArgs {
    pub(crate) fn workspace(&self) -> Result<Utf8PathBuf, Error> {
        match &self.workspace {
            Some(dir) => Ok(dir.clone()),
            None => default_workspace(),
        }
    }

    pub(crate) fn store(&self) -> Result<Store, Error> {
        Ok(Store::open(&self.workspace()?))
    }
}

impl ChangeArgs {
    pub(crate) fn change_set(&self) -> Result<ChangeSet, Error> {
        let mut change = ChangeSet::open(
            self.place.workspace()?,
            &self.change,
            &self.place.changes_root,
            self.place.schema.as_deref(),
        )?;
        change.chosen_task_rule = self.task_rule;
        Ok(change)
    }
}

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
}

/// What a write is based on (docs/approvals.md, What was reviewed).
#[derive(Args)]
pub struct BasisArgs {
    /// The fingerprint the reviewer saw (`sha256:…`); refused with
    /// fingerprint-moved, naming the changed paths, when the set's fingerprint
    /// is another now. Nothing is recorded then.
    #[arg(long, value_name = "FINGERPRINT")]
    reviewed: Option<String>,
    #[command(flatten)]
    expect: ExpectArgs,
}

impl BasisArgs {
    pub(crate) fn basis(&self) -> Result<WriteBasis, Error> {
        Ok(WriteBasis {
            reviewed: self.reviewed.as_deref().map(str::parse).transpose()?,
            started_from: self.expect.started_from()?,
        })
    }
}

/// The state record a write started from.
#[derive(Args)]
pub struct ExpectArgs {
    /// The state record this write started from (`none`: no state was
    /// recorded); refused with pointer-conflict when the pointer names another
    /// [default: the head as read now].
    #[arg(long, value_name = "RECORD|none")]
    expect: Option<String>,
}

impl ExpectArgs {
    pub(crate) fn started_from(&self) -> Result<Option<StartedFrom>, Error> {
        self.expect.as_deref().map(str::parse).transpose()
    }
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
    #[command(after_help = crate::EXIT_CODES)]
    Set(Box<crate::lifecycle::SetArgs>),
    /// Walk a change's chain of state records, newest first: record, time,
    /// what changed (for investigating a discrepancy; normal reads never walk it).
    #[command(after_help = crate::EXIT_CODES)]
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
    },
}

#[derive(Subcommand)]
pub enum StoreCommand {
    /// List orphan records, leftover temporary files, corrupt records and
    /// pointers to missing records; exit 0 only when there are none.
    Check {
        #[command(flatten)]
        place: PlaceArgs,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn run_approve(args: ApproveArgs) -> Result<(String, ExitCode), Error> {
    let change = args.change.change_set()?;
    let store = args.change.place.store()?;
    let binding = approve_with(
        &store,
        &change,
        &args.artifact,
        &args.source,
        args.absent.into(),
        &args.basis.basis()?,
    )?;
    // A likely wrong rule is advice, not a failure: the approval is recorded.
    for warning in change.task_rule_warnings(&binding) {
        eprintln!("warning: {warning}");
    }
    let text = format!(
        "approved {} of {} at {} (source: {})\n{}\n",
        binding.artifact, binding.change, binding.observed_at, binding.source, binding.fingerprint
    );
    Ok((text, ExitCode::SUCCESS))
}

pub fn run_status(args: StatusArgs) -> Result<(String, ExitCode), Error> {
    let change = args.change.change_set()?;
    let status = status(&args.change.place.store()?, &change)?;
    let text = if args.json {
        json_line(&status)
    } else {
        status_table(&status)
    };
    let code = if status.all_approved() { 0 } else { 1 };
    Ok((text, ExitCode::from(code)))
}

pub fn run_state(command: StateCommand) -> Result<(String, ExitCode), Error> {
    let (change, place, json) = match command {
        StateCommand::Show {
            change,
            place,
            json,
        } => (change, place, json),
        StateCommand::Set(args) => return crate::lifecycle::run_set(*args),
        StateCommand::Log(args) => return crate::lifecycle::run_log(args),
        StateCommand::Retire {
            change,
            reason,
            place,
            expect,
        } => {
            let from = expect.started_from()?;
            let record = retire_from(&place.store()?, &change, &reason, from.as_ref())?;
            let text = format!("retired the state of {change} (record {record}): {reason}\n");
            return Ok((text, ExitCode::SUCCESS));
        }
    };
    let store = place.store()?;
    let names: Vec<String> = match change {
        Some(c) => vec![c],
        None => changes(&store)?,
    };
    let states = names
        .iter()
        .map(|c| current_state(&store, c).map(CurrentState::from))
        .collect::<Result<Vec<_>, Error>>()?;
    let text = if json {
        json_line(&states)
    } else {
        states.iter().map(crate::lifecycle::state_text).collect()
    };
    Ok((text, ExitCode::SUCCESS))
}

pub fn run_store(command: StoreCommand) -> Result<(String, ExitCode), Error> {
    let StoreCommand::Check { place, json } = command;
    let report = place.store()?.check()?;
    let text = if json {
        json_line(&report)
    } else {
        store_report(&report)
    };
    let code = if report.is_clean() { 0 } else { 1 };
    Ok((text, ExitCode::from(code)))
}

/// The first 12 hex digits: enough to tell fingerprints apart in a table.
pub(crate) fn short(fp: Option<Fingerprint>) -> String {
    fp.map_or_else(|| "-".to_owned(), |f| f.to_string()[..19].to_owned())
}

fn status_table(status: &ApprovalStatus) -> String {
    let mut out = format!(
        "change {} ({}; state record: {})\n",
        status.change,
        location(&status.location),
        status
            .state_record
            .as_ref()
            .map_or_else(|| "none".to_owned(), |r| r.to_string())
    );
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
            retired.observed_at, retired.reason
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
        "orphan records",
        report.orphans.iter().map(|o| o.to_string()).collect(),
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
        "pointers to missing records",
        report
            .dangling
            .iter()
            .map(|d| format!("{} -> {}", d.reference, d.missing))
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
