//! The resume report (`check`) and the list of changes as text.

use super::{list, or_none};
use crate::{
    approval::ApprovalState,
    lifecycle::{ChangeResume, ChangeSummary, Note, NoteKind, Resume, Work, WorkKind},
    openspec::ChangeLocation,
    quote::quote,
};

/// One line per change (`add-auth  active  approvals 3/4  tasks 1/2 …`), or
/// `no changes`.
pub fn changes(changes: &[ChangeSummary]) -> String {
    if changes.is_empty() {
        return "no changes\n".to_owned();
    }
    changes.iter().map(summary_line).collect()
}

/// `add-auth  active    approvals 3/4  tasks 1/2  PASS  next: validation`.
fn summary_line(c: &ChangeSummary) -> String {
    let mut line = format!(
        "{:<24} {:<8}",
        quote(&c.change),
        if c.retired {
            "retired"
        } else {
            c.location.state()
        }
    );
    line.push_str(&format!("  approvals {}/{}", c.approved, c.artifacts));
    match c.tasks {
        Some(t) if t.total > 0 && t.done == t.total => line.push_str("  tasks complete"),
        Some(t) if t.total > 0 => line.push_str(&format!("  tasks {}/{}", t.done, t.total)),
        Some(_) => line.push_str("  no tasks"),
        None => line.push_str("  files gone"),
    }
    match c.verdict {
        Some(v) => line.push_str(&format!("  verdict {} (recorded)", v.as_str())),
        None => line.push_str("  no verdict"),
    }
    if let Some(next) = &c.next_outcome {
        line.push_str(&format!("  next: {}", quote(next)));
    }
    line.push('\n');
    line
}

/// Everything a resuming session must know: each change with its approvals,
/// verdict, envelope, tasks and work (each item with the command that shows
/// it), the declared gates, the verdicts, the store, then `nothing to do` or
/// the count of work items.
pub fn resume(resume: &Resume) -> String {
    let mut out = String::new();
    if resume.changes.is_empty() {
        out.push_str("no active change\n");
    }
    for change in &resume.changes {
        out.push_str(&change_text(change));
    }
    if !resume.declared_gates.is_empty() {
        let gates: Vec<String> = (resume.declared_gates.iter())
            .map(|g| {
                format!(
                    "{} {}",
                    quote(&g.gate),
                    if g.fresh { "fresh" } else { "stale" }
                )
            })
            .collect();
        out.push_str(&format!("declared gates: {}\n", gates.join(", ")));
    }
    if !resume.verdicts.is_empty() {
        let verdicts: Vec<String> = (resume.verdicts.iter())
            .map(|v| {
                let standing = if v.stands { "stands" } else { "does not stand" };
                format!("{} {standing}", quote(&v.name))
            })
            .collect();
        out.push_str(&format!("verdicts: {}\n", verdicts.join(", ")));
    }
    let store = &resume.store;
    out.push_str(&format!(
        "store: {} records, {} pointers, {}\n",
        store.records,
        store.refs.len(),
        if store.is_clean() {
            "clean"
        } else {
            "problems found"
        }
    ));
    for work in resume.work.iter().filter(|w| w.change.is_none()) {
        out.push_str(&work_line(work, None));
    }
    for note in &resume.notes {
        out.push_str(&note_line(note));
    }
    let items = resume.work.len();
    if resume.nothing_to_do {
        out.push_str("nothing to do\n");
    } else {
        out.push_str(&format!(
            "work to do: {items} item{}\n",
            if items == 1 { "" } else { "s" }
        ));
    }
    out
}

/// `note: <message> (<the flags that act on it>)`.
fn note_line(note: &Note) -> String {
    let gate = quote(note.subject.as_deref().unwrap_or("GATE")).into_owned();
    let hint = match note.kind {
        NoteKind::UnusedPrerequisites => return format!("note: {}\n", note.message),
        NoteKind::CommandsNotRun => {
            format!("--allow-env-cmd, or --gate-env-cmd {gate}:NAME=COMMAND")
        }
    };
    format!("note: {} ({hint})\n", note.message)
}

fn change_text(c: &ChangeResume) -> String {
    let place = match &c.location {
        ChangeLocation::Missing => "its files are gone".to_owned(),
        location => format!(
            "{} in {}",
            location.state(),
            quote(location.directory().unwrap_or_default())
        ),
    };
    let record = c
        .state
        .record
        .map_or_else(|| "no-record".to_owned(), |r| r.to_string());
    let mut out = format!(
        "change {} ({place}; state record: {record})\n",
        quote(&c.change)
    );
    let line = |label: &str, value: String| format!("  {label:<11} {value}\n");
    let approvals: Vec<String> = (c.approvals.artifacts.iter())
        .map(|a| format!("{} {}", quote(&a.artifact), a.state.as_str()))
        .collect();
    out.push_str(&line("approvals", list(approvals)));
    match (&c.validation, &c.finalization) {
        (Some(check), _) => {
            out.push_str(&line(
                "validation",
                format!(
                    "{} on {} {}",
                    check.verdict.as_str(),
                    check.fingerprint,
                    if check.stands {
                        "stands"
                    } else {
                        "does not stand"
                    }
                ),
            ));
            let gates: Vec<String> = (check.gates.iter())
                .map(|g| {
                    let state = if g.fresh && !g.rerun {
                        "fresh"
                    } else {
                        "stale"
                    };
                    format!("{} {state}", quote(&g.gate))
                })
                .collect();
            out.push_str(&line("gates", list(gates)));
        }
        (None, Some(done)) => out.push_str(&line(
            "finalized",
            if done.clean {
                "the finalization checks out".to_owned()
            } else {
                "the finalization does not check out".to_owned()
            },
        )),
        (None, None) => {
            let verdict = c.state.state.validation.as_ref();
            out.push_str(&line(
                "validation",
                verdict.map_or_else(|| "-".to_owned(), |v| v.verdict.as_str().to_owned()),
            ));
        }
    }
    let e = &c.state.state;
    out.push_str(&line("role", or_none(&e.role)));
    out.push_str(&line("outcome", or_none(&e.outcome)));
    if let Some(tasks) = &c.tasks {
        out.push_str(&line(
            "tasks",
            format!(
                "{} of {} done ({})",
                tasks.tasks.done,
                tasks.tasks.total,
                quote(tasks.path.as_str())
            ),
        ));
    }
    let blockers = e.blockers.iter().map(|b| quote(b).into_owned()).collect();
    out.push_str(&line("blockers", list(blockers)));
    out.push_str(&line("next", or_none(c.next.as_deref().unwrap_or(""))));
    if c.work.is_empty() {
        out.push_str("  nothing to do\n");
    } else {
        out.push_str(&format!("  work ({}):\n", c.work.len()));
        for work in &c.work {
            out.push_str(&work_line(work, Some(c)));
        }
    }
    out
}

/// `  - <kind>: <message> (<the command that shows it>)`.
fn work_line(work: &Work, change: Option<&ChangeResume>) -> String {
    let kind = serde_json::to_value(work.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let indent = if change.is_some() { "    " } else { "  " };
    match change
        .and_then(|c| command(work, c))
        .or_else(|| workspace_command(work))
    {
        Some(command) => format!("{indent}- {kind}: {} ({command})\n", work.message),
        None => format!("{indent}- {kind}: {}\n", work.message),
    }
}

/// The command that shows (or does) the work, in the CLI's own flags.
fn command(work: &Work, c: &ChangeResume) -> Option<String> {
    let name = quote(&c.change);
    Some(match work.kind {
        WorkKind::Approval => {
            let artifact = work.subject.as_deref()?;
            let state = (c.approvals.artifacts.iter()).find(|a| a.artifact == artifact)?;
            match state.state {
                ApprovalState::Unbound => format!(
                    "ledger approve --change {name} --artifact {} --source TEXT",
                    quote(artifact)
                ),
                _ => format!("ledger status --change {name}"),
            }
        }
        WorkKind::SchemaChanged => format!("ledger status --change {name}"),
        WorkKind::TasksLeft => format!("ledger tasks --change {name}"),
        WorkKind::Blocker => format!("ledger state set --change {name} --clear-blockers"),
        WorkKind::NotValidated => {
            format!("ledger validate record --change {name} --verdict PASS --source TEXT")
        }
        WorkKind::VerdictFail | WorkKind::PassChanged | WorkKind::PhaseRecord => {
            format!("ledger validate check --change {name}")
        }
        WorkKind::GateStale => format!(
            "ledger gate check --name {}",
            quote(work.subject.as_deref()?)
        ),
        WorkKind::Archive => {
            format!("openspec archive {name} --yes, then ledger finalize check --change {name}")
        }
        WorkKind::Finalization => format!("ledger finalize check --change {name}"),
        WorkKind::Gone => format!("ledger state retire --change {name} --reason TEXT"),
        WorkKind::DeclaredGateStale | WorkKind::VerdictStale | WorkKind::Store => return None,
    })
}

/// The command that shows (or does) work of the workspace.
fn workspace_command(work: &Work) -> Option<String> {
    let subject = || work.subject.as_deref().map(quote);
    Some(match work.kind {
        WorkKind::DeclaredGateStale => format!("ledger gate run {}", subject()?),
        WorkKind::VerdictStale => format!("ledger verdict check --name {}", subject()?),
        WorkKind::Store => "ledger store check".to_owned(),
        _ => return None,
    })
}
