//! How the `ledger` process is linked and starts: a hardened binary, as a
//! platform's packagers require of a tool that reads untrusted checkouts
//! (position-independent, its relocations read-only after start, a stack
//! that does not execute; read with binutils' `readelf`, as a user would
//! check), entered at std's plain `fn main`, which makes a closed pipe an
//! answered write error, not a `SIGPIPE` death.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

/// `readelf` run on the binary with `flag`, its output.
fn readelf(flag: &str) -> String {
    let out = Command::new("readelf")
        .args([flag, "-W", env!("CARGO_BIN_EXE_ledger")])
        .output()
        .unwrap();
    assert!(out.status.success(), "readelf {flag} failed");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_binary_is_position_independent_with_full_relro_and_a_stack_that_does_not_execute() {
    let header = readelf("-h");
    let kind = header.lines().find(|l| l.trim_start().starts_with("Type:"));
    assert!(kind.is_some_and(|l| l.contains("DYN")), "{header}");
    let dynamic = readelf("-d");
    let flags = dynamic.lines().find(|l| l.contains("(FLAGS_1)"));
    assert!(
        flags.is_some_and(|l| l.contains("PIE") && l.contains("NOW")),
        "{dynamic}"
    );
    let segments = readelf("-l");
    assert!(segments.contains("GNU_RELRO"), "{segments}");
    let stack = segments
        .lines()
        .find(|l| l.trim_start().starts_with("GNU_STACK"));
    assert!(stack.is_some_and(|l| !l.contains('E')), "{segments}");
}

/// A directory of `count` small files, no repository: a workspace to expand.
fn files(count: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..count {
        std::fs::write(dir.path().join(format!("file-{i:05}")), i.to_string()).unwrap();
    }
    dir
}

#[test]
fn a_reader_that_closes_the_pipe_ends_the_run_without_a_signal() {
    // 2,000 entry lines are some 190 KB, more than a pipe holds: the run
    // writes into the pipe after its reader has gone, and answers the error.
    let dir = files(2000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ledger"))
        .args(["entries", "--workspace"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.signal(),
        None,
        "killed by a signal: {:?}",
        out.status
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn arguments_reach_the_command_as_given() {
    // Under a C `main` in place of std's start, musl's std saw no arguments:
    // `ledger --version` printed the usage text.
    let out = Command::new(env!("CARGO_BIN_EXE_ledger"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ledger "));
}
