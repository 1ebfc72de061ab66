//! A reader that closes its end of the pipe early (`ledger check | head -c
//! 100`) may cut the output short, never change the exit status (issue 42):
//! every verb whose status is an answer exits with the answer it computed,
//! 1 as 1 and 0 as 0, and an error keeps its own status when stderr is a
//! closed pipe too.
//!
//! Each case is run with `SIGPIPE` inherited ignored and at its default. The
//! entry ignores it itself (crates/ledger-cli/src/entry.rs), so the default
//! case is the one that shows it does: without that, the first write into
//! the closed pipe would kill the run with the signal, a status no answer
//! has. The reader leaves in one of two ways, neither a matter of timing:
//! its end is closed before ledger starts (the first write fails), or it
//! reads the first bytes, as `head -c 100` does, and closes while ledger is
//! still writing (every output here is more than the pipe holds, so ledger
//! cannot have finished).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::panic, missing_docs, unsafe_code)]

use std::io::{PipeReader, PipeWriter, Read};
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};

use crate::common::*;

const CHANGE: &str = "openspec/changes/big";

/// A long file-name stem, so that a thousand listed paths are more than a
/// pipe holds (64 KiB on Linux unless raised): fewer files to expand.
const LONG: &str = "a-file-name-long-enough-that-a-thousand-of-them-listed-one-a-line-are-more-than-a-pipe-holds-so-writing-them-must-fail";

/// How many bytes the reader that leaves early takes first (`head -c 100`).
const FIRST_BYTES: usize = 100;

/// What the child inherits for `SIGPIPE`.
#[derive(Clone, Copy, Debug)]
enum Sigpipe {
    Ignored,
    Default,
}

/// How the reader of ledger's stdout goes away.
#[derive(Clone, Copy, Debug)]
enum Reader {
    /// Its end is closed before ledger starts: the first write fails.
    ClosedFirst,
    /// It reads [`FIRST_BYTES`] and closes its end while ledger is blocked
    /// writing the rest.
    LeavesAfterFirstBytes,
}

/// Where ledger's stderr goes.
#[derive(Clone, Copy, Debug)]
enum Stderr {
    /// Read whole by the test, to show in a failure.
    Kept,
    /// A pipe whose reader closed before ledger started (`2>&1 | head`).
    Closed,
}

/// A pipe whose read end is already closed: every write into it fails.
fn closed_pipe() -> PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

/// How many bytes the pipe holds before a writer blocks.
fn capacity(pipe: &PipeReader) -> usize {
    // SAFETY: F_GETPIPE_SZ only reads the size of the pipe `pipe` owns.
    let size = unsafe { libc::fcntl(pipe.as_raw_fd(), libc::F_GETPIPE_SZ) };
    usize::try_from(size).unwrap()
}

/// Runs `ledger args` in the workspace of `s` with stdout into a pipe whose
/// reader leaves as `reader` says; its exit status and what it wrote to
/// stderr (nothing when stderr is closed).
fn run(s: &Sandbox, args: &[&str], sigpipe: Sigpipe, reader: Reader, stderr: Stderr) -> Outcome {
    let (out, writer) = std::io::pipe().unwrap();
    let mut out = match reader {
        // No reader anywhere: this was the only copy of the read end (a
        // pipe's ends are close-on-exec, so ledger gets none either).
        Reader::ClosedFirst => {
            drop(out);
            None
        }
        Reader::LeavesAfterFirstBytes => Some(out),
    };
    let child = {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
        s.env(&mut cmd);
        cmd.current_dir(s.w())
            .args(args)
            .stdin(Stdio::null())
            .stdout(writer);
        match stderr {
            Stderr::Kept => cmd.stderr(Stdio::piped()),
            Stderr::Closed => cmd.stderr(closed_pipe()),
        };
        let disposition = match sigpipe {
            Sigpipe::Ignored => libc::SIG_IGN,
            Sigpipe::Default => libc::SIG_DFL,
        };
        // SAFETY: only signal(2), which is async-signal-safe, runs between
        // fork and exec. std resets SIGPIPE to its default before this hook
        // runs, so the hook decides what ledger inherits.
        unsafe {
            cmd.pre_exec(move || match libc::signal(libc::SIGPIPE, disposition) {
                libc::SIG_ERR => Err(std::io::Error::last_os_error()),
                _ => Ok(()),
            });
        }
        cmd.spawn().unwrap()
        // The command, dropped here, holds the parent's copy of the write
        // end: ledger's is the only one left, so the reader below sees the
        // end of the output should ledger stop early.
    };
    let read = match out.as_mut() {
        None => 0,
        Some(out) => {
            let mut first = [0u8; FIRST_BYTES];
            out.read_exact(&mut first).unwrap();
            FIRST_BYTES
        }
    };
    drop(out);
    let output = child.wait_with_output().unwrap();
    Outcome {
        status: output.status,
        read,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// What a run with a closing reader gave.
struct Outcome {
    status: ExitStatus,
    /// The bytes the reader took before it closed.
    read: usize,
    stderr: String,
}

/// An exit status as a shell would tell it: `exit 1`, `killed by signal 13`.
fn shown(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => format!("{status:?}"),
    }
}

/// Runs `ledger args`, which must succeed.
fn ok(s: &Sandbox, args: &[&str]) {
    let out = s.ledger(&s.w(), args);
    assert!(
        out.status.success(),
        "ledger {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A workspace (no Git: the store is `.ledger/`) where every verb with an
/// answer answers 1 at length: the change `big` had all four artifacts
/// approved, a PASS relying on the gate `test` over `src/`, a verdict
/// `audit` and an inventory record of `src/`; since then every file of
/// `src/` and of the change's specs changed, and the store holds a thousand
/// leftover temp files. The gate `loud` (its output some 200 KB, fresh) is
/// there to be replayed and shown, which answer 0.
fn answers() -> Sandbox {
    let s = Sandbox::new();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.write(&format!("{CHANGE}/design.md"), b"# Design\n");
    s.write(&format!("{CHANGE}/tasks.md"), b"- [x] 1.1 [core] All\n");
    let specs: Vec<String> = (0..700)
        .map(|i| format!("{CHANGE}/specs/cap/{LONG}-{i:04}.md"))
        .collect();
    let sources: Vec<String> = (0..700).map(|i| format!("src/{LONG}-{i:04}.rs")).collect();
    for path in specs.iter().chain(&sources) {
        s.write(path, b"## ADDED Requirements\n");
    }
    for artifact in ["proposal", "specs", "design", "tasks"] {
        ok(
            &s,
            &[
                "approve",
                "--change",
                "big",
                "--artifact",
                artifact,
                "--source",
                "r",
            ],
        );
    }
    ok(
        &s,
        &[
            "gate", "run", "--name", "test", "--root", "src", "--", "true",
        ],
    );
    ok(
        &s,
        &[
            "validate",
            "record",
            "--change",
            "big",
            "--verdict",
            "PASS",
            "--source",
            "r",
            "--root",
            "src",
            "--gate",
            "test",
        ],
    );
    ok(
        &s,
        &[
            "verdict",
            "record",
            "--name",
            "audit",
            "--verdict",
            "PASS",
            "--source",
            "r",
            "--root",
            "src",
        ],
    );
    ok(&s, &["inventory", "--root", "src", "--out", "record.json"]);
    ok(&s, &loud_gate(&[]));
    for path in specs.iter().chain(&sources) {
        s.write(path, b"## ADDED Requirements\n\nchanged\n");
    }
    for i in 0..1000 {
        let leftover = s.store_dir().join(format!("tmp/{LONG}-{i:04}"));
        std::fs::write(leftover, b"").unwrap();
    }
    s
}

/// `gate run` of the gate `loud` (over the change's proposal, which does
/// not change) with `extra` flags: some 200 KB of output.
fn loud_gate(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec!["gate", "run", "--name", "loud"];
    args.extend(extra);
    args.extend([
        "--root",
        "openspec/changes/big/proposal.md",
        "--",
        "sh",
        "-c",
        "head -c 200000 /dev/zero | tr '\\0' x",
    ]);
    args
}

/// A workspace with 260 archived changes of long names: `changes` lists
/// them at length and answers 0.
fn many_changes() -> Sandbox {
    let s = Sandbox::new();
    for i in 0..260 {
        let name = format!("openspec/changes/archive/2026-01-01-{i:04}-{LONG}-{LONG}");
        s.write(&format!("{name}/proposal.md"), b"# Old\n");
    }
    s
}

/// Runs each of `cases` (its arguments, its answer) as a whole first, to
/// know that it answers so and writes more than the pipe holds; then with
/// each `SIGPIPE` disposition and each reader, and lists every run whose
/// status is not the answer.
fn each_answer_survives_a_closed_pipe(s: &Sandbox, cases: &[(Vec<&str>, i32)]) {
    let pipe = capacity(&std::io::pipe().unwrap().0);
    let mut wrong = Vec::new();
    for (args, answer) in cases {
        let whole = s.ledger(&s.w(), args);
        assert_eq!(
            whole.status.code(),
            Some(*answer),
            "ledger {args:?} answers {answer} here: {}",
            String::from_utf8_lossy(&whole.stderr)
        );
        assert!(
            whole.stdout.len() > pipe + FIRST_BYTES,
            "ledger {args:?} writes {} bytes, not more than the pipe holds ({pipe})",
            whole.stdout.len()
        );
        for sigpipe in [Sigpipe::Ignored, Sigpipe::Default] {
            for reader in [Reader::ClosedFirst, Reader::LeavesAfterFirstBytes] {
                let got = run(s, args, sigpipe, reader, Stderr::Kept);
                if got.status.code() != Some(*answer) {
                    wrong.push(format!(
                        "ledger {args:?}, SIGPIPE {sigpipe:?}, reader {reader:?} (read {} \
                         bytes): {} where the answer is {answer}; stderr: {}",
                        got.read,
                        shown(got.status),
                        got.stderr.trim_end()
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `verb` as text and as JSON, each with its answer.
fn both_formats<'a>(verb: &[&'a str], answer: i32) -> [(Vec<&'a str>, i32); 2] {
    let json = verb.iter().copied().chain(["--json"]).collect();
    [(verb.to_vec(), answer), (json, answer)]
}

#[test]
fn a_closed_pipe_changes_no_answer() {
    let s = answers();
    let mut cases: Vec<(Vec<&str>, i32)> = [
        &["verify", "record.json"][..],
        &["status", "--change", "big"],
        &["check"],
        &["gate", "check", "--name", "test"],
        &["validate", "check", "--change", "big"],
        &["finalize", "check", "--change", "big"],
        &["verdict", "check", "--name", "audit"],
        &["store", "check"],
    ]
    .iter()
    .flat_map(|verb| both_formats(verb, 1))
    .collect();
    // The gate's own status, its kept output replayed on stdout (with
    // `--json` it goes to stderr); and that output shown.
    cases.push((loud_gate(&["--replay"]), 0));
    cases.push((vec!["gate", "show", "loud"], 0));
    each_answer_survives_a_closed_pipe(&s, &cases);
}

#[test]
fn a_closed_pipe_turns_no_listing_into_a_failure() {
    let s = many_changes();
    each_answer_survives_a_closed_pipe(&s, &both_formats(&["changes"], 0));
}

#[test]
fn an_error_keeps_its_exit_status_when_stdout_and_stderr_are_closed() {
    let s = Sandbox::new();
    let cases: [(&[&str], i32); 5] = [
        (&["status", "--change", "nope"], 2),
        (&["status", "--change", "nope", "--json"], 2),
        (&["status", "--bogus"], 2),
        (&["status", "--bogus", "--json"], 2),
        // ledger's own failure around a gate: the wrapper convention's 125.
        (&["gate", "run", "--name", "none"], 125),
    ];
    let mut wrong = Vec::new();
    for (args, code) in cases {
        for sigpipe in [Sigpipe::Ignored, Sigpipe::Default] {
            let got = run(&s, args, sigpipe, Reader::ClosedFirst, Stderr::Closed);
            if got.status.code() != Some(code) {
                wrong.push(format!(
                    "ledger {args:?}, SIGPIPE {sigpipe:?}: {} where the error is {code}",
                    shown(got.status)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
