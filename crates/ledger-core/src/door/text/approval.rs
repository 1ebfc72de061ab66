//! Approvals, the state envelope and a change's tasks as text.

use super::{list, or_none, short};
use crate::{
    approval::{
        ApprovalState, ApprovalStatus, Approved, ArtifactStatus, ChangeTasks, CurrentState,
        LogEntry, SchemaChange, SchemaChangeReason,
    },
    openspec::{ChangeLocation, SchemaSource},
    quote::{quote, quote_bytes},
    records::Provenance,
};

/// `approved <artifact> of <change> at <time> (source: …)`, then the fingerprint.
pub fn approved(approved: &Approved) -> String {
    let binding = &approved.binding;
    format!(
        "approved {} of {} at {} (source: {})\n{}\n",
        quote(&binding.artifact),
        quote(&binding.change),
        binding.observed_at,
        quote(&binding.source),
        binding.fingerprint
    )
}

/// The table of `ledger status`: the change, its schema, then each
/// artifact's state with its cause and changed paths.
pub fn status(status: &ApprovalStatus) -> String {
    let record =
        (status.state_record.as_ref()).map_or_else(|| "no-record".to_owned(), |r| r.to_string());
    let mut out = format!(
        "change {} ({}; state record: {record})\n",
        status.change,
        location(&status.location),
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
    let (origin, signature) = provenance(p);
    Some(format!("state record {origin}, {signature}\n"))
}

/// Where a record came from (`fetched from …`) and who signed it.
pub fn provenance(p: &Provenance) -> (String, String) {
    let origin = match (&p.remote, p.local) {
        (Some(remote), _) => format!("fetched from {}", quote(remote)),
        (None, true) => "written by this store".to_owned(),
        (None, false) => "reached this store through Git".to_owned(),
    };
    let signature = match (&p.signer, &p.key, &p.signature_problem) {
        (Some(signer), Some(key), _) => format!("signed by {} ({key})", quote(signer)),
        (_, Some(key), Some(problem)) => {
            format!(
                "signed by key {key}, which does not count: {}",
                quote(problem)
            )
        }
        (_, Some(key), None) => format!("signed by key {key}"),
        (_, None, _) => "unsigned".to_owned(),
    };
    (origin, signature)
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
    let recorded = (changed.recorded.as_ref())
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
    let paths = |paths: &[String]| {
        (paths.iter().map(|p| quote(p).into_owned()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match a.state {
        ApprovalState::Approved if a.baselines_unbound => {
            "its deltas' baselines are not bound (approved before ledger bound them: approve again to bind them)".to_owned()
        }
        ApprovalState::Approved => String::new(),
        ApprovalState::Changed if !a.baselines_moved.is_empty() => {
            format!("baseline moved since approval: {}", paths(&a.baselines_moved))
        }
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

/// The readable summary of `ledger state show`.
pub fn state(current: &CurrentState) -> String {
    let e = &current.state;
    let record = (current.record).map_or_else(|| "no-record".to_owned(), |r| r.to_string());
    let mut out = format!("change {} (state record: {record})\n", quote(&e.change));
    let line = |label: &str, value: &str| format!("  {label:<15} {value}\n");
    let quoted = |items: &[String]| list(items.iter().map(|i| quote(i).into_owned()).collect());
    if let Some(retired) = &e.retired {
        out.push_str(&line(
            "retired",
            &format!(
                "{} ({})",
                quote(&retired.reason),
                quote(&retired.observed_at)
            ),
        ));
    }
    out.push_str(&line("role", &or_none(&e.role)));
    out.push_str(&line("outcome", &or_none(&e.outcome)));
    out.push_str(&line("areas", &quoted(&e.affected_areas)));
    let approvals: Vec<String> = (e.bindings.iter())
        .map(|b| format!("{} {}", quote(&b.artifact), short(Some(b.fingerprint))))
        .collect();
    out.push_str(&line("approvals", &quoted(&approvals)));
    out.push_str(&line("tasks done", &quoted(&e.tasks_completed)));
    out.push_str(&line("tasks left", &quoted(&e.tasks_remaining)));
    let checks: Vec<String> = (e.checks.iter())
        .map(|c| format!("{}: {}", quote(&c.name), quote(&c.result)))
        .collect();
    out.push_str(&line("checks", &quoted(&checks)));
    out.push_str(&line("blockers", &quoted(&e.blockers)));
    out.push_str(&line(
        "next outcome",
        &or_none(e.next_outcome.as_deref().unwrap_or("")),
    ));
    let validation = e.validation.as_ref().map_or_else(
        || "-".to_owned(),
        |v| {
            format!(
                "{} on {} ({} paths; source {}; {})",
                v.verdict.as_str(),
                v.fingerprint,
                v.inventory.entries.len(),
                quote(&v.source),
                quote(&v.observed_at)
            )
        },
    );
    out.push_str(&line("validation", &validation));
    if let Some(reason) = e.validation.as_ref().and_then(|v| v.no_delivery.as_deref()) {
        out.push_str(&line("no delivery", &quote(reason)));
    }
    out
}

/// One record of a change's state log: its id and time, then each field it changed.
pub fn state_log(entry: &LogEntry) -> String {
    let mut out = format!("{} {}\n", entry.record, quote(&entry.written_at));
    for change in &entry.changes {
        out.push_str(&format!("  {}: {}\n", change.field, change.summary));
    }
    if entry.changes.is_empty() {
        out.push_str("  (no field changed)\n");
    }
    out
}

/// A heading with the file, rule and progress, then one line per task:
/// its box, line number and text. The text shown is the task's exact bytes,
/// quoted (a byte that is not UTF-8 as `\351`), not its lossy `text`: two
/// lines that differ in any byte never print the same.
pub fn tasks(tasks: &ChangeTasks) -> String {
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
