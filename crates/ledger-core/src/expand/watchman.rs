//! A small synchronous client of [Watchman](https://facebook.github.io/watchman/):
//! which files of a watched tree changed since a clock, so that an expansion can
//! skip what did not change. It answers exactly or fails: anything off (a
//! timeout, a recrawl warning, a malformed or oversized answer) is an error, and
//! the caller then walks the whole tree, so a partial answer never passes as a
//! success.
//!
//! The encoding is BSER v2, through `serde_bser` (Meta's crate, the encoder of
//! their own `watchman_client`), because its byte strings carry a file name
//! that is not UTF-8 as its exact bytes, where Watchman's JSON cannot carry it
//! at all (4.9, asked in JSON, sends no answer whatever to a query that would
//! name one). `serde_bser` only encodes and decodes buffers, which keeps the
//! client synchronous (no async runtime) and lets this module frame each answer
//! itself: the length in the PDU header is checked against [`MAX_ANSWER`]
//! before any of the body is read.
//!
//! Every request has one deadline, the timeout given at connection, for all of
//! its writes and reads (socket timeouts set to what is left of it); writes use
//! `MSG_NOSIGNAL`, so a server gone away is an error and not a `SIGPIPE`;
//! unilateral PDUs (logs, subscriptions) are skipped. A request that fails
//! before its whole answer is read leaves the stream in an unknown place, so
//! the connection refuses every later request ([`WatchmanError::Unusable`]).

use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use std::{env, thread};

use rustix::io::Errno;
use rustix::net::sockopt::{self, Timeout};
use rustix::net::{AddressFamily, SendFlags, SocketAddrUnix, SocketFlags, SocketType};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_bser::bytestring::ByteString;

use crate::quote::{escape, one_line};

/// The largest answer read, in bytes after its PDU header: a bigger one is
/// refused unread rather than held in memory.
pub(crate) const MAX_ANSWER: u64 = 64 << 20;

/// The environment variable that names Watchman's socket, as Watchman's own
/// clients read it.
pub(crate) const SOCK_ENV: &str = "WATCHMAN_SOCK";

/// The longest timeout honoured: a longer one is cut to it, so that adding it
/// to the clock cannot overflow.
const LONGEST: Duration = Duration::from_secs(24 * 60 * 60);

/// The most of `watchman get-sockname`'s output read (its answer is one
/// small JSON object).
const MAX_SOCKNAME_OUTPUT: u64 = 64 << 10;

/// How often the exit of `watchman get-sockname` is checked once it has
/// closed its output (it exits right after; the check only bounds a wrapper
/// that does not).
const EXIT_POLL: Duration = Duration::from_millis(5);

/// The magic of a BSER v2 PDU, the only version `serde_bser` decodes (Watchman
/// answers in the version it was asked in).
const BSER_V2: [u8; 2] = [0, 2];

/// The fields a change is asked with.
const FIELDS: [&str; 3] = ["name", "exists", "type"];

/// Why Watchman could not answer exactly. Each message is one line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WatchmanError {
    /// The `watchman` binary could not be started.
    #[error("cannot run watchman to find its socket: {}", one_line(&.source.to_string()))]
    Spawn {
        /// Why the process could not be started.
        source: io::Error,
    },
    /// `watchman get-sockname` ran but named no socket.
    #[error("watchman did not name its socket: {reason}")]
    Sockname {
        /// What it said or how it ended, on one line.
        reason: String,
    },
    /// The socket did not accept the connection.
    #[error("cannot connect to watchman at '{path}': {}", one_line(&.source.to_string()))]
    Connect {
        /// The socket's path, escaped.
        path: String,
        /// Why the connection failed.
        source: io::Error,
    },
    /// The deadline passed before the answer was complete.
    #[error("watchman did not answer within {millis} ms")]
    Timeout {
        /// The deadline, in milliseconds.
        millis: u128,
    },
    /// Watchman closed the connection before a whole answer.
    #[error("watchman closed the connection before answering")]
    Closed,
    /// The connection failed otherwise.
    #[error("the connection to watchman failed: {}", one_line(&.source.to_string()))]
    Io {
        /// The failure.
        source: io::Error,
    },
    /// The answer's header announces more than [`MAX_ANSWER`] bytes.
    #[error("watchman's answer of {len} bytes is over the limit of {MAX_ANSWER} bytes")]
    TooLarge {
        /// The announced length.
        len: u64,
    },
    /// The answer is not the BSER this client asked for.
    #[error("watchman's answer is malformed: {reason}")]
    Protocol {
        /// What is wrong with it, on one line.
        reason: String,
    },
    /// Watchman answered with an error.
    #[error("watchman refused the request: {message}")]
    Server {
        /// Watchman's message, escaped to one line.
        message: String,
    },
    /// Watchman answered with a warning (a recrawl, say): its answer may miss
    /// changes, so it is not used.
    #[error("watchman warned that its answer may be incomplete: {message}")]
    Warning {
        /// Watchman's message, escaped to one line.
        message: String,
    },
    /// An earlier request failed midway, so the stream's position is unknown.
    #[error("the connection to watchman is unusable after an earlier failure")]
    Unusable,
}

/// A result of this module.
type Result<T> = std::result::Result<T, WatchmanError>;

/// A connection to a Watchman server.
#[derive(Debug)]
pub(crate) struct Watchman {
    /// The socket, in blocking mode with timeouts set per operation.
    stream: UnixStream,
    /// Each request's deadline, from its start.
    timeout: Duration,
    /// Whether a request failed before its whole answer was read.
    broken: bool,
}

/// A watched tree, as `watch-project` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Watch {
    /// The root Watchman watches: the directory asked for, or the nearest
    /// ancestor holding a root marker (`.git`, `.watchmanconfig`, ...).
    pub root: PathBuf,
    /// The directory asked for, relative to `root`, when they differ.
    pub relative: Option<Vec<u8>>,
}

/// What changed since a clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Since {
    /// The clock of this answer, to ask from next time.
    pub clock: String,
    /// Whether the clock asked from is unknown to this server (it restarted,
    /// or the watch is new): then `changes` is empty and says nothing.
    pub fresh_instance: bool,
    /// The changed entries.
    pub changes: Vec<Change>,
}

/// One changed entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// Its name relative to the watch's root, or to its `relative` directory
    /// when it has one, as exact bytes.
    pub name: Vec<u8>,
    /// Whether it exists now (false: deleted).
    pub exists: bool,
    /// What it is (or last was).
    pub kind: ChangeKind,
}

/// What a changed entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// Anything else (a socket, a FIFO, a device), or unknown.
    Other,
}

/// What every answer may carry, read before the answer itself.
#[derive(Deserialize)]
struct Head {
    /// Set on a PDU that answers no request.
    #[serde(default)]
    unilateral: bool,
    /// A log line pushed by the server (older servers omit `unilateral`).
    log: Option<IgnoredAny>,
    /// A subscription's notification (ditto).
    subscription: Option<IgnoredAny>,
    /// Why the request failed.
    error: Option<ByteString>,
    /// Why the answer may be incomplete.
    warning: Option<ByteString>,
}

/// The answer to `watch-project`.
#[derive(Deserialize)]
struct WatchProjectAnswer {
    /// The watched root.
    watch: ByteString,
    /// The directory asked for, relative to the root, when they differ.
    relative_path: Option<ByteString>,
}

/// The answer to `clock`.
#[derive(Deserialize)]
struct ClockAnswer {
    /// The current clock, after the sync.
    clock: String,
}

/// The answer to `query`.
#[derive(Deserialize)]
struct QueryAnswer {
    /// The clock this answer runs to.
    clock: String,
    /// Whether the `since` clock was unknown to the server.
    is_fresh_instance: bool,
    /// The changed entries, with the fields of [`FIELDS`].
    files: Vec<FileAnswer>,
}

/// One entry of a query's answer.
#[derive(Deserialize)]
struct FileAnswer {
    /// The name, relative to the root or the `relative_root`.
    name: ByteString,
    /// Whether it exists now.
    exists: bool,
    /// Its type letter (`f`, `d`, `l`, ...).
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// The options of `clock`.
#[derive(Serialize)]
struct ClockOptions {
    /// How long the server may wait for its cookie (0 would skip the sync).
    sync_timeout: u64,
}

/// The expression of `query`.
#[derive(Serialize)]
struct Query<'a> {
    /// The clock to report changes from.
    since: &'a str,
    /// The directory names are relative to, and the only one reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    relative_root: Option<ByteString>,
    /// The fields of each entry.
    fields: [&'static str; 3],
    /// No list of every file when the clock is unknown: the caller walks.
    empty_on_fresh_instance: bool,
    /// How long the server may wait for its cookie (0 would skip the sync).
    sync_timeout: u64,
}

/// What `watchman get-sockname` prints.
#[derive(Deserialize)]
struct SocknameAnswer {
    /// The socket's path.
    sockname: Option<String>,
    /// Why there is none.
    error: Option<String>,
}

impl Watchman {
    /// Connects to the socket named by `$WATCHMAN_SOCK`, else by
    /// `watchman get-sockname` (the binary found on PATH, which starts the
    /// server if none runs; killed if it outlives `deadline`). Finding and
    /// connecting take at most `deadline` together, and every later request
    /// gets `deadline` of its own.
    pub(crate) fn connect(deadline: Duration) -> Result<Watchman> {
        // Pretty JSON (no `--no-pretty`) parses the same, and the core's
        // string literals name no flags (tests/vocabulary.rs).
        let mut command = Command::new("watchman");
        command.arg("get-sockname");
        Watchman::connect_with(env::var_os(SOCK_ENV), command, deadline)
    }

    /// [`Watchman::connect`] given the value of `$WATCHMAN_SOCK` and the
    /// command that names the socket (tests give their own).
    fn connect_with(
        sock: Option<OsString>,
        command: Command,
        deadline: Duration,
    ) -> Result<Watchman> {
        let deadline = deadline.min(LONGEST);
        let until = Instant::now() + deadline;
        let path = match sock {
            Some(path) if !path.is_empty() => PathBuf::from(path),
            _ => sockname(command, until, deadline)?,
        };
        open(&path, until, deadline)
    }

    /// Connects to the socket at `path`, within `deadline`; every later
    /// request gets `deadline` of its own.
    #[cfg(test)]
    pub(crate) fn connect_to(path: &Path, deadline: Duration) -> Result<Watchman> {
        let deadline = deadline.min(LONGEST);
        open(path, Instant::now() + deadline, deadline)
    }

    /// Watches the project holding `dir` (`watch-project`): the root is `dir`
    /// or its nearest ancestor with a root marker.
    pub(crate) fn watch_project(&mut self, dir: &Path) -> Result<Watch> {
        // The server resolves the path itself, not against our directory.
        let dir = std::path::absolute(dir).map_err(|source| WatchmanError::Io { source })?;
        let answer: WatchProjectAnswer = self.request(&("watch-project", bytes_of(&dir)))?;
        Ok(Watch {
            root: PathBuf::from(OsString::from_vec(answer.watch.into_bytes())),
            relative: answer.relative_path.map(ByteString::into_bytes),
        })
    }

    /// The watch's current clock, taken after a cookie sync, so that every
    /// change made before the call lies before it.
    pub(crate) fn clock(&mut self, watch: &Watch) -> Result<String> {
        let options = ClockOptions {
            sync_timeout: self.sync_millis(),
        };
        let answer: ClockAnswer = self.request(&("clock", bytes_of(&watch.root), options))?;
        Ok(answer.clock)
    }

    /// What changed in the watch (below its `relative` directory, if any)
    /// since `clock`. The query syncs on a cookie first, so every change made
    /// before the call is in the answer; a clock the server does not know
    /// gives `fresh_instance` and no changes.
    pub(crate) fn since(&mut self, watch: &Watch, clock: &str) -> Result<Since> {
        let query = Query {
            since: clock,
            relative_root: watch.relative.clone().map(ByteString::from),
            fields: FIELDS,
            empty_on_fresh_instance: true,
            sync_timeout: self.sync_millis(),
        };
        let answer: QueryAnswer = self.request(&("query", bytes_of(&watch.root), query))?;
        Ok(Since {
            clock: answer.clock,
            fresh_instance: answer.is_fresh_instance,
            changes: answer.files.into_iter().map(Change::from).collect(),
        })
    }

    /// The server's own sync timeout: the request's, so that it gives up
    /// when we do. At least 1 ms, since 0 would skip the sync.
    fn sync_millis(&self) -> u64 {
        u64::try_from(self.timeout.as_millis())
            .unwrap_or(u64::MAX)
            .max(1)
    }

    /// Sends `request` and reads its answer, skipping unilateral PDUs; an
    /// answer with an error or a warning is an error.
    fn request<T: DeserializeOwned>(&mut self, request: &impl Serialize) -> Result<T> {
        if self.broken {
            return Err(WatchmanError::Unusable);
        }
        let pdu = serde_bser::ser::serialize(Vec::new(), request).map_err(protocol)?;
        let until = Instant::now() + self.timeout;
        // Until a whole answer is read, the stream may stop mid-PDU.
        self.broken = true;
        self.send(&pdu, until)?;
        let (answer, head) = self.answer(until)?;
        self.broken = false;
        head.refuse()?;
        decode(&answer)
    }

    /// Writes all of `bytes` by `until`.
    fn send(&self, mut bytes: &[u8], until: Instant) -> Result<()> {
        while !bytes.is_empty() {
            let left = self.left(until)?;
            self.stream
                .set_write_timeout(Some(left))
                .map_err(|source| WatchmanError::Io { source })?;
            // MSG_NOSIGNAL: a closed peer is EPIPE here, not SIGPIPE.
            match rustix::net::send(&self.stream, bytes, SendFlags::NOSIGNAL) {
                Ok(sent) => bytes = bytes.get(sent..).unwrap_or_default(),
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return Err(self.timed_out()),
                Err(Errno::PIPE | Errno::CONNRESET) => return Err(WatchmanError::Closed),
                Err(errno) => {
                    return Err(WatchmanError::Io {
                        source: errno.into(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The first PDU by `until` that answers the request, with its head.
    fn answer(&self, until: Instant) -> Result<(Vec<u8>, Head)> {
        loop {
            let pdu = self.receive(until)?;
            let head: Head = decode(&pdu)?;
            if !(head.unilateral || head.log.is_some() || head.subscription.is_some()) {
                return Ok((pdu, head));
            }
        }
    }

    /// One whole PDU, header included (`serde_bser` decodes both), read by
    /// `until` and refused unread past [`MAX_ANSWER`].
    fn receive(&self, until: Instant) -> Result<Vec<u8>> {
        let mut reader = Until {
            stream: &self.stream,
            until,
        };
        // The magic, the capabilities (u32) and the type byte of the length.
        let head: [u8; 7] = read_array(&mut reader, &mut Vec::new()).map_err(|e| self.failed(e))?;
        let [m0, m1, .., kind] = head;
        if [m0, m1] != BSER_V2 {
            return Err(protocol_reason("it is not a BSER v2 PDU"));
        }
        let mut pdu = head.to_vec();
        let len = read_length(&mut reader, kind, &mut pdu).map_err(|e| self.failed(e))?;
        let len = u64::try_from(len).map_err(|_| protocol_reason("its length is negative"))?;
        if len > MAX_ANSWER {
            return Err(WatchmanError::TooLarge { len });
        }
        let start = pdu.len();
        reader
            .by_ref()
            .take(len)
            .read_to_end(&mut pdu)
            .map_err(|e| self.failed(e))?;
        if (pdu.len() - start) as u64 != len {
            return Err(WatchmanError::Closed);
        }
        Ok(pdu)
    }

    /// What is left of the request's time, or the timeout error.
    fn left(&self, until: Instant) -> Result<Duration> {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.timed_out());
        }
        Ok(left)
    }

    /// The error of a request past its deadline.
    fn timed_out(&self) -> WatchmanError {
        WatchmanError::Timeout {
            millis: self.timeout.as_millis(),
        }
    }

    /// The error of a failed read.
    fn failed(&self, error: io::Error) -> WatchmanError {
        match error.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => self.timed_out(),
            io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::BrokenPipe => WatchmanError::Closed,
            io::ErrorKind::InvalidData => protocol(error),
            _ => WatchmanError::Io { source: error },
        }
    }
}

impl Head {
    /// The answer's error or warning, as an error.
    fn refuse(self) -> Result<()> {
        if let Some(error) = self.error {
            return Err(WatchmanError::Server {
                message: escape(&error).into_owned(),
            });
        }
        if let Some(warning) = self.warning {
            return Err(WatchmanError::Warning {
                message: escape(&warning).into_owned(),
            });
        }
        Ok(())
    }
}

impl From<FileAnswer> for Change {
    fn from(file: FileAnswer) -> Change {
        let kind = match file.kind.as_deref() {
            Some("f") => ChangeKind::File,
            Some("d") => ChangeKind::Directory,
            Some("l") => ChangeKind::Symlink,
            _ => ChangeKind::Other,
        };
        Change {
            name: file.name.into_bytes(),
            exists: file.exists,
            kind,
        }
    }
}

/// A reader of the stream that fails once `until` has passed.
struct Until<'a> {
    /// The stream.
    stream: &'a UnixStream,
    /// The request's deadline.
    until: Instant,
}

impl Read for Until<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        // A socket timeout bounds each read; the deadline bounds them all.
        self.stream.set_read_timeout(Some(left))?;
        (&mut &*self.stream).read(buf)
    }
}

/// Connects to the socket at `path` by `until`; requests then get `timeout`.
fn open(path: &Path, until: Instant, timeout: Duration) -> Result<Watchman> {
    let failed = |source: io::Error| WatchmanError::Connect {
        path: escape(path.as_os_str().as_bytes()).into_owned(),
        source,
    };
    let left = until.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(WatchmanError::Timeout {
            millis: timeout.as_millis(),
        });
    }
    let addr = SocketAddrUnix::new(path).map_err(|e| failed(e.into()))?;
    let socket = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC,
        None,
    )
    .map_err(|e| failed(e.into()))?;
    // Linux bounds a blocking connect to a Unix socket by the send timeout;
    // without one, a server whose backlog is full would hold us forever.
    sockopt::set_socket_timeout(&socket, Timeout::Send, Some(left))
        .map_err(|e| failed(e.into()))?;
    match rustix::net::connect(&socket, &addr) {
        Ok(()) => {}
        Err(Errno::AGAIN) => {
            return Err(WatchmanError::Timeout {
                millis: timeout.as_millis(),
            });
        }
        Err(errno) => return Err(failed(errno.into())),
    }
    Ok(Watchman {
        stream: UnixStream::from(socket),
        timeout,
        broken: false,
    })
}

/// The socket `command` (`watchman get-sockname`) names, by `until`: it is
/// killed and reaped if it has not finished by then.
fn sockname(mut command: Command, until: Instant, timeout: Duration) -> Result<PathBuf> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|source| WatchmanError::Spawn { source })?;
    let output = child_output(&mut child, until, timeout);
    // Reaped whatever the output was: no zombie, no process left running.
    let status = reap(&mut child, until, timeout);
    parse_sockname(&output?, status?)
}

/// The child's output, read on a thread so that a child that never closes
/// it cannot hold us past `until`.
fn child_output(child: &mut Child, until: Instant, timeout: Duration) -> Result<Vec<u8>> {
    let stdout = child.stdout.take().ok_or_else(|| WatchmanError::Sockname {
        reason: "its output could not be read".into(),
    })?;
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut output = Vec::new();
        let read = stdout
            .take(MAX_SOCKNAME_OUTPUT)
            .read_to_end(&mut output)
            .map(|_| output);
        // The receiver is gone only after a timeout, which reported already.
        let _ = sender.send(read);
    });
    let left = until.saturating_duration_since(Instant::now());
    match receiver.recv_timeout(left) {
        Ok(read) => read.map_err(|source| WatchmanError::Io { source }),
        Err(_) => Err(WatchmanError::Timeout {
            millis: timeout.as_millis(),
        }),
    }
}

/// Waits for the child until `until`, then kills it; reaps it either way.
fn reap(child: &mut Child, until: Instant, timeout: Duration) -> Result<ExitStatus> {
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|source| WatchmanError::Io { source })?
        {
            return Ok(status);
        }
        if Instant::now() >= until {
            // It may exit between the check and the kill: the wait reaps it.
            let _ = child.kill();
            let _ = child.wait();
            return Err(WatchmanError::Timeout {
                millis: timeout.as_millis(),
            });
        }
        thread::sleep(EXIT_POLL);
    }
}

/// The socket named by `get-sockname`'s output (JSON, pretty or not).
fn parse_sockname(output: &[u8], status: ExitStatus) -> Result<PathBuf> {
    let answer: Option<SocknameAnswer> = serde_json::from_slice(output).ok();
    let reason = match answer {
        Some(SocknameAnswer {
            error: Some(error), ..
        }) => one_line(&error),
        Some(SocknameAnswer {
            sockname: Some(path),
            ..
        }) if status.success() && !path.is_empty() => return Ok(PathBuf::from(path)),
        _ if !status.success() => format!("watchman ended with {status}"),
        _ => "its answer names no socket".into(),
    };
    Err(WatchmanError::Sockname { reason })
}

/// The length of a PDU: a BSER integer of type `kind`, its bytes appended to
/// `pdu`.
fn read_length(reader: &mut impl Read, kind: u8, pdu: &mut Vec<u8>) -> io::Result<i64> {
    Ok(match kind {
        0x03 => i64::from(i8::from_le_bytes(read_array(reader, pdu)?)),
        0x04 => i64::from(i16::from_le_bytes(read_array(reader, pdu)?)),
        0x05 => i64::from(i32::from_le_bytes(read_array(reader, pdu)?)),
        0x06 => i64::from_le_bytes(read_array(reader, pdu)?),
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the PDU length is not a BSER integer",
            ));
        }
    })
}

/// `N` bytes from `reader`, also appended to `pdu`.
fn read_array<const N: usize>(reader: &mut impl Read, pdu: &mut Vec<u8>) -> io::Result<[u8; N]> {
    let mut bytes = [0; N];
    reader.read_exact(&mut bytes)?;
    pdu.extend_from_slice(&bytes);
    Ok(bytes)
}

/// `pdu` decoded as `T`.
fn decode<T: DeserializeOwned>(pdu: &[u8]) -> Result<T> {
    serde_bser::from_slice(pdu).map_err(protocol)
}

/// A `serde_bser` error (a type it does not export) as a protocol error.
fn protocol(error: impl std::fmt::Display) -> WatchmanError {
    protocol_reason(&error.to_string())
}

/// A protocol error for `reason`.
fn protocol_reason(reason: &str) -> WatchmanError {
    WatchmanError::Protocol {
        reason: one_line(reason),
    }
}

/// A path as a BSER byte string (Watchman takes paths as bytes).
fn bytes_of(path: &Path) -> ByteString {
    ByteString::from(path.as_os_str().as_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use std::ffi::OsStr;
    use std::fs;
    use std::io::Write;
    use std::os::unix::fs::symlink;
    use std::os::unix::net::UnixListener;

    use ledger_testkit::WatchmanServer;
    use serde_json::{Value, json};
    use tempfile::TempDir;

    use super::*;

    /// Each request's deadline against a real server: generous, since the
    /// tests assert no timing; it only bounds a server that hangs.
    const PATIENCE: Duration = Duration::from_secs(30);

    /// The deadline against a fake server that never answers.
    const SHORT: Duration = Duration::from_millis(200);

    /// A private Watchman server (`ledger_testkit::WatchmanServer`) and a
    /// tree for it to watch.
    struct Server {
        server: WatchmanServer,
        /// The watched tree, with a root marker.
        tree: TempDir,
    }

    impl Server {
        /// A server and an empty tree.
        fn start() -> Server {
            let tree = tempfile::tempdir().unwrap();
            // A root marker, so that watch-project of a subdirectory
            // watches the tree (and says the subdirectory is relative).
            fs::write(tree.path().join(".watchmanconfig"), "{}").unwrap();
            Server {
                server: WatchmanServer::start(),
                tree,
            }
        }

        /// The socket.
        fn sock(&self) -> PathBuf {
            self.server.sock()
        }

        /// The watched tree, as Watchman names it (resolved).
        fn tree(&self) -> PathBuf {
            fs::canonicalize(self.tree.path()).unwrap()
        }

        /// A client of this server.
        fn client(&self) -> Watchman {
            Watchman::connect_to(&self.sock(), PATIENCE).unwrap()
        }

        /// Kills the server and starts a new one on the same files.
        fn restart(&mut self) {
            self.server.restart();
        }
    }

    /// The change named `name` in `since`.
    fn change<'a>(since: &'a Since, name: &[u8]) -> &'a Change {
        since
            .changes
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no change {}: {since:?}", escape(name)))
    }

    /// Whether `since` names `name`.
    fn names(since: &Since, name: &[u8]) -> bool {
        since.changes.iter().any(|c| c.name == name)
    }

    #[test]
    fn watch_project_names_the_root_and_a_subdirectory_relative_to_it() {
        let server = Server::start();
        let tree = server.tree();
        fs::create_dir_all(tree.join("a/b")).unwrap();
        let mut client = server.client();
        let watch = client.watch_project(&tree).unwrap();
        assert_eq!(
            watch,
            Watch {
                root: tree.clone(),
                relative: None
            }
        );
        let sub = client.watch_project(&tree.join("a/b")).unwrap();
        assert_eq!(sub.root, tree);
        assert_eq!(sub.relative.as_deref(), Some(&b"a/b"[..]));
    }

    #[test]
    fn since_reports_created_modified_deleted_files_a_new_directory_and_a_symlink() {
        let server = Server::start();
        let tree = server.tree();
        fs::write(tree.join("modified"), "old").unwrap();
        fs::write(tree.join("deleted"), "gone soon").unwrap();
        let mut client = server.client();
        let watch = client.watch_project(&tree).unwrap();
        let clock = client.clock(&watch).unwrap();

        fs::write(tree.join("created"), "new").unwrap();
        fs::write(tree.join("modified"), "new").unwrap();
        fs::remove_file(tree.join("deleted")).unwrap();
        fs::create_dir(tree.join("dir")).unwrap();
        symlink("created", tree.join("link")).unwrap();
        let since = client.since(&watch, &clock).unwrap();

        assert!(!since.fresh_instance);
        let expect = |name: &[u8], exists, kind| {
            let found = change(&since, name);
            assert_eq!((found.exists, found.kind), (exists, kind), "{found:?}");
        };
        expect(b"created", true, ChangeKind::File);
        expect(b"modified", true, ChangeKind::File);
        expect(b"deleted", false, ChangeKind::File);
        expect(b"dir", true, ChangeKind::Directory);
        expect(b"link", true, ChangeKind::Symlink);

        // From the new clock on, none of them changed again.
        let again = client.since(&watch, &since.clock).unwrap();
        assert!(!again.fresh_instance);
        for name in [&b"created"[..], b"modified", b"deleted", b"dir", b"link"] {
            assert!(!names(&again, name), "{again:?}");
        }
    }

    #[test]
    fn since_on_a_relative_watch_names_changes_below_it_only() {
        let server = Server::start();
        let tree = server.tree();
        fs::create_dir_all(tree.join("sub")).unwrap();
        fs::create_dir_all(tree.join("other")).unwrap();
        let mut client = server.client();
        let watch = client.watch_project(&tree.join("sub")).unwrap();
        let clock = client.clock(&watch).unwrap();
        fs::write(tree.join("sub/inside"), "x").unwrap();
        fs::write(tree.join("other/outside"), "x").unwrap();
        let since = client.since(&watch, &clock).unwrap();
        assert!(change(&since, b"inside").exists);
        assert!(
            since.changes.iter().all(|c| !c.name.ends_with(b"outside")),
            "{since:?}"
        );
    }

    #[test]
    fn a_name_that_is_not_utf8_comes_back_as_its_exact_bytes() {
        let server = Server::start();
        let tree = server.tree();
        let mut client = server.client();
        let watch = client.watch_project(&tree).unwrap();
        let clock = client.clock(&watch).unwrap();
        fs::write(tree.join(OsStr::from_bytes(b"caf\xe9\n\xff")), "x").unwrap();
        let since = client.since(&watch, &clock).unwrap();
        assert!(change(&since, b"caf\xe9\n\xff").exists);
        // The connection is still in step.
        client.clock(&watch).unwrap();
    }

    #[test]
    fn a_directory_that_is_not_utf8_is_watched_relative_by_its_exact_bytes() {
        let server = Server::start();
        let tree = server.tree();
        let dir = tree.join(OsStr::from_bytes(b"d\xff"));
        fs::create_dir(&dir).unwrap();
        let mut client = server.client();
        let watch = client.watch_project(&dir).unwrap();
        assert_eq!(watch.relative.as_deref(), Some(&b"d\xff"[..]));
        let clock = client.clock(&watch).unwrap();
        fs::write(dir.join(OsStr::from_bytes(b"f\xfe")), "x").unwrap();
        let since = client.since(&watch, &clock).unwrap();
        assert!(change(&since, b"f\xfe").exists);
    }

    #[test]
    fn a_clock_of_a_server_since_restarted_is_a_fresh_instance_without_changes() {
        let mut server = Server::start();
        let tree = server.tree();
        fs::write(tree.join("before"), "x").unwrap();
        let clock = {
            let mut client = server.client();
            let watch = client.watch_project(&tree).unwrap();
            client.clock(&watch).unwrap()
        };
        server.restart();
        fs::write(tree.join("after"), "x").unwrap();
        let mut client = server.client();
        let watch = client.watch_project(&tree).unwrap();
        let since = client.since(&watch, &clock).unwrap();
        assert!(since.fresh_instance, "{since:?}");
        assert!(since.changes.is_empty(), "{since:?}");
        assert_ne!(since.clock, clock);
    }

    #[test]
    fn a_request_to_an_unwatched_root_is_refused_and_the_connection_goes_on() {
        let server = Server::start();
        let tree = server.tree();
        let mut client = server.client();
        let unwatched = Watch {
            root: tree.clone(),
            relative: None,
        };
        let error = client.clock(&unwatched).unwrap_err();
        assert!(matches!(error, WatchmanError::Server { .. }), "{error}");
        let watch = client.watch_project(&tree).unwrap();
        client.clock(&watch).unwrap();
    }

    /// A fake server's socket in a temporary directory.
    fn fake_socket() -> (TempDir, PathBuf, UnixListener) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sock");
        let listener = UnixListener::bind(&path).unwrap();
        (dir, path, listener)
    }

    /// A fake server that writes `answers` at once to the first connection,
    /// then reads until the client hangs up.
    fn fake_server(answers: Vec<Vec<u8>>) -> (TempDir, PathBuf) {
        let (dir, path, listener) = fake_socket();
        thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            for answer in answers {
                // The client may have hung up already (an oversized answer).
                if stream.write_all(&answer).is_err() {
                    return;
                }
            }
            let _ = io::copy(&mut stream, &mut io::sink());
        });
        (dir, path)
    }

    /// `value` as a BSER PDU.
    fn pdu(value: &Value) -> Vec<u8> {
        serde_bser::ser::serialize(Vec::new(), value).unwrap()
    }

    /// A watch of a fake server (never resolved).
    fn fake_watch() -> Watch {
        Watch {
            root: PathBuf::from("/fake"),
            relative: None,
        }
    }

    #[test]
    fn a_server_that_never_answers_times_out_and_the_connection_is_then_unusable() {
        let (_dir, path, _listener) = fake_socket();
        // Never accepted: the kernel's backlog completes the connection.
        let mut client = Watchman::connect_to(&path, SHORT).unwrap();
        let error = client.clock(&fake_watch()).unwrap_err();
        assert!(
            matches!(error, WatchmanError::Timeout { millis: 200 }),
            "{error}"
        );
        assert_eq!(error.to_string(), "watchman did not answer within 200 ms");
        let error = client.since(&fake_watch(), "c:0:0").unwrap_err();
        assert!(matches!(error, WatchmanError::Unusable), "{error}");

        let mut client = Watchman::connect_to(&path, SHORT).unwrap();
        let error = client.since(&fake_watch(), "c:0:0").unwrap_err();
        assert!(matches!(error, WatchmanError::Timeout { .. }), "{error}");
    }

    #[test]
    fn an_answer_over_the_limit_is_refused_unread() {
        // A v2 header announcing MAX_ANSWER + 1 bytes (an int64 length),
        // then some of them.
        let mut huge = vec![0, 2, 0, 0, 0, 0, 0x06];
        huge.extend_from_slice(&(MAX_ANSWER as i64 + 1).to_le_bytes());
        huge.extend_from_slice(&[0x0a; 4096]);
        let (_dir, path) = fake_server(vec![huge]);
        let mut client = Watchman::connect_to(&path, PATIENCE).unwrap();
        let error = client.clock(&fake_watch()).unwrap_err();
        assert!(
            matches!(error, WatchmanError::TooLarge { len } if len == MAX_ANSWER + 1),
            "{error}"
        );
        let error = client.clock(&fake_watch()).unwrap_err();
        assert!(matches!(error, WatchmanError::Unusable), "{error}");
    }

    #[test]
    fn an_answer_that_is_not_bser_v2_is_malformed() {
        let (_dir, path) = fake_server(vec![b"{\"clock\": \"c:1:2\"}\n".to_vec()]);
        let mut client = Watchman::connect_to(&path, PATIENCE).unwrap();
        let error = client.clock(&fake_watch()).unwrap_err();
        assert!(matches!(error, WatchmanError::Protocol { .. }), "{error}");
    }

    #[test]
    fn a_connection_closed_mid_answer_is_reported_closed() {
        let mut cut = pdu(&json!({"version": "4.9.0", "clock": "c:1:2:3:4"}));
        cut.truncate(cut.len() - 3);
        let (dir, path, listener) = fake_socket();
        thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            stream.write_all(&cut).unwrap();
        });
        let mut client = Watchman::connect_to(&path, PATIENCE).unwrap();
        let error = client.clock(&fake_watch()).unwrap_err();
        assert!(matches!(error, WatchmanError::Closed), "{error}");
        drop(dir);
    }

    #[test]
    fn an_answer_with_an_error_is_an_error_and_the_connection_goes_on() {
        let (_dir, path) = fake_server(vec![
            pdu(
                &json!({"version": "4.9.0", "error": "unable to resolve root /fake:\ndirectory not watched"}),
            ),
            pdu(&json!({"version": "4.9.0", "clock": "c:1:2:3:4"})),
        ]);
        let mut client = Watchman::connect_to(&path, PATIENCE).unwrap();
        let error = client.clock(&fake_watch()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "watchman refused the request: unable to resolve root /fake:\\ndirectory not watched"
        );
        assert_eq!(client.clock(&fake_watch()).unwrap(), "c:1:2:3:4");
    }

    #[test]
    fn an_answer_with_a_warning_is_an_error() {
        let warning = "Recrawled this watch 1 time, most recently because:\nIN_Q_OVERFLOW";
        let (_dir, path) = fake_server(vec![
            pdu(&json!({"version": "4.9.0", "clock": "c:1:2:3:4", "warning": warning})),
            pdu(&json!({
                "version": "4.9.0", "clock": "c:1:2:3:5", "is_fresh_instance": false,
                "files": [{"name": "a", "exists": true, "type": "f"}], "warning": warning,
            })),
        ]);
        let mut client = Watchman::connect_to(&path, PATIENCE).unwrap();
        let error = client.clock(&fake_watch()).unwrap_err();
        assert!(matches!(error, WatchmanError::Warning { .. }), "{error}");
        let error = client.since(&fake_watch(), "c:1:2:3:4").unwrap_err();
        assert!(matches!(error, WatchmanError::Warning { .. }), "{error}");
        assert!(!error.to_string().contains('\n'));
    }

    #[test]
    fn unilateral_pdus_are_skipped() {
        let (_dir, path) = fake_server(vec![
            pdu(&json!({"version": "4.9.0", "unilateral": true, "log": "a log line"})),
            pdu(&json!({"version": "4.9.0", "log": "an older server's log line"})),
            pdu(
                &json!({"version": "4.9.0", "unilateral": true, "subscription": "s", "clock": "c:9"}),
            ),
            pdu(&json!({
                "version": "4.9.0", "clock": "c:1:2:3:5", "is_fresh_instance": false,
                "files": [
                    {"name": "a", "exists": true, "type": "f"},
                    {"name": "b", "exists": false, "type": "d"},
                    {"name": "c", "exists": true, "type": "p"},
                ],
            })),
        ]);
        let mut client = Watchman::connect_to(&path, PATIENCE).unwrap();
        let since = client.since(&fake_watch(), "c:1:2:3:4").unwrap();
        let kinds: Vec<_> = since.changes.iter().map(|c| (c.exists, c.kind)).collect();
        assert_eq!(
            kinds,
            [
                (true, ChangeKind::File),
                (false, ChangeKind::Directory),
                (true, ChangeKind::Other)
            ]
        );
        assert_eq!(since.clock, "c:1:2:3:5");
    }

    #[test]
    fn an_answer_missing_a_field_is_malformed() {
        let (_dir, path) = fake_server(vec![pdu(&json!({"version": "4.9.0", "clock": "c:1"}))]);
        let mut client = Watchman::connect_to(&path, PATIENCE).unwrap();
        let error = client.since(&fake_watch(), "c:0").unwrap_err();
        assert!(matches!(error, WatchmanError::Protocol { .. }), "{error}");
    }

    #[test]
    fn connecting_to_no_socket_is_an_error_of_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OsStr::from_bytes(b"no\nsock"));
        let error = Watchman::connect_to(&path, PATIENCE).unwrap_err();
        assert!(matches!(error, WatchmanError::Connect { .. }), "{error}");
        let text = error.to_string();
        assert!(!text.contains('\n') && text.contains("no\\nsock"), "{text}");
    }

    #[test]
    fn get_sockname_of_the_real_binary_names_the_server_s_socket() {
        let server = Server::start();
        let mut flag = OsString::from("--sockname=");
        flag.push(server.sock());
        let mut command = Command::new("watchman");
        command.arg(flag).arg("get-sockname");
        let found = sockname(command, Instant::now() + PATIENCE, PATIENCE).unwrap();
        assert_eq!(found, server.sock());
        let mut client = Watchman::connect_to(&found, PATIENCE).unwrap();
        client.watch_project(&server.tree()).unwrap();
    }

    #[test]
    fn connect_takes_the_socket_from_the_environment_else_from_get_sockname() {
        let server = Server::start();
        let sock = Some(server.sock().into_os_string());
        let unused = Command::new("/nonexistent/watchman");
        let mut client = Watchman::connect_with(sock, unused, PATIENCE).unwrap();
        client.watch_project(&server.tree()).unwrap();

        for sock in [None, Some(OsString::new())] {
            let mut flag = OsString::from("--sockname=");
            flag.push(server.sock());
            let mut command = Command::new("watchman");
            command.arg(flag).arg("get-sockname");
            let mut client = Watchman::connect_with(sock, command, PATIENCE).unwrap();
            client.watch_project(&server.tree()).unwrap();
        }
    }

    /// `sh -c script` as a stand-in for `watchman get-sockname`.
    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        command
    }

    #[test]
    fn get_sockname_that_fails_or_hangs_is_an_error() {
        let until = || Instant::now() + PATIENCE;
        let found = sockname(sh(r#"printf '{"sockname": "/x/sock"}'"#), until(), PATIENCE);
        assert_eq!(found.unwrap(), Path::new("/x/sock"));

        let error = sockname(
            sh(r#"printf %s '{"error": "no\nway"}'; exit 1"#),
            until(),
            PATIENCE,
        );
        assert_eq!(
            error.unwrap_err().to_string(),
            "watchman did not name its socket: no; way"
        );
        let error = sockname(sh("exit 3"), until(), PATIENCE).unwrap_err();
        assert!(matches!(error, WatchmanError::Sockname { .. }), "{error}");

        let error = sockname(sh("exec sleep 60"), Instant::now() + SHORT, SHORT).unwrap_err();
        assert!(matches!(error, WatchmanError::Timeout { .. }), "{error}");

        let missing = Command::new("/nonexistent/watchman");
        let error = sockname(missing, until(), PATIENCE).unwrap_err();
        assert!(matches!(error, WatchmanError::Spawn { .. }), "{error}");
    }
}
