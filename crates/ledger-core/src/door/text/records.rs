//! Inventories, comparisons, overlaps and the store's health as text.

use std::time::Duration;

use super::plural;
use crate::{
    expand::{Entry, ExclusionMatch, Inventory, Overlap},
    quote::quote,
    records::{ChangeKind, Comparison, Orphan, RecordId, StoreReport},
};

/// `<mode> <kind> <digest>\t<path>`, the path quoted when it holds odd characters.
pub fn entry_line(entry: &Entry) -> String {
    format!(
        "{} {:<7} {:<64}\t{}\n",
        entry.mode(),
        entry.kind(),
        entry.digest_text(),
        quote(entry.path.as_str())
    )
}

/// `<mode> <kind> <digest>\t<path>\0`: the path raw, for `entries -z`.
pub fn entry_record(entry: &Entry) -> String {
    format!(
        "{} {:<7} {:<64}\t{}\0",
        entry.mode(),
        entry.kind(),
        entry.digest_text(),
        entry.path.as_str()
    )
}

/// Every entry ([`entry_line`]), then the fingerprint.
pub fn entries(inventory: &Inventory) -> String {
    let mut text: String = inventory.entries.iter().map(entry_line).collect();
    text.push_str(&format!("{}\n", inventory.fingerprint));
    text
}

/// Every entry ([`entry_record`]), then the fingerprint, each ended by NUL.
pub fn entries_nul(inventory: &Inventory) -> String {
    let mut text: String = inventory.entries.iter().map(entry_record).collect();
    text.push_str(&format!("{}\0", inventory.fingerprint));
    text
}

/// What each declared exclusion removes: `<exclusion>\t<path>` per path it
/// removes, or `<exclusion>\t(removes nothing)`, then one line per exclusion
/// with its reason.
pub fn exclusion_matches(matches: &[ExclusionMatch]) -> String {
    let mut text = String::new();
    for m in matches {
        let exclusion = quote(&m.exclusion.path);
        for path in &m.paths {
            text.push_str(&format!("{exclusion}\t{}\n", quote(path.as_str())));
        }
        if m.paths.is_empty() {
            text.push_str(&format!("{exclusion}\t(removes nothing)\n"));
        }
    }
    for m in matches {
        let kind = if m.exclusion.pattern {
            "pattern"
        } else {
            "path"
        };
        text.push_str(&format!(
            "excluded by {kind} {} ({}): {}\n",
            quote(&m.exclusion.path),
            plural(m.paths.len(), "path"),
            quote(&m.exclusion.reason)
        ));
    }
    if matches.is_empty() {
        text.push_str("no exclusion declared\n");
    }
    text
}

/// A readable comparison: the verdict, both fingerprints, then the changed
/// paths grouped by reason.
pub fn comparison(c: &Comparison) -> String {
    let mut out = String::new();
    if c.matches {
        out.push_str(&format!(
            "match: {} ({} paths unchanged)\n",
            c.new, c.unchanged
        ));
        return out;
    }
    out.push_str(&format!(
        "mismatch: {} change{}, {} paths unchanged\n  recorded {}\n  now      {}\n",
        c.changes.len(),
        if c.changes.len() == 1 { "" } else { "s" },
        c.unchanged,
        c.old,
        c.new
    ));
    for kind in ChangeKind::ALL {
        let paths: Vec<&str> = c.of_kind(kind).map(|ch| ch.path()).collect();
        if paths.is_empty() {
            continue;
        }
        out.push_str(&format!("{} ({}):\n", kind.label(), paths.len()));
        for path in paths {
            out.push_str(&format!("  {}\n", quote(path)));
        }
    }
    out
}

/// One line per shared path (`path\tname, name`), then the verdict.
pub fn overlap(found: &Overlap) -> String {
    let mut text: String = (found.shared.iter())
        .map(|shared| {
            format!(
                "{}\t{}\n",
                quote(shared.path.as_str()),
                shared.scopes.join(", ")
            )
        })
        .collect();
    let sizes: Vec<String> = (found.scopes.iter())
        .map(|s| format!("{} ({})", s.name, plural(s.paths, "path")))
        .collect();
    text.push_str(&match found.disjoint {
        true => format!("disjoint: {}\n", sizes.join(", ")),
        false => format!(
            "{} shared: {}; run these writers one after another\n",
            plural(found.shared.len(), "path"),
            sizes.join(", ")
        ),
    });
    text
}

/// What resolving a ref whose heads went apart did.
pub fn resolved(reference: &str, kept: &RecordId) -> String {
    format!(
        "{} now names {kept}; the other heads stay in its history\n",
        quote(reference)
    )
}

/// `<id>: a <kind> record refused on <ref> after <record>`, or as much of
/// that as is known.
fn orphan_line(orphan: &Orphan) -> String {
    let what = format!("{}: a {} record refused", orphan.id, orphan.kind);
    match (&orphan.reference, &orphan.follows) {
        (Some(reference), Some(previous)) => {
            format!("{what} on {} after {previous}", quote(reference))
        }
        (None, Some(previous)) => format!("{what} after {previous}, which no ref holds"),
        (_, None) => format!("{what} as the first record of a ref"),
    }
}

fn age(seconds: u64) -> humantime::FormattedDuration {
    humantime::format_duration(Duration::from_secs(seconds))
}

/// The store's health: the counts, then each kind of problem with what to do.
pub fn store_report(report: &StoreReport) -> String {
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
        (report.corrupt.iter())
            .map(|c| format!("{}: {}", c.file, c.reason))
            .collect(),
    );
    section(
        "refs whose heads went apart (ledger store resolve)",
        (report.divergent.iter())
            .map(|d| format!("{}: {}", quote(&d.reference), d.heads.join(", ")))
            .collect(),
    );
    section(
        "pointers to missing records",
        (report.dangling.iter())
            .map(|d| format!("{} -> {}", d.reference, d.missing))
            .collect(),
    );
    section(
        "ref lock files left behind (ledger store unlock)",
        (report.locks.iter())
            .map(|l| {
                let state = match l.abandoned {
                    true => "abandoned",
                    false => "a writer may hold it",
                };
                format!("{}: {} old, {state}", quote(&l.file), age(l.age_seconds))
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
