//! Running a gate: reuse fresh evidence, or run the command with its output
//! streamed through, and record evidence whatever the exit status.

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use serde::Serialize;

use crate::error::{DisplayPath, Error, Result};
use crate::expand::inventory::Inventory;
use crate::expand::revision::ObservedHead;
use crate::gate::check::check_gate_against;
use crate::gate::evidence::{Evidence, Freshness, GateSpec, Stopped, record_evidence};
use crate::gate::output::KeptOutput;
use crate::gate::process::{Echo, PIPE_GRACE, RunOptions, execute};
use crate::quote::quote;
use crate::records::compare::Comparison;
use crate::records::store::{RecordId, Store};

/// At most this many bytes of the end of the output make the evidence's result.
const RESULT_BYTES: usize = 4096;
/// Of which at most this many trailing lines.
const RESULT_LINES: usize = 20;

/// What `run_gate` did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RunOutcome {
    /// Whether fresh evidence was reused (the command did not run).
    pub reused: bool,
    /// The freshness check made before deciding.
    pub freshness: Freshness,
    /// The record of the evidence: recorded by this run, or reused (a run
    /// always has one).
    pub record: RecordId,
    /// The evidence: of this run, or the fresh evidence reused.
    pub evidence: Evidence,
}

impl RunOutcome {
    /// The exit status to report: 0 when reused, else the command's, or
    /// 128 + N when signal N killed it (as shells report it).
    ///
    /// A gate stopped by its timeout reports 124, as `timeout(1)` does,
    /// whatever it exited with once it was sent SIGTERM.
    pub fn exit_code(&self) -> i32 {
        let e = &self.evidence;
        match e.stopped {
            _ if self.reused => 0,
            Some(Stopped::Timeout { .. }) => 124,
            _ => e.exit_status.unwrap_or_else(|| 128 + e.signal.unwrap_or(0)),
        }
    }
}

/// Runs the gate unless fresh evidence exists. The inputs are fingerprinted
/// before the command starts and again after it ends; if they changed during
/// the run, the evidence is recorded as not reusable. `echo` says where the
/// command's output is streamed while it runs.
pub fn run_gate(store: &Store, spec: &GateSpec, echo: Echo) -> Result<RunOutcome> {
    let options = RunOptions {
        echo,
        ..RunOptions::default()
    };
    run_gate_with(store, spec, &options)
}

/// [`run_gate`] supervised as `options` say. The command runs in a process
/// group of its own, so that a timeout or a forwarded signal reaches every
/// process it started; a run that was stopped is recorded as not reusable.
pub fn run_gate_with(store: &Store, spec: &GateSpec, options: &RunOptions) -> Result<RunOutcome> {
    let prerequisites = spec.observe()?;
    // One expansion serves the freshness check and, when the gate must run,
    // as the inputs before the command.
    let before = Inventory::expand(spec.scope())?;
    let head = ObservedHead::observe(&before);
    let freshness = check_gate_against(store, spec, Some(&prerequisites), Some(&before))?;
    // Fresh evidence always names its record.
    if let (true, Some(record), Some(evidence)) = (
        freshness.fresh,
        freshness.record,
        freshness.evidence.clone(),
    ) {
        return Ok(RunOutcome {
            reused: true,
            record,
            evidence,
            freshness,
        });
    }
    let dir = working_dir(before.scope.workspace.as_std_path(), spec.cwd())?;
    let started_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let clock = Instant::now();
    let ran = execute(spec.name(), spec.argv(), &dir, options)?;
    let duration_ms = u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);
    let changed = changed_during_run(&before);
    let held = (ran.incomplete && ran.stopped.is_none()).then(|| {
        format!(
            "a process that left its process group still held its output {} after it ended",
            humantime::format_duration(PIPE_GRACE)
        )
    });
    let not_reusable = [ran.stopped.as_ref().map(Stopped::to_string), held, changed]
        .into_iter()
        .flatten()
        .reduce(|a, b| format!("{a}; {b}"));
    let kept = ran.output.finish();
    let output = KeptOutput {
        digest: format!("sha256:{}", store.write_object(&kept.bytes)?),
        total_bytes: kept.total_bytes,
        bound_bytes: kept.bound.bytes(),
        truncated: kept.truncated,
        incomplete: ran.incomplete,
    };
    let kept = kept.bytes;
    let evidence = Evidence {
        spec: spec.with_scope(before.scope.clone()),
        prerequisites,
        exit_status: ran.status.code(),
        signal: crate::platform::exit_signal(&ran.status),
        stopped: ran.stopped,
        started_at,
        duration_ms,
        result: last_lines(&kept[kept.len().saturating_sub(RESULT_BYTES)..]),
        output: Some(output),
        left_in_group: ran.left_in_group,
        inventory: before,
        not_reusable,
        head,
    };
    let record = record_evidence(store, &evidence)?;
    // The caller asked for the stop: the evidence is kept (a stopped run is
    // never a pass, and what it printed may help), and the call fails, so
    // that no door reports a run its caller abandoned as a result.
    if evidence.stopped == Some(Stopped::Interrupt) {
        return Err(Error::Cancelled {
            gate: spec.name().to_owned(),
            record: Some(record.to_string()),
        });
    }
    Ok(RunOutcome {
        reused: false,
        freshness,
        record,
        evidence,
    })
}

/// The directory a gate with the working directory `cwd` runs in, below the
/// (resolved) `workspace`. The spec's cwd is normalized and has no `..`
/// (GateSpec::new), but a symlink on the way may still lead out: the
/// directory is resolved and must lie inside the workspace, the one rule
/// for a cwd however it was given (the CLI's current directory is resolved
/// the same way). The command runs in the resolved directory, the one that
/// was checked. `outside-workspace` when it leaves; a directory that cannot
/// be resolved (missing) is left to the start of the command to report.
fn working_dir(workspace: &Path, cwd: &str) -> Result<PathBuf> {
    let dir = match cwd {
        "." => workspace.to_path_buf(),
        cwd => workspace.join(cwd),
    };
    let (Ok(resolved), Ok(top)) = (
        std::fs::canonicalize(&dir),
        std::fs::canonicalize(workspace),
    ) else {
        return Ok(dir);
    };
    if !resolved.starts_with(&top) {
        return Err(Error::OutsideWorkspace {
            path: DisplayPath::from(cwd),
            reason: "it is the gate's working directory, and a symlink on the way leads out of the workspace, where no gate runs",
        });
    }
    Ok(resolved)
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
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn echo_parses_its_three_names_only() {
        assert_eq!("off".parse::<Echo>().unwrap(), Echo::Off);
        assert_eq!("passthrough".parse::<Echo>().unwrap(), Echo::Passthrough);
        assert_eq!("stderr".parse::<Echo>().unwrap(), Echo::Stderr);
        let err = "loud\n".parse::<Echo>().unwrap_err();
        assert_eq!(err.code(), "invalid-argument");
        assert!(err.to_string().contains("loud\\n"), "{err}");
    }

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
