//! Running a gate: reuse fresh evidence, or run the command with its output
//! streamed through, and record evidence whatever the exit status.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use serde::Serialize;

use crate::compare::Comparison;
use crate::error::{Error, Result};
use crate::evidence::{Evidence, Freshness, GateSpec, check_gate_against, record_evidence};
use crate::inventory::Inventory;
use crate::quote::quote;
use crate::store::{RecordId, Store};

/// At most this many bytes of output are kept for the evidence's result.
const RESULT_BYTES: usize = 4096;
/// Of which at most this many trailing lines.
const RESULT_LINES: usize = 20;

/// Where a gate command's output goes, besides the evidence's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    /// Nowhere: only the tail is kept.
    Off,
    /// Its stdout to ours, its stderr to ours.
    Passthrough,
    /// Both to our stderr (when our stdout carries a machine-readable answer).
    Stderr,
}

/// What `run_gate` did.
#[derive(Debug, Clone, Serialize)]
pub struct RunOutcome {
    /// Whether fresh evidence was reused (the command did not run).
    pub reused: bool,
    /// The freshness check made before deciding.
    pub freshness: Freshness,
    /// The evidence recorded by this run (`None` when reused).
    pub record: Option<RecordId>,
    /// The evidence of this run (`None` when reused).
    pub evidence: Option<Evidence>,
}

impl RunOutcome {
    /// The exit status to report: 0 when reused, else the command's
    /// (killed by a signal: 128 + 1, as no status exists).
    pub fn exit_code(&self) -> i32 {
        match &self.evidence {
            None => 0,
            Some(e) => e.exit_status.unwrap_or(129),
        }
    }
}

/// Runs the gate unless fresh evidence exists. The inputs are fingerprinted
/// before the command starts and again after it ends; if they changed during
/// the run, the evidence is recorded as not reusable. `echo` says where the
/// command's output is streamed while it runs.
pub fn run_gate(store: &Store, spec: &GateSpec, echo: Echo) -> Result<RunOutcome> {
    let prerequisites = spec.observe()?;
    // One expansion serves the freshness check and, when the gate must run,
    // as the inputs before the command.
    let before = Inventory::expand(spec.scope())?;
    let freshness = check_gate_against(store, spec, Some(&prerequisites), Some(&before))?;
    if freshness.fresh {
        return Ok(RunOutcome {
            reused: true,
            freshness,
            record: None,
            evidence: None,
        });
    }
    // The spec's cwd is normalized and inside the workspace (GateSpec::new).
    let workspace = before.scope.workspace.as_std_path();
    let dir = match spec.cwd() {
        "." => workspace.to_path_buf(),
        cwd => workspace.join(cwd),
    };
    let started_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let clock = Instant::now();
    let (exit_status, result) = execute(spec.name(), spec.argv(), &dir, echo)?;
    let duration_ms = u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);
    let not_reusable = changed_during_run(&before);
    let evidence = Evidence {
        spec: spec.with_scope(before.scope.clone()),
        prerequisites,
        exit_status,
        started_at,
        duration_ms,
        result,
        inventory: before,
        not_reusable,
    };
    let record = record_evidence(store, &evidence)?;
    Ok(RunOutcome {
        reused: false,
        freshness,
        record: Some(record),
        evidence: Some(evidence),
    })
}

/// Why the inputs cannot be trusted to be what the command saw, if so.
fn changed_during_run(before: &Inventory) -> Option<String> {
    match Inventory::expand(&before.scope) {
        Err(e) => Some(format!(
            "the inputs could not be read after the run: error[{}]: {e}",
            e.code()
        )),
        Ok(after) => {
            let comparison = Comparison::between(before, &after);
            if comparison.matches {
                return None;
            }
            // Quoted: the reason is printed, and a path may hold anything.
            let paths: Vec<String> = comparison
                .changes
                .iter()
                .map(|c| quote(c.path()).into_owned())
                .take(5)
                .collect();
            Some(format!(
                "the inputs changed during the run ({} change(s): {}{})",
                comparison.changes.len(),
                paths.join(", "),
                if comparison.changes.len() > 5 {
                    ", ..."
                } else {
                    ""
                }
            ))
        }
    }
}

/// Runs the command, forwarding its output and keeping the tail of it.
fn execute(
    gate: &str,
    argv: &[String],
    dir: &std::path::Path,
    echo: Echo,
) -> Result<(Option<i32>, String)> {
    let not_started = |reason: String| Error::GateNotStarted {
        gate: gate.to_owned(),
        reason,
    };
    // A GateSpec's argv is never empty; should one be, it is an error, not a panic.
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| not_started("no command given".to_owned()))?;
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            not_started(format!(
                "cannot start {program:?} in {}: {e}",
                dir.display()
            ))
        })?;
    let tail = Arc::new(Mutex::new(Vec::new()));
    let (shown, to_stdout) = (echo != Echo::Off, echo == Echo::Passthrough);
    let pumps = [
        child
            .stdout
            .take()
            .map(|out| pump(out, to_stdout, shown, Arc::clone(&tail))),
        child
            .stderr
            .take()
            .map(|err| pump(err, false, shown, Arc::clone(&tail))),
    ];
    let status = child
        .wait()
        .map_err(|e| not_started(format!("waiting for the command failed: {e}")))?;
    for handle in pumps.into_iter().flatten() {
        // A pump only fails if forwarding to our own stdout failed; the
        // command's exit status still stands.
        let _ = handle.join();
    }
    let bytes = tail.lock().map(|t| t.clone()).unwrap_or_default();
    Ok((status.code(), last_lines(&bytes)))
}

/// Copies a child's stream to our stdout or stderr (when `echo`) and into the
/// shared tail, which keeps only the last `RESULT_BYTES` bytes.
fn pump(
    mut from: impl Read + Send + 'static,
    to_stdout: bool,
    echo: bool,
    tail: Arc<Mutex<Vec<u8>>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut to: Box<dyn Write> = if to_stdout {
            Box::new(std::io::stdout())
        } else {
            Box::new(std::io::stderr())
        };
        let mut buf = [0u8; 8192];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            if echo {
                let _ = to.write_all(&buf[..n]);
                let _ = to.flush();
            }
            if let Ok(mut t) = tail.lock() {
                t.extend_from_slice(&buf[..n]);
                let excess = t.len().saturating_sub(RESULT_BYTES);
                t.drain(..excess);
            }
        }
    })
}

/// The last `RESULT_LINES` lines of the output, as text. Bytes that are not
/// UTF-8 and control characters are octal escapes (`\377`, `\033`) rather than
/// U+FFFD or raw, so that different outputs are not shown alike and an output
/// cannot drive the terminal of whoever reads the evidence.
fn last_lines(bytes: &[u8]) -> String {
    // A line ending `\r\n` is a line ending, not a carriage return to show.
    let lines: Vec<&[u8]> = bytes
        .trim_ascii_end()
        .split(|b| *b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .collect();
    let kept = &lines[lines.len().saturating_sub(RESULT_LINES)..];
    crate::quote::sanitize_prose(&kept.join(&b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_keeps_the_last_lines() {
        let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let kept = last_lines(text.as_bytes());
        assert!(
            kept.starts_with("line 11\n") && kept.ends_with("line 30"),
            "{kept}"
        );
    }

    #[test]
    fn result_shows_bytes_that_are_not_utf8_escaped() {
        assert_eq!(last_lines(b"ok \xff\nthen \xfe\n"), "ok \\377\nthen \\376");
        assert_eq!(last_lines(b"\x1b[2Jfresh\r"), "\\033[2Jfresh");
    }
}
