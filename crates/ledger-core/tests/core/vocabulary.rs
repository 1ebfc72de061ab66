//! The core speaks the domain's words, not a door's: no message it returns and
//! no reason it writes into a record names a CLI flag (`--repo`, `--absent`),
//! since Python and Node read them too. The CLI adds its flags in its own
//! `hint:` line (crates/ledger-cli/src/hints.rs). Read from the sources, so
//! that a new message naming a flag fails here, not in a Python user's log.
//! One room is the CLI's by design: `door/text/`, the CLI's text output,
//! which `ledger mcp` and the OpenCode plugin show a model as it is (its
//! next steps are the CLI's commands, the one vocabulary every caller has).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};

use ledger_core::expand::{DEFAULT_EXCLUSION_REASON, STORE_EXCLUSION_REASON, Scope, ScopeLists};
use ledger_core::lifecycle::{COMPLETION_EVIDENCE_REASON, PHASE_RECORD_REASON};
use ledger_core::records::OWN_RECORD_REASON;

/// Text that looks like a flag but is another program's, named in a message
/// because the user runs it: git's own command to untrack ledger's store
/// (expand/trust.rs). Nothing of ledger's CLI belongs here.
const NOT_LEDGER_FLAGS: &[&str] = &["git rm -r --cached"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The shipped code of a file: without its comments (docs may name the CLI's
/// flags to say which door does what) and without its unit tests (which run
/// git with git's flags). Outside comments, `--x` can only be inside a string
/// literal: Rust has no `--` operator.
fn shipped_code(file: &Path, text: &str) -> String {
    let cli_text = file.parent().is_some_and(|dir| dir.ends_with("door/text"));
    if cli_text || file.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = text
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or_default();
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("//") {
                ""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `--<letter>…` in `code`, with its line, that no allowed text holds.
fn flags_in(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in code.lines() {
        let mut allowed = line.to_owned();
        for text in NOT_LEDGER_FLAGS {
            allowed = allowed.replace(text, "");
        }
        let bytes = allowed.as_bytes();
        let flag = (0..bytes.len().saturating_sub(2))
            .any(|i| bytes[i] == b'-' && bytes[i + 1] == b'-' && bytes[i + 2].is_ascii_lowercase());
        if flag {
            found.push(line.trim().to_owned());
        }
    }
    found
}

#[test]
fn no_message_or_record_text_of_the_core_names_a_flag() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    assert!(files.len() > 30, "the sources were found: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("read source");
        for line in flags_in(&shipped_code(file, &text)) {
            found.push(format!(
                "{}: {line}",
                file.strip_prefix(&src).unwrap().display()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "CLI flags in the core:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_a_flag_in_a_string_and_skips_comments_and_git_s_words() {
    let code = shipped_code(
        Path::new("x.rs"),
        "/// declare it with --repo\n\
         // or --exclude it\n\
         let m = \"untrack it (git rm -r --cached .ledger)\";\n\
         let n = format!(\"approve it as absent (--absent)\");\n\
         #[cfg(test)]\nmod tests {\n    git(&[\"--bare\"]);\n}\n",
    );
    assert_eq!(
        flags_in(&code),
        [r#"let n = format!("approve it as absent (--absent)");"#]
    );
    assert!(shipped_code(Path::new("src/expand/git/tests.rs"), "\"--cached\"").is_empty());
}

#[test]
fn the_reasons_written_into_records_name_no_flag() {
    let lists = ScopeLists {
        exclusions: vec![("gen".into(), None)],
        ..ScopeLists::default()
    };
    let scope = Scope::from_lists("/w", &lists).unwrap();
    assert_eq!(scope.exclusions()[1].reason, DEFAULT_EXCLUSION_REASON);
    assert_eq!(DEFAULT_EXCLUSION_REASON, "excluded by the caller");
    for reason in [
        DEFAULT_EXCLUSION_REASON,
        STORE_EXCLUSION_REASON,
        OWN_RECORD_REASON,
        COMPLETION_EVIDENCE_REASON,
        PHASE_RECORD_REASON,
    ] {
        assert!(!reason.contains("--"), "{reason}");
    }
}
