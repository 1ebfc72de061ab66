//! The CLI's words for what the core says in the domain's.
//!
//! The core's messages are read through every door (CLI, Python, Node), so they
//! name no flag: "declare it as a repository of the scope", not "--repo". Where
//! the flag is what a CLI user needs next, the CLI prints one `hint:` line after
//! its `error[<code>]: <message>` line; this module is the one table of them.
//! Most hints are keyed by the error's variant alone. `invalid-argument` covers
//! many causes, so its hints are keyed by a phrase of the core's message as
//! well; `tests/cli/verbs.rs` provokes each of those, so a reworded core message
//! cannot silently lose its hint.

use std::io::Write;

use ledger_core::Error;

/// `invalid-argument` hints: a phrase of the core's message, and the hint.
const INVALID_ARGUMENT: &[(&str, &str)] = &[
    (
        "is named by the scope (an exact path or a Tasks file)",
        "the record file is named by --path or --tasks; give --out another file",
    ),
    (
        "cannot be normalized as a Tasks file",
        "drop --tasks for a gate; list the file with --root or --path",
    ),
    (
        "only the phase records named as such",
        "name a phase record with --phase-record, not --exclude",
    ),
    (
        "on a record's word; name that schema file again",
        "give the schema file with --schema PATH",
    ),
];

/// The hint line (without `hint: `) the CLI prints after `e`, if any.
pub fn hint(e: &Error) -> Option<&'static str> {
    Some(match e {
        Error::NestedRepository { .. } => "declare it with --repo, or exclude it with --exclude",
        Error::Git { message, .. } if message.starts_with("not a Git repository (declared") => {
            "check the --repo path"
        }
        Error::GitEnvironment { .. } => "name the workspace with --workspace",
        Error::UnknownSchema { .. } => "give the schema file with --schema PATH",
        Error::MissingSource { .. } => "give the source with --source",
        Error::AbsentArtifact { .. } => "approve it as absent with --absent",
        Error::NoDelivery { .. } => {
            "name the delivery with --root or --path, or declare none with --no-delivery REASON"
        }
        Error::UnknownChange { .. } => {
            "`ledger changes` lists the changes on disk and in the store"
        }
        Error::NotValidated { .. } => "record a verdict with `ledger validate record`",
        Error::RefLocked {
            abandoned: true, ..
        } => {
            "remove it with `ledger store unlock` (it removes only locks older than 10m), then run this again"
        }
        Error::RefLocked { .. } => {
            "run this again when the other writer is done; `ledger store check` lists leftover locks with their age"
        }
        Error::InvalidArgument { message } => {
            return INVALID_ARGUMENT
                .iter()
                .find(|(phrase, _)| message.contains(phrase))
                .map(|(_, hint)| *hint);
        }
        _ => return None,
    })
}

/// The error as one JSON line on stderr, for a caller that asked for JSON:
/// `{"code", "message", "path"}` (`path` null when the error names none).
pub fn print_json_error(code: &str, message: &str, path: Option<&str>) {
    let json = serde_json::json!({ "code": code, "message": message, "path": path });
    to_stderr(&format!("{json}\n"));
}

/// Prints `e` as the CLI reports every error: `error[<code>]: <message>` on
/// stderr, then its hint line when it has one.
pub fn print_error(e: &Error) {
    let mut text = format!("error[{}]: {e}\n", e.code());
    if let Some(hint) = hint(e) {
        text.push_str(&format!("hint: {hint}\n"));
    }
    to_stderr(&text);
}

/// Writes `text` to stderr, or nothing when stderr cannot be written: where
/// `eprint!` would panic, and the panic's status 101 would replace the one
/// of the error or answer being reported (`ledger status 2>&1 | head -1`,
/// the reader gone). A line that cannot be written has nowhere else to go.
pub fn to_stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
