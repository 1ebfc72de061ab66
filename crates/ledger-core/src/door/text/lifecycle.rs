//! A change's validation PASS and its finalization as text.

use crate::{
    lifecycle::{Finalization, PhaseRecordStanding, ValidationCheck},
    quote::quote,
    records::Change,
};

/// Whether a change's validation verdict stands, what changed since, and
/// each gate it relied on.
pub fn validation(check: &ValidationCheck) -> String {
    let verdict = if check.stands {
        "stands"
    } else {
        "does not stand"
    };
    let mut out = format!(
        "validation {} of {} {verdict} (record {})\n",
        check.verdict.as_str(),
        quote(&check.change),
        check.record
    );
    if let Some(reason) = &check.no_delivery {
        out.push_str(&format!("  no delivery files: {}\n", quote(reason)));
    }
    for line in super::comparison(&check.comparison).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    phase_records(&mut out, &check.phase_records);
    for gate in &check.gates {
        let state = match (gate.fresh, gate.rerun) {
            (true, false) => "fresh",
            (_, true) => "re-run since the verdict (its latest evidence is another record)",
            (false, false) => "stale",
        };
        out.push_str(&format!("  gate {}: {state}\n", quote(&gate.gate)));
        for reason in &gate.reasons {
            out.push_str(&format!("    - {reason}\n"));
        }
    }
    out
}

/// Whether a change's finalization checks out, and every difference from
/// what the PASS and the archive allow.
pub fn finalization(done: &Finalization) -> String {
    let verdict = if done.clean {
        "only expected completion outputs"
    } else if done.new_changes.is_empty() && done.spec_mismatches.is_empty() {
        "sync-unverified"
    } else {
        "blocked by new changes"
    };
    let mut out = format!(
        "finalization of {}: {verdict} (PASS {})\n",
        quote(&done.change),
        done.fingerprint
    );
    if let Some(moved) = &done.archive_move {
        out.push_str(&format!(
            "archive move: {} files, {} -> {}\n",
            moved.files.len(),
            quote(&moved.from),
            quote(&moved.to)
        ));
    }
    section(&mut out, "spec sync", &done.spec_sync);
    section(&mut out, "completion evidence", &done.completion_evidence);
    section(&mut out, "registry", &done.registry);
    section(&mut out, "new changes", &done.new_changes);
    if !done.spec_mismatches.is_empty() {
        out.push_str(&format!(
            "spec sync differs from the approved deltas ({}):\n",
            done.spec_mismatches.len()
        ));
    }
    for m in &done.spec_mismatches {
        let headers: Vec<String> = m.headers.iter().map(|h| quote(h).into_owned()).collect();
        out.push_str(&format!(
            "  capability {} ({}): {}\n",
            quote(&m.capability),
            quote(&m.path),
            headers.join(", ")
        ));
    }
    if !done.sync_unverified.is_empty() {
        out.push_str(&format!(
            "sync-unverified ({}):\n",
            done.sync_unverified.len()
        ));
    }
    for u in &done.sync_unverified {
        out.push_str(&format!(
            "  capability {} ({}): {}\n",
            quote(&u.capability),
            quote(&u.path),
            quote(&u.reason)
        ));
    }
    phase_records(&mut out, &done.phase_records);
    out
}

/// Each phase record that is not one regular file, with what is inside it.
fn phase_records(out: &mut String, records: &[PhaseRecordStanding]) {
    for record in records.iter().filter(|r| !r.stands()) {
        out.push_str(&format!(
            "  phase record {}: {}, not one regular file\n",
            quote(&record.path),
            record.kind.as_str()
        ));
        for file in &record.inside {
            out.push_str(&format!("    inside: {}\n", quote(file.as_str())));
        }
    }
}

fn section(out: &mut String, title: &str, changes: &[Change]) {
    if changes.is_empty() {
        return;
    }
    out.push_str(&format!("{title} ({}):\n", changes.len()));
    for change in changes {
        out.push_str(&format!(
            "  {}: {}\n",
            change.change.label(),
            quote(change.path())
        ));
    }
}
