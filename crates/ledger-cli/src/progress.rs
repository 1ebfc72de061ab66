//! The progress line: while an expansion has run past about a second, one
//! line on stderr says how far the work has come (files listed and answered,
//! bytes read, the rate), redrawn in place on a terminal and cleared when the
//! expansion ends; nothing when stderr is not a terminal. `--progress` shows
//! it from the start, wherever stderr goes (one line per second off a
//! terminal), and closes with a summary; `--quiet` shows none.
//!
//! The counts come from the core ([`ledger_core::expand::progress`]); a
//! thread of this module samples them ten times a second. The line is
//! cleared when the last expansion ends, by the progress sink this run's
//! settings carry ([`Reporter::sink`]), on the expanding thread before the
//! expansion returns, and the thread is stopped
//! and joined before the result is printed: the line never lands beside a
//! gate's output, a result or an error.

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ledger_core::ProgressSink;
use ledger_core::expand::{Progress, progress};

/// How long an expansion runs before the line appears on its own.
const DELAY: Duration = Duration::from_secs(1);
/// How often the counts are sampled (and the terminal line redrawn).
const TICK: Duration = Duration::from_millis(100);
/// How often a line is written when stderr is not a terminal (`--progress`).
const LOG_EVERY: Duration = Duration::from_secs(1);

/// Whether and how progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// Never (`--quiet`, or stderr is not a terminal).
    Never,
    /// On a terminal, once an expansion has run past [`DELAY`].
    WhenSlow,
    /// From the start, wherever stderr goes, with a closing summary (`--progress`).
    Always,
}

impl Show {
    /// What the flags ask for, else what stderr is.
    pub fn chosen(quiet: bool, forced: bool) -> Show {
        match (quiet, forced) {
            (true, _) => Show::Never,
            (false, true) => Show::Always,
            (false, false) if std::io::stderr().is_terminal() => Show::WhenSlow,
            (false, false) => Show::Never,
        }
    }
}

/// The sampling thread; dropping the reporter stops it and waits for it, so
/// the line is cleared (and, with `--progress`, the summary written) first.
pub struct Reporter {
    stop: Sender<()>,
    thread: Option<JoinHandle<()>>,
    /// Hears when the last expansion ends: the line is cleared there.
    sink: ProgressSink,
}

impl Reporter {
    /// Starts showing progress as `show` says (`None`: nothing to show).
    pub fn start(show: Show) -> Option<Reporter> {
        if show == Show::Never {
            return None;
        }
        let (stop, stopped) = mpsc::channel();
        let terminal = std::io::stderr().is_terminal();
        let line = Arc::new(Mutex::new(Line::new(show, terminal)));
        let idle = Arc::clone(&line);
        let sink = ProgressSink::new(move || lock(&idle).idle());
        let thread = std::thread::spawn(move || {
            // Until told to stop (or the reporter is gone). Sampled under
            // the lock: the idle hook cannot clear between the sample and
            // the drawing.
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
                lock(&line).tick();
            }
            lock(&line).close();
        });
        Some(Reporter {
            stop,
            thread: Some(thread),
            sink,
        })
    }

    /// The sink the run's settings carry, so that expansions clear the line.
    pub fn sink(&self) -> ProgressSink {
        self.sink.clone()
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        let _ = self.stop.send(());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn lock(line: &Mutex<Line>) -> MutexGuard<'_, Line> {
    line.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the thread knows between samples.
struct Line {
    show: Show,
    terminal: bool,
    /// The counts when the process started showing.
    base: Progress,
    started: Instant,
    /// When the expansions now under way began (as first sampled).
    busy_since: Option<Instant>,
    /// Whether a line stands on the terminal now, to be cleared.
    drawn: bool,
    last_logged: Option<Instant>,
}

impl Line {
    fn new(show: Show, terminal: bool) -> Line {
        Line {
            show,
            terminal,
            base: progress(),
            started: Instant::now(),
            busy_since: None,
            drawn: false,
            last_logged: None,
        }
    }

    fn tick(&mut self) {
        let now = progress();
        if now.active == 0 {
            self.idle();
            return;
        }
        let since = *self.busy_since.get_or_insert_with(Instant::now);
        if self.show == Show::WhenSlow && since.elapsed() < DELAY {
            return;
        }
        let text = self.text("expanding", now);
        if self.terminal {
            self.write(&format!("\r\x1b[2K{text}"));
            self.drawn = true;
        } else if self.last_logged.is_none_or(|t| t.elapsed() >= LOG_EVERY) {
            self.write(&format!("{text}\n"));
            self.last_logged = Some(Instant::now());
        }
    }

    /// No expansion is under way: the line goes, and the next one waits its delay again.
    fn idle(&mut self) {
        self.busy_since = None;
        self.clear();
    }

    fn close(&mut self) {
        let now = progress();
        self.clear();
        if self.show == Show::Always {
            let done = self.text("expanded", now);
            let walks = self.walks(now);
            self.write(&format!("{done}{walks}\n"));
        }
    }

    fn clear(&mut self) {
        if self.drawn {
            self.write("\r\x1b[2K");
            self.drawn = false;
        }
    }

    /// `ledger: expanding: 52311 files listed, 12004 answered, 1.2 GiB read (640.0 MiB/s)`.
    fn text(&self, verb: &str, now: Progress) -> String {
        let listed = now.listed - self.base.listed;
        let answered = now.answered - self.base.answered;
        let bytes = now.bytes - self.base.bytes;
        let seconds = self.started.elapsed().as_secs_f64().max(0.001);
        format!(
            "ledger: {verb}: {listed} files listed, {answered} answered, {} read ({}/s)",
            size(bytes as f64),
            size(bytes as f64 / seconds)
        )
    }

    /// `, 1 walk replayed` for the summary, or nothing when every worktree
    /// was walked (docs/performance.md, The walk memo).
    fn walks(&self, now: Progress) -> String {
        match now.walks_replayed - self.base.walks_replayed {
            0 => String::new(),
            1 => ", 1 walk replayed".to_owned(),
            n => format!(", {n} walks replayed"),
        }
    }

    fn write(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
    }
}

/// `bytes` in binary units: `512 B`, `1.5 KiB`, `640.0 MiB`.
fn size(bytes: f64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024.0 {
        return format!("{bytes:.0} B");
    }
    let mut value = bytes / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_binary_units() {
        assert_eq!(size(0.0), "0 B");
        assert_eq!(size(1023.0), "1023 B");
        assert_eq!(size(1536.0), "1.5 KiB");
        assert_eq!(size(640.0 * 1024.0 * 1024.0), "640.0 MiB");
    }

    #[test]
    fn the_flags_win_over_the_terminal() {
        assert_eq!(Show::chosen(true, false), Show::Never);
        assert_eq!(Show::chosen(false, true), Show::Always);
    }
}
