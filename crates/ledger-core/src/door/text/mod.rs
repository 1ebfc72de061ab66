//! Results as text: what the CLI prints without `--json`, and what
//! `ledger mcp` and the OpenCode plugin give a model beside the structured
//! result. Written once here, so that a person at the terminal and an agent
//! read the same words.
//!
//! Each function renders one result type of a wing; a value of the
//! workspace (a path, a name, a reason) is quoted ([`quote`]) so that no
//! byte of it can pass for ledger's own words. The text names the CLI's
//! commands where it says what to do next: they are the one vocabulary
//! every caller shares.
//!
//! ```
//! use ledger_core::door::text;
//! use ledger_core::records::RecordId;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let id: RecordId = "0000000000000000000000000000000000000000000000000000000000000000".parse()?;
//! assert_eq!(
//!     text::resolved("changes/add-auth", &id),
//!     format!("changes/add-auth now names {id}; the other heads stay in its history\n")
//! );
//! # Ok(())
//! # }
//! ```

mod approval;
mod gate;
mod lifecycle;
mod records;
mod resume;
mod verdict;

pub use approval::{approved, provenance, state, state_log, status, tasks};
pub use gate::{declared_run, declared_runs, freshness, freshness_all, output, run_outcome};
pub use lifecycle::{finalization, validation};
pub use records::{
    comparison, entries, entries_nul, entry_line, entry_record, exclusion_matches, overlap,
    resolved, store_report,
};
pub use resume::{changes, resume};
pub use verdict::{verdict_check, verdict_log, verdict_written};

use crate::quote::quote;

/// Items joined by `, `, or `-` when there are none.
fn list(items: Vec<String>) -> String {
    if items.is_empty() {
        "-".to_owned()
    } else {
        items.join(", ")
    }
}

/// Names, each quoted, joined by `, `.
fn names(items: &[String]) -> String {
    (items.iter().map(|g| quote(g).into_owned()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `1 path`, `2 paths`.
fn plural(count: usize, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// A fingerprint's first 19 characters (`sha256:` and 12 hex digits), or `-`.
fn short(fp: Option<crate::expand::Fingerprint>) -> String {
    fp.map_or_else(|| "-".to_owned(), |f| f.to_string()[..19].to_owned())
}

/// A field's value quoted, or `-` when empty.
fn or_none(text: &str) -> String {
    if text.is_empty() {
        "-".to_owned()
    } else {
        quote(text).into_owned()
    }
}
