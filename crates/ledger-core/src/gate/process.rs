//! Running one command under supervision, the process side of a gate run
//! (docs/gates.md, Running): its own process group, its output echoed and
//! kept, a timeout and the caller's interrupt stopping the whole group, the
//! signals a supervising process forwards, and the exit statuses of the
//! wrapper convention (125/126/127). The doors share it: the CLI forwards
//! signals, Python's binding interrupts on Ctrl-C, every door echoes.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGKILL, SIGTERM};
use signal_hook::iterator::Signals;

use crate::error::{DisplayPath, Error, Result};
use crate::gate::evidence::Stopped;
use crate::gate::output::{OutputBound, OutputKeeper};
use crate::platform::{self, OsStrBytes, ProcessGroup};
use crate::quote::quote;

/// Where a gate command's output goes, besides the evidence's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Echo {
    /// Nowhere: only the tail is kept.
    #[default]
    Off,
    /// Its stdout to ours, its stderr to ours.
    Passthrough,
    /// Both to our stderr (when our stdout carries a machine-readable answer).
    Stderr,
}

impl std::str::FromStr for Echo {
    type Err = Error;

    /// `off`, `passthrough` or `stderr`; anything else is `invalid-argument`.
    fn from_str(text: &str) -> Result<Echo> {
        match text {
            "off" => Ok(Echo::Off),
            "passthrough" => Ok(Echo::Passthrough),
            "stderr" => Ok(Echo::Stderr),
            other => Err(Error::InvalidArgument {
                message: format!(
                    "echo must be 'off', 'passthrough' or 'stderr', not '{}'",
                    crate::quote::escape(other.as_bytes())
                ),
            }),
        }
    }
}

/// Asked about once every few milliseconds while a gate runs: `true` stops
/// it as a timeout does (e.g. Python's Ctrl-C, seen by the binding, or a
/// door's cancellation token). Asked once before the command starts, too:
/// `true` then starts nothing (`cancelled`). A stopped run is recorded as
/// failed and not reusable, and the run then fails with `cancelled`, naming
/// that record.
pub type Interrupt = Arc<dyn Fn() -> bool + Send + Sync>;

/// How a gate run is supervised, besides where its output goes.
///
/// The command always runs in a process group of its own, so that stopping
/// it reaches every process it started, and what it leaves in that group when
/// it ends is stopped too. A terminal's Ctrl-C therefore reaches the gate only
/// through the caller: the CLI forwards it (`forward_signals`), Python's
/// binding stops the gate on it (`interrupt`).
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Where the command's output goes while it runs.
    pub echo: Echo,
    /// Stop the gate after this long: its process group is sent SIGTERM, then
    /// SIGKILL after [`KILL_GRACE`], and the evidence is recorded as failed and
    /// not reusable.
    pub timeout: Option<Duration>,
    /// Forward SIGINT, SIGTERM and SIGHUP received by this process to the
    /// gate's process group (and wait for it), instead of dying and leaving
    /// it running. For a process that is the gate's supervisor, such as the
    /// `ledger` command; a library host (Python, Node) keeps its own handlers.
    pub forward_signals: bool,
    /// Stop the gate when this says so (see [`Interrupt`]); the run is
    /// recorded as failed and not reusable, like a timeout, and then fails
    /// with `cancelled`.
    pub interrupt: Option<Interrupt>,
    /// How much of the command's output is kept (docs/gates.md, Output):
    /// `None` keeps a declared gate's `keep-output` ([`run_declared`]), else
    /// [`OutputBound::DEFAULT`], 1 MiB.
    ///
    /// [`run_declared`]: crate::gate::run_declared
    pub keep_output: Option<OutputBound>,
}

impl RunOptions {
    /// A timeout of `seconds` (the bindings' `timeout=` and `timeoutMs / 1000`):
    /// `None` unless it is a finite number above zero.
    pub fn timeout_from_secs(seconds: f64) -> Option<Duration> {
        Duration::try_from_secs_f64(seconds)
            .ok()
            .filter(|limit| !limit.is_zero())
    }
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("echo", &self.echo)
            .field("timeout", &self.timeout)
            .field("forward_signals", &self.forward_signals)
            .field("interrupt", &self.interrupt.is_some())
            .field("keep_output", &self.keep_output)
            .finish()
    }
}

/// How long a timed-out gate is given between SIGTERM and SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// The exit status of a process that ran a gate under the wrapper convention
/// of `env`, `timeout` and `xargs`: `125` when ledger itself failed, `126`
/// when the command was found but cannot be executed, `127` when it was not
/// found. The gate's own status (0–255, or 128+N when signal N killed it) is
/// [`RunOutcome::exit_code`](crate::gate::RunOutcome::exit_code).
pub fn wrapper_exit_code(error: &Error) -> u8 {
    match error {
        Error::GateNotStarted {
            source: Some(e), ..
        } if e.kind() == std::io::ErrorKind::NotFound => 127,
        Error::GateNotStarted {
            source: Some(_), ..
        } => 126,
        _ => 125,
    }
}

/// How the command ended.
pub(crate) struct Ran {
    pub(crate) status: ExitStatus,
    /// Its output, as far as it was read.
    pub(crate) output: OutputKeeper,
    /// Whether ledger stopped reading before the output's end.
    pub(crate) incomplete: bool,
    /// Whether processes it left in its process group had to be stopped.
    pub(crate) left_in_group: bool,
    /// Why ledger stopped it, if it did.
    pub(crate) stopped: Option<Stopped>,
}

/// Runs the command in a process group of its own, forwarding its output and
/// keeping it (see [`OutputKeeper`]), and supervises it until the run is over
/// (see [`supervise`]).
pub(crate) fn execute(
    gate: &str,
    argv: &[String],
    dir: &Path,
    options: &RunOptions,
) -> Result<Ran> {
    let not_started = |reason: String, source: Option<std::io::Error>| Error::GateNotStarted {
        gate: gate.to_owned(),
        reason,
        source,
    };
    // A GateSpec's argv is never empty; should one be, it is an error, not a panic.
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| not_started("no command given".to_owned(), None))?;
    // A missing directory is ledger's failure to report, not "command not found".
    if !dir.is_dir() {
        return Err(Error::Unreadable {
            path: DisplayPath::from_bytes(dir.as_os_str().as_bytes()),
            operation: "run the gate in",
            source: std::io::ErrorKind::NotFound.into(),
        });
    }
    // Asked once more just before the spawn: a caller who cancelled while the
    // inputs were fingerprinted (or, in a run of every declared gate, during
    // an earlier gate) gets no command started at all.
    if options.interrupt.as_ref().is_some_and(|asks| asks()) {
        return Err(Error::Cancelled {
            gate: gate.to_owned(),
            record: None,
        });
    }
    // Registered before the spawn: a signal in between would otherwise kill
    // ledger and leave the gate running.
    let signals = match options.forward_signals {
        true => Some(Signals::new(FORWARDED).map_err(|e| {
            not_started(format!("cannot watch for termination signals: {e}"), None)
        })?),
        false => None,
    };
    // Always a group of its own: what the command leaves in it when it ends
    // is stopped, which would otherwise reach the caller's own group.
    let mut child = platform::in_own_process_group(&mut Command::new(program))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            let reason = format!(
                "cannot start {} in {}: {e}",
                quote(program),
                quote(&dir.to_string_lossy())
            );
            not_started(reason, Some(e))
        })?;
    let keeper = OutputKeeper::new(options.keep_output.unwrap_or_default());
    let pumps = Pumps::start(&mut child, options.echo, keeper);
    let supervised = supervise(&mut child, signals, options, &pumps)
        .map_err(|e| not_started(format!("waiting for the command failed: {e}"), None))?;
    // A pump still reading (a pipe held by a process that left the group)
    // echoes and keeps nothing more; it ends when that process lets go.
    pumps.over.store(true, Ordering::SeqCst);
    let output = std::mem::take(&mut *pumps.output.lock().unwrap_or_else(|p| p.into_inner()));
    Ok(Ran {
        status: supervised.status,
        output,
        incomplete: supervised.open_pipes > 0,
        left_in_group: supervised.left_in_group,
        stopped: supervised.stopped,
    })
}

/// The threads copying the command's stdout and stderr.
struct Pumps {
    /// What they read, in the order they read it.
    output: Arc<Mutex<OutputKeeper>>,
    /// Set once the run is over: they then stop echoing and keeping.
    over: Arc<AtomicBool>,
    /// One message per pump that reached the end of its pipe.
    ended: mpsc::Receiver<()>,
    /// How many pumps were started.
    count: usize,
}

impl Pumps {
    fn start(child: &mut Child, echo: Echo, keeper: OutputKeeper) -> Pumps {
        let output = Arc::new(Mutex::new(keeper));
        let over = Arc::new(AtomicBool::new(false));
        let (sender, ended) = mpsc::channel();
        let (shown, to_stdout) = (echo != Echo::Off, echo == Echo::Passthrough);
        let streams: [(Option<Box<dyn Read + Send>>, bool); 2] = [
            (child.stdout.take().map(|o| Box::new(o) as _), to_stdout),
            (child.stderr.take().map(|e| Box::new(e) as _), false),
        ];
        let mut count = 0;
        for (stream, to_stdout) in streams {
            let Some(stream) = stream else { continue };
            let pump = Pump {
                to_stdout,
                echo: shown,
                output: Arc::clone(&output),
                over: Arc::clone(&over),
                ended: sender.clone(),
            };
            // Detached: one held open by a process outside the group is left
            // to end when that process lets go of it.
            std::thread::spawn(move || pump.run(stream));
            count += 1;
        }
        Pumps {
            output,
            over,
            ended,
            count,
        }
    }
}

/// One pump: copies a child's stream to our stdout or stderr (when `echo`)
/// and into the kept output, until the stream ends or the run is over.
struct Pump {
    to_stdout: bool,
    echo: bool,
    output: Arc<Mutex<OutputKeeper>>,
    over: Arc<AtomicBool>,
    ended: mpsc::Sender<()>,
}

impl Pump {
    fn run(self, mut from: Box<dyn Read + Send>) {
        let mut to: Box<dyn Write> = if self.to_stdout {
            Box::new(std::io::stdout())
        } else {
            Box::new(std::io::stderr())
        };
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 || self.over.load(Ordering::SeqCst) {
                break;
            }
            if self.echo {
                let _ = to.write_all(&buf[..n]);
                let _ = to.flush();
            }
            if let Ok(mut output) = self.output.lock() {
                output.push(&buf[..n]);
            }
        }
        // The supervisor may have stopped listening; nothing to tell then.
        let _ = self.ended.send(());
    }
}

/// The signals a supervising ledger forwards to the gate instead of dying.
const FORWARDED: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// How often the supervisor looks at the child, its signals and the clock.
const TICK: Duration = Duration::from_millis(20);

/// How long ledger keeps reading the command's output once the command has
/// ended and nothing is left in its process group: a process that left the
/// group (`setsid`) and still holds the pipes after this is not waited for.
pub const PIPE_GRACE: Duration = Duration::from_secs(1);

/// What supervising the run found.
struct Supervised {
    status: ExitStatus,
    stopped: Option<Stopped>,
    /// Pumps whose pipe had not ended when the run was over.
    open_pipes: usize,
    /// Whether processes were left in the group when the command ended.
    left_in_group: bool,
}

/// Supervises the run until it is over: the command has ended, what it left
/// in its process group is stopped and its pipes are closed — or they are
/// still held [`PIPE_GRACE`] after that, or the timeout or interrupt came.
///
/// While the command runs, the signals received are forwarded to its group,
/// and the timeout or interrupt stops the group (SIGTERM, then SIGKILL after
/// [`KILL_GRACE`]). A forwarded signal is the caller's: a later timeout still
/// stops the gate, but the first reason stays the one recorded. The timeout
/// bounds the whole run: one that expires while ledger waits for the pipes
/// ends the wait, and the run is a timeout.
fn supervise(
    child: &mut Child,
    mut signals: Option<Signals>,
    options: &RunOptions,
    pumps: &Pumps,
) -> std::io::Result<Supervised> {
    let group = ProcessGroup::of(child);
    let started = Instant::now();
    let mut run = Supervised {
        status: platform::exit_status(0),
        stopped: None,
        open_pipes: pumps.count,
        left_in_group: false,
    };
    let mut ended = false;
    let mut terminated_at: Option<Instant> = None;
    let mut group_gone = false;
    let mut pipes_since: Option<Instant> = None;
    loop {
        while pumps.ended.try_recv().is_ok() {
            run.open_pipes -= 1;
        }
        let mut signalled = false;
        for signal in signals.iter_mut().flat_map(|s| s.pending()) {
            signal_group(group, signal);
            run.stopped.get_or_insert(Stopped::Signal { signal });
            signalled = true;
        }
        if !ended && let Some(status) = child.try_wait()? {
            (ended, run.status) = (true, status);
            terminated_at = terminated_at.map(|_| {
                // Told to stop already: what outlived the leader gets no grace.
                signal_group(group, SIGKILL);
                let now = Instant::now();
                now.checked_sub(KILL_GRACE).unwrap_or(now)
            });
        }
        if !ended {
            match terminated_at {
                None => {
                    if let Some(why) = stop_reason(options, started.elapsed()) {
                        signal_group(group, SIGTERM);
                        terminated_at = Some(Instant::now());
                        run.stopped.get_or_insert(why);
                    }
                }
                Some(at) if at.elapsed() >= KILL_GRACE => signal_group(group, SIGKILL),
                Some(_) => {}
            }
        } else if !group_gone {
            group_gone = stop_leftovers(group, &mut terminated_at, &mut run.left_in_group);
        } else if run.open_pipes == 0 {
            return Ok(run);
        } else {
            // What the group wrote before it ended is still drained, for up
            // to the grace; the deadline (of a run not stopped yet) or a
            // signal of the caller's ends the wait at once.
            let since = *pipes_since.get_or_insert_with(Instant::now);
            if run.stopped.is_none()
                && let Some(why) = stop_reason(options, started.elapsed())
            {
                run.stopped = Some(why);
                return Ok(run);
            }
            if signalled || since.elapsed() >= PIPE_GRACE {
                return Ok(run);
            }
        }
        // Woken early when a pipe ends, so that a run that is over returns at once.
        if pumps.ended.recv_timeout(TICK).is_ok() {
            run.open_pipes -= 1;
        }
    }
}

/// Stops what the ended command left in its process group: SIGTERM, then
/// SIGKILL after [`KILL_GRACE`]. Returns whether ledger is done with the
/// group: it is empty, or it was sent SIGKILL (whatever stays in it then is
/// a zombie that its new parent has not reaped yet).
fn stop_leftovers(
    group: ProcessGroup,
    terminated_at: &mut Option<Instant>,
    left: &mut bool,
) -> bool {
    if !group.alive() {
        return true;
    }
    match *terminated_at {
        None => {
            *left = true;
            signal_group(group, SIGTERM);
            *terminated_at = Some(Instant::now());
            false
        }
        Some(at) if at.elapsed() >= KILL_GRACE => {
            signal_group(group, SIGKILL);
            true
        }
        Some(_) => false,
    }
}

/// Why ledger must stop the gate now, if it must: its timeout expired or
/// the caller interrupted it.
fn stop_reason(options: &RunOptions, elapsed: Duration) -> Option<Stopped> {
    if let Some(limit) = options.timeout.filter(|limit| elapsed >= *limit) {
        let after_ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        return Some(Stopped::Timeout { after_ms });
    }
    let interrupted = options.interrupt.as_ref().is_some_and(|asks| asks());
    interrupted.then_some(Stopped::Interrupt)
}

/// Sends `signal` to the process group `group`. A group that is gone already
/// (ESRCH) needs no signal; nothing else can fail for our own child's group.
fn signal_group(group: ProcessGroup, signal: i32) {
    group.signal(signal);
}

/// `SIGTERM` for 15, and so on.
fn signal_name(signal: i32) -> String {
    match signal {
        SIGINT => "SIGINT".to_owned(),
        SIGTERM => "SIGTERM".to_owned(),
        SIGHUP => "SIGHUP".to_owned(),
        n => format!("signal {n}"),
    }
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Timeout { after_ms } => write!(
                f,
                "timed out after {}: its process group was sent SIGTERM",
                humantime::format_duration(Duration::from_millis(*after_ms))
            ),
            Stopped::Signal { signal } => write!(
                f,
                "ledger received {} during the run and forwarded it to the gate",
                signal_name(*signal)
            ),
            Stopped::Interrupt => write!(
                f,
                "interrupted by the caller: its process group was sent SIGTERM"
            ),
        }
    }
}
