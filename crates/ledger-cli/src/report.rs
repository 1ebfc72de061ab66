//! Text and JSON renderings of results.

use ledger_core::{
    expand::Entry,
    quote::quote,
    records::{ChangeKind, Comparison},
};

pub use ledger_core::records::to_pretty_json as json_line;

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

/// A readable comparison: the verdict, both fingerprints, then the changed
/// paths grouped by reason.
pub fn comparison_text(c: &Comparison) -> String {
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
