//! Gate runs and the freshness of their evidence as text.

use super::names;
use crate::{
    gate::{DeclaredRun, DeclaredRuns, DeclaredStatus, Freshness, RunOutcome, StaleReason},
    quote::quote,
};

/// Whether a gate's evidence is fresh, else every reason it is stale (the
/// changed paths of an inputs change listed under it).
pub fn freshness(f: &Freshness) -> String {
    if f.fresh {
        let e = f.evidence.as_ref();
        return format!(
            "fresh: gate {} passed at {} on {}; reused, not run\n",
            quote(&f.gate),
            quote(e.map_or("?", |e| e.started_at.as_str())),
            e.map_or_else(|| "?".to_owned(), |e| e.fingerprint().to_string()),
        );
    }
    let mut out = format!("stale: gate {}\n", quote(&f.gate));
    for reason in &f.reasons {
        out.push_str(&format!("  - {reason}\n"));
        if let StaleReason::InputsChanged { comparison } = reason {
            for line in super::comparison(comparison).lines().skip(3) {
                out.push_str(&format!("    {line}\n"));
            }
        }
    }
    out
}

/// Every declared gate's freshness, then one line of which are stale.
pub fn freshness_all(checked: &[Freshness]) -> String {
    let stale: Vec<String> = (checked.iter().filter(|f| !f.fresh))
        .map(|f| f.gate.clone())
        .collect();
    let mut text: String = checked.iter().map(freshness).collect();
    text.push_str(&match stale.is_empty() {
        true => format!("all {} declared gate(s) fresh\n", checked.len()),
        false => format!(
            "{} of {} declared gate(s) stale: {}\n",
            stale.len(),
            checked.len(),
            names(&stale)
        ),
    });
    text
}

/// What a run did: reused (with the evidence), or how the command ended and
/// where its evidence is recorded.
pub fn run_outcome(outcome: &RunOutcome) -> String {
    if outcome.reused {
        return format!("ledger: {}\n", freshness(&outcome.freshness).trim_end());
    }
    let e = &outcome.evidence;
    let status = match (e.exit_status, e.signal) {
        (Some(code), _) => format!("exited {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "was killed by a signal".to_owned(),
    };
    let mut out = format!(
        "ledger: gate {} {status} after {:.1} s; evidence recorded on {}\n",
        quote(e.spec.name()),
        e.duration_ms as f64 / 1000.0,
        e.fingerprint()
    );
    if e.left_in_group {
        out.push_str("ledger: processes it left in its process group were stopped\n");
    }
    if let Some((kept, cut)) = e.output.as_ref().and_then(|k| Some((k, k.truncated?))) {
        // The command's bytes kept, the elision marker apart.
        out.push_str(&format!(
            "ledger: {} of its {} output bytes kept (the bound), the start and the end: {} dropped between them{}; `ledger gate show {}` prints them\n",
            kept.kept_bytes().saturating_sub(cut.marker_bytes),
            kept.total_bytes,
            cut.describe(),
            match cut.marker_bytes {
                0 => "",
                _ => " (a line there says so)",
            },
            quote(e.spec.name())
        ));
    }
    if let Some(why) = &e.not_reusable {
        // Built by the core for this run, its paths quoted.
        out.push_str(&format!("ledger: this evidence is not reusable: {why}\n"));
    }
    out
}

/// One declared gate of a run of them all, as it is settled.
pub fn declared_run(run: &DeclaredRun) -> String {
    match &run.outcome {
        Some(outcome) => run_outcome(outcome),
        None => format!(
            "ledger: gate {} not run: it needs {}, which did not pass\n",
            quote(&run.gate),
            names(&run.blocked_by)
        ),
    }
}

/// The closing line of a run of every declared gate: which were reused,
/// ran, failed, or not run.
pub fn declared_runs(runs: &DeclaredRuns) -> String {
    let of = |status: DeclaredStatus| -> Vec<String> {
        (runs.runs.iter().filter(|r| r.status == status))
            .map(|r| r.gate.clone())
            .collect()
    };
    let mut out = format!("ledger: {} declared gate(s):", runs.runs.len());
    for (status, said) in [
        (DeclaredStatus::Reused, "reused (fresh, not run)"),
        (DeclaredStatus::Passed, "ran and passed"),
        (DeclaredStatus::Failed, "failed"),
        (DeclaredStatus::Blocked, "not run (a need did not pass)"),
    ] {
        let gates = of(status);
        if !gates.is_empty() {
            out.push_str(&format!(" {said}: {};", names(&gates)));
        }
    }
    out.pop();
    out.push('\n');
    out
}

/// A gate's kept output: its bytes as text, those that are not UTF-8
/// replaced (the structured result keeps them exactly), or that none is kept.
pub fn output(output: &Option<crate::Bytes>) -> String {
    match output {
        Some(bytes) => String::from_utf8_lossy(&bytes.0).into_owned(),
        None => "no output recorded\n".to_owned(),
    }
}
