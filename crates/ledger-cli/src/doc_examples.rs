//! Every `$ ledger …` line of the README and docs/ parses as the CLI parses
//! it: a flag renamed or a verb moved fails this test rather than a reader.
//! What the lines then do is tested by the suites of each verb; this test
//! keeps the lines themselves from drifting.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::ffi::OsString;

/// The documents whose console examples are checked, with their text.
const DOCUMENTS: &[(&str, &str)] = &[
    ("README.md", include_str!("../../../README.md")),
    (
        "docs/approvals.md",
        include_str!("../../../docs/approvals.md"),
    ),
    ("docs/gates.md", include_str!("../../../docs/gates.md")),
    (
        "docs/lifecycle.md",
        include_str!("../../../docs/lifecycle.md"),
    ),
    ("docs/records.md", include_str!("../../../docs/records.md")),
    ("docs/sharing.md", include_str!("../../../docs/sharing.md")),
    (
        "docs/verdicts.md",
        include_str!("../../../docs/verdicts.md"),
    ),
    (
        "docs/performance.md",
        include_str!("../../../docs/performance.md"),
    ),
    ("docs/format.md", include_str!("../../../docs/format.md")),
    ("docs/errors.md", include_str!("../../../docs/errors.md")),
    ("docs/agents.md", include_str!("../../../docs/agents.md")),
];

/// The `$ ledger …` command lines of `text`, continuation lines joined.
fn command_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rows = text.lines();
    while let Some(row) = rows.next() {
        let Some(command) = row.trim_start().strip_prefix("$ ledger ") else {
            continue;
        };
        let mut command = command.to_owned();
        while command.trim_end().ends_with('\\') {
            let cut = command.trim_end().len() - 1;
            command.truncate(cut);
            command.push_str(rows.next().unwrap_or_default());
        }
        lines.push(command);
    }
    lines
}

/// `line` split as a POSIX shell splits words (quotes, backslashes), up to
/// a comment, a pipe, a redirection or a `;`/`&&`.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c if c.is_whitespace() => words.extend(word.take()),
            // A synopsis's optional part, `[--change C]`: its words.
            '[' if word.is_none() => {}
            ']' if chars.peek().is_none_or(|c| c.is_whitespace()) => {}
            '#' | '|' | '>' | ';' | '&' if word.is_none() => break,
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

#[test]
fn every_documented_command_line_parses() {
    let mut checked = 0;
    let mut refused = Vec::new();
    for (document, text) in DOCUMENTS {
        for line in command_lines(text) {
            let mut args = vec![OsString::from("ledger")];
            args.extend(words(&line).into_iter().map(OsString::from));
            checked += 1;
            if let Err(e) = crate::parse::cli(args) {
                refused.push(format!("{document}: ledger {line}\n  {}", e.kind()));
            }
        }
    }
    assert!(checked >= 80, "only {checked} command lines found");
    assert!(
        refused.is_empty(),
        "documented lines the CLI refuses:\n{}",
        refused.join("\n")
    );
}

#[test]
fn a_line_the_cli_refuses_is_found() {
    // The check itself can fail: a misspelt flag in a console block is caught.
    let text =
        "```console\n$ ledger store decide --orphan 9c1e --drop \\\n  --because x  # c\n```\n";
    let lines = command_lines(text);
    assert_eq!(lines.len(), 1);
    let mut args = vec![OsString::from("ledger")];
    args.extend(words(&lines[0]).into_iter().map(OsString::from));
    assert!(crate::parse::cli(args).is_err());
    assert_eq!(
        words("a 'b c' \"d\\\"e\" f\\ g # h"),
        ["a", "b c", "d\"e", "f g"]
    );
}
