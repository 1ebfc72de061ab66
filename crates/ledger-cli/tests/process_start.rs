//! How the `ledger` process starts, made fast: linked position-dependent and
//! without `libgcc_s.so.1` where the C compiler has the static unwinder
//! (crates/ledger-cli/build.rs; read with binutils' `readelf`, as a user would
//! check), and entered at its own C `main` (crates/ledger-cli/src/entry.rs),
//! which keeps what std's start gave: a closed pipe is an answered write error,
//! not a `SIGPIPE` death.
#![cfg(all(target_os = "linux", target_env = "gnu"))]
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
fn the_binary_is_position_dependent() {
    let header = readelf("-h");
    let kind = header.lines().find(|l| l.trim_start().starts_with("Type:"));
    assert!(kind.is_some_and(|l| l.contains("EXEC")), "{header}");
}

#[test]
fn the_binary_loads_no_libgcc_s_where_the_compiler_has_its_static_unwinder() {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let found = Command::new(compiler)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .unwrap();
    let path = String::from_utf8(found.stdout).unwrap();
    let dynamic = readelf("-d");
    let needs = |lib: &str| {
        dynamic
            .lines()
            .any(|l| l.contains("(NEEDED)") && l.contains(&format!("[{lib}]")))
    };
    assert!(needs("libc.so.6"), "{dynamic}");
    if std::path::Path::new(path.trim()).is_absolute() {
        assert!(!needs("libgcc_s.so.1"), "{dynamic}");
    } else {
        assert!(needs("libgcc_s.so.1"), "{dynamic}");
    }
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
