//! The process's entry point, in place of std's runtime start.
//!
//! std's start (`fn main`) also finds the main thread's stack bounds, for its
//! "has overflowed its stack" message: glibc finds them by reading and parsing
//! /proc/self/maps, a file the kernel writes out line by line for every
//! mapping of the process. That is 0.12 ms of every run, a twentieth of a
//! one-file fingerprint (docs/performance.md, The fixed cost of a run). The
//! rest of what that start does is done here, as std does it: the standard
//! streams are open before anything else is, `SIGPIPE` is ignored (a closed
//! pipe is a write error, which the CLI answers), a panic is exit status 101,
//! stdout is flushed at the end. A stack overflow is then a plain `SIGSEGV`.

// The test harness starts the unit tests with std's own start.
#![cfg_attr(test, allow(dead_code))]

use std::io::Write;
use std::process::ExitCode;

/// Runs `body` as std's runtime would run `fn main`, and gives its exit status.
pub fn run(body: fn() -> ExitCode) -> i32 {
    #[cfg(unix)]
    unix::prepare();
    let code = std::panic::catch_unwind(body).unwrap_or(ExitCode::from(101));
    // What is left in stdout's buffer; a failure here was a failure of the
    // last write already, which the command answered.
    let _ = std::io::stdout().lock().flush();
    status(code)
}

/// The number an `ExitCode` stands for (std keeps it private).
fn status(code: ExitCode) -> i32 {
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .map_or(1, i32::from)
}

#[cfg(unix)]
#[allow(unsafe_code)]
mod unix {
    /// Opens `/dev/null` in place of any standard stream the process was
    /// started without (a file opened later would otherwise become its stdout),
    /// and ignores `SIGPIPE`; both as std's start does.
    pub fn prepare() {
        for fd in 0..=2 {
            // SAFETY: `fcntl(F_GETFD)` only asks whether `fd` is open.
            let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
            // SAFETY: a constant C string; the lowest free descriptor is `fd`.
            if closed && unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } == -1 {
                // As std does: a process that cannot have its standard
                // streams does not run.
                std::process::abort();
            }
        }
        // SAFETY: ignoring a signal installs no handler of ours.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exit_code_keeps_its_number() {
        for n in 0..=u8::MAX {
            assert_eq!(status(ExitCode::from(n)), i32::from(n));
        }
        assert_eq!(status(ExitCode::SUCCESS), 0);
        assert_eq!(status(ExitCode::FAILURE), 1);
    }
}
