//! Verdicts as text.

use crate::{
    quote::{escape, quote},
    verdict::{VerdictCheck, VerdictEvent, VerdictSummary},
};

/// What recording or downgrading a verdict wrote.
pub fn verdict_written(s: &VerdictSummary) -> String {
    let what = match &s.downgrade {
        None => format!("{} recorded", quote(&s.verdict)),
        Some(d) => format!(
            "{} downgraded to {} ({})",
            quote(&d.from),
            quote(&s.verdict),
            quote(&d.reason)
        ),
    };
    format!(
        "{}: {what} on {} ({} path{})\n  record {}\n",
        quote(&s.name),
        s.fingerprint,
        s.entries,
        if s.entries == 1 { "" } else { "s" },
        s.record
    )
}

/// The verdict and whether it stands, else what changed.
pub fn verdict_check(check: &VerdictCheck) -> String {
    let (Some(latest), Some(comparison)) = (&check.latest, &check.comparison) else {
        return format!("{}: no verdict recorded\n", quote(&check.name));
    };
    let head = format!(
        "{}: {} ({} {}, source {})",
        quote(&check.name),
        quote(&latest.verdict),
        latest.event.as_str(),
        quote(&latest.written_at),
        quote(&latest.source)
    );
    if check.stands {
        let moved = match (&latest.head, &check.head_now) {
            (Some(then), Some(now)) if check.head_moved => format!(
                "HEAD moved since it was recorded ({} -> {now}); the content did not: it still stands\n",
                then.commit
            ),
            _ => String::new(),
        };
        return format!("{head} stands on {}\n{moved}", latest.fingerprint);
    }
    if let Some(why) = &check.unproven {
        return format!(
            "{head} is unproven here: {}\nhint: record the verdict again after a local audit, or trust its signer (--allowed-signers)\n",
            escape(why.as_bytes())
        );
    }
    format!(
        "{head} no longer stands: its state changed\n{}hint: re-audit and record the verdict again, or downgrade it explicitly\n",
        super::comparison(comparison)
    )
}

/// A verdict's records, oldest first: each line, then its findings and
/// downgrade reason; `no verdict recorded` when there is none.
pub fn verdict_log(log: &[VerdictSummary]) -> String {
    if log.is_empty() {
        return "no verdict recorded\n".to_owned();
    }
    log.iter().map(log_entry).collect()
}

fn log_entry(s: &VerdictSummary) -> String {
    let mut out = format!(
        "{} {} {} {} record {}\n  source {}\n",
        quote(&s.written_at),
        s.event.as_str(),
        quote(&s.verdict),
        s.fingerprint,
        s.record,
        quote(&s.source)
    );
    if let (VerdictEvent::Downgraded, Some(d)) = (s.event, &s.downgrade) {
        out.push_str(&format!(
            "  from {} on {}: {}\n",
            quote(&d.from),
            d.audited,
            quote(&d.reason)
        ));
    }
    for finding in &s.findings {
        out.push_str(&format!("  finding {}\n", quote(finding)));
    }
    for report in &s.reports {
        out.push_str(&format!("  report {}\n", quote(report)));
    }
    out
}
