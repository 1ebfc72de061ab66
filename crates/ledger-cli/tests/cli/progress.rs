//! The progress line (`--progress`, `--quiet`): nothing when stderr is not a
//! terminal, the counts and a closing summary when forced. The line drawn on
//! a terminal after a second is timing by nature and is not asserted here;
//! what is asserted does not depend on time.

#![allow(clippy::unwrap_used, missing_docs)]

use crate::common::*;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn tree() -> Sandbox {
    let s = Sandbox::new();
    s.write("a.txt", b"aaaa\n");
    s.write("dir/b.txt", b"bb\n");
    s.write("dir/c.bin", &[0u8; 1000]);
    s
}

#[test]
fn off_a_terminal_nothing_is_shown_unless_asked() {
    let s = tree();
    let out = s.ledger(&s.w(), &["--no-cache", "fingerprint", "--root", "."]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let quiet = s.ledger(&s.w(), &["--quiet", "fingerprint", "--root", "."]);
    assert_eq!(
        (stderr(&quiet), stdout(&quiet)),
        (String::new(), stdout(&out))
    );
}

#[test]
fn forced_progress_ends_with_the_exact_counts() {
    let s = tree();
    let out = s.ledger(
        &s.w(),
        &["--progress", "--no-cache", "fingerprint", "--root", "."],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    let last = said.lines().last().unwrap_or_default();
    // The bytes are those read: a file modified just now is read twice (the
    // second read proves no writer was at work), so at least its size.
    let counts = last.strip_prefix("ledger: expanded: 3 files listed, 3 answered, ");
    let read = counts
        .and_then(|c| c.split_once(" read ("))
        .map(|(bytes, _)| bytes);
    let kib = |text: &str| {
        text.strip_suffix(" KiB")
            .and_then(|n| n.parse::<f64>().ok())
    };
    let whole = match read {
        Some("1008 B") => true,
        Some(text) => kib(text).is_some_and(|k| (1.0..=2.0).contains(&k)),
        None => false,
    };
    assert!(whole, "1008 bytes read once or twice: {said}");
    // Every line off a terminal is whole: no carriage return, no escape.
    assert!(!said.contains(['\r', '\x1b']), "{said:?}");
    // The result is unchanged, on stdout alone.
    assert!(stdout(&out).starts_with("sha256:"));
    // Answered from the cache now: listed and answered, nothing read.
    let cached = s.ledger(&s.w(), &["--progress", "fingerprint", "--root", "."]);
    assert!(cached.status.success());
    assert!(
        stderr(&cached).contains("3 files listed, 3 answered, "),
        "{}",
        stderr(&cached)
    );
}

#[test]
fn quiet_and_progress_contradict() {
    let s = tree();
    let out = s.ledger(&s.w(), &["--quiet", "--progress", "fingerprint"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("error[invalid-argument]: "),
        "{}",
        stderr(&out)
    );
    // Refused as a contradiction, not as an unknown flag.
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_error_is_printed_after_the_summary_never_inside_it() {
    let s = tree();
    let made = std::process::Command::new("mkfifo")
        .arg(s.w().join("dir/pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    // A FIFO in scope is refused, never opened: an error while expanding.
    let out = s.ledger(&s.w(), &["--progress", "fingerprint", "--root", "."]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    let lines: Vec<&str> = said.lines().collect();
    assert!(lines.last().unwrap().starts_with("error["), "{said}");
    assert!(
        lines.iter().all(|l| l.starts_with("ledger: ")
            || l.starts_with("error[")
            || l.starts_with("hint: ")),
        "{said}"
    );
}
