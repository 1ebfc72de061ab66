//! The settings of a workspace: how many threads read, whether the digest
//! cache is used, which key signs and whose signatures are trusted, and
//! where an expansion reports that it ended. One value, carried by a
//! workspace's scopes and store and passed down to every call; nothing here
//! is process-wide (uv's `settings.rs`: merged once, then passed).
//!
//! The environment is read once, by a front door ([`Settings::from_env`]):
//! the CLI in `main`, a binding when a `Workspace` is made. A `Settings`
//! built in Rust ([`Settings::default`]) reads nothing.
//!
//! ```
//! use ledger_core::Settings;
//! let settings = Settings { threads: 2, digest_cache: false, ..Settings::default() };
//! settings.check()?;
//! assert_eq!(settings.resolved_threads(), 2);
//! # Ok::<(), ledger_core::Error>(())
//! ```

use std::ffi::OsStr;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use camino::Utf8PathBuf;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// `LEDGER_THREADS`: the thread count (a whole number, `0` for one per core).
pub const THREADS_ENV: &str = "LEDGER_THREADS";
/// `LEDGER_NO_CACHE`: anything but empty or `0` turns the digest cache off.
pub const NO_CACHE_ENV: &str = "LEDGER_NO_CACHE";
/// `LEDGER_SIGNING_KEY`: the signing key's file.
pub const KEY_ENV: &str = "LEDGER_SIGNING_KEY";
/// `LEDGER_ALLOWED_SIGNERS`: the allowed-signers file.
pub const ALLOWED_ENV: &str = "LEDGER_ALLOWED_SIGNERS";

/// The most threads ledger starts: more would only cost memory (reading is
/// bound by the disk and the cores long before).
pub const MAX_THREADS: usize = 1024;

/// The settings of one workspace: its thread count, its digest cache and
/// its signing files, read from the environment once, at a front door.
/// Neither the thread count nor the digest cache changes an answer, only
/// how it is computed.
#[derive(Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// How many threads read and hash files (`0`: one per core, with
    /// helpers when reads wait on the disk; at most `MAX_THREADS`).
    pub threads: usize,
    /// Whether the digest cache in `.ledger/` is used (off: every file is
    /// read; the answer never depends on it).
    pub digest_cache: bool,
    /// The OpenSSH private key file (not encrypted) records are signed
    /// with; null: unsigned.
    #[schemars(with = "Option<String>")]
    pub signing_key: Option<Utf8PathBuf>,
    /// The allowed-signers file (ssh-keygen's format, as git's
    /// `gpg.ssh.allowedSignersFile`) saying whose signatures are trusted;
    /// null: nobody's.
    #[schemars(with = "Option<String>")]
    pub allowed_signers: Option<Utf8PathBuf>,
    /// The environment variables read for a file left unset above whose
    /// value is not UTF-8: such a file is refused when it is used, never
    /// taken as unset.
    #[serde(skip)]
    #[schemars(skip)]
    pub not_utf8: NonUtf8Env,
    /// Where expansions say they ended (a progress line clears itself
    /// there); `None`: nobody listens.
    #[serde(skip)]
    #[schemars(skip)]
    pub progress: Option<ProgressSink>,
}

impl Default for Settings {
    /// One thread per core, the digest cache on, nothing signed or trusted.
    fn default() -> Settings {
        Settings {
            threads: 0,
            digest_cache: true,
            signing_key: None,
            allowed_signers: None,
            not_utf8: NonUtf8Env::default(),
            progress: None,
        }
    }
}

/// Environment variables that named a file by a path that is not UTF-8,
/// each with its value escaped (only [`Settings::from_env`] finds any).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NonUtf8Env(Vec<(&'static str, String)>);

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("threads", &self.threads)
            .field("digest_cache", &self.digest_cache)
            .field("signing_key", &self.signing_key)
            .field("allowed_signers", &self.allowed_signers)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl PartialEq for Settings {
    /// The same settings: the same values and the same progress sink.
    fn eq(&self, other: &Settings) -> bool {
        self.threads == other.threads
            && self.digest_cache == other.digest_cache
            && self.signing_key == other.signing_key
            && self.allowed_signers == other.allowed_signers
            && self.not_utf8 == other.not_utf8
            && match (&self.progress, &other.progress) {
                (Some(a), Some(b)) => Arc::ptr_eq(&a.0, &b.0),
                (a, b) => a.is_none() && b.is_none(),
            }
    }
}

impl Eq for Settings {}

impl Settings {
    /// The settings the environment gives, read now: `LEDGER_THREADS`,
    /// `LEDGER_NO_CACHE`, `LEDGER_SIGNING_KEY`, `LEDGER_ALLOWED_SIGNERS`
    /// (unset or empty: the default). A malformed thread count is
    /// `invalid-argument`, naming the variable.
    pub fn from_env() -> Result<Settings> {
        Settings::from_vars(|name| std::env::var_os(name))
    }

    /// [`Settings::from_env`] over any lookup of variables.
    pub fn from_vars(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Result<Settings> {
        let mut not_utf8 = Vec::new();
        let settings = Settings {
            threads: count_from_env(var(THREADS_ENV).as_deref())?,
            digest_cache: !is_set(var(NO_CACHE_ENV).as_deref()),
            signing_key: env_path(KEY_ENV, var(KEY_ENV), &mut not_utf8),
            allowed_signers: env_path(ALLOWED_ENV, var(ALLOWED_ENV), &mut not_utf8),
            not_utf8: NonUtf8Env(not_utf8),
            progress: None,
        };
        Ok(settings)
    }

    /// Refuses a thread count above [`MAX_THREADS`] and an empty file name
    /// (`invalid-argument`, naming the setting).
    pub fn check(&self) -> Result<()> {
        if self.threads > MAX_THREADS {
            return Err(Error::InvalidArgument {
                message: format!(
                    "threads: {} is more than ledger starts ({MAX_THREADS})",
                    self.threads
                ),
            });
        }
        for (name, file) in [
            ("signing_key", &self.signing_key),
            ("allowed_signers", &self.allowed_signers),
        ] {
            if file.as_ref().is_some_and(|f| f.as_str().is_empty()) {
                return Err(Error::InvalidArgument {
                    message: format!("{name} is empty: name a file, or leave it out to unset it"),
                });
            }
        }
        Ok(())
    }

    /// The thread count, `0` resolved to one per core.
    pub fn resolved_threads(&self) -> usize {
        match self.threads {
            0 => cores(),
            n => n,
        }
    }

    /// The unset signing files whose variable named a path that is not
    /// UTF-8, with the escaped value (refused when used).
    pub(crate) fn not_utf8(&self) -> &[(&'static str, String)] {
        &self.not_utf8.0
    }
}

/// The number of cores this process may use.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Where expansions report that they ended: a front door that draws a
/// progress line clears it there, so that nothing the caller prints next
/// lands beside it. Cloned, it is the same sink.
#[derive(Clone)]
pub struct ProgressSink(Arc<Sink>);

struct Sink {
    /// Expansions of this sink under way.
    active: AtomicUsize,
    /// Called when the last of them ends, on the thread that ran it.
    idle: Box<dyn Fn() + Send + Sync>,
}

impl ProgressSink {
    /// A sink that calls `idle` each time the last expansion under way with
    /// it ends, before that expansion returns.
    pub fn new(idle: impl Fn() + Send + Sync + 'static) -> ProgressSink {
        ProgressSink(Arc::new(Sink {
            active: AtomicUsize::new(0),
            idle: Box::new(idle),
        }))
    }

    /// Expansions under way with this sink now.
    pub fn active(&self) -> usize {
        self.0.active.load(Ordering::Relaxed)
    }

    /// An expansion starts.
    pub(crate) fn start(&self) {
        self.0.active.fetch_add(1, Ordering::Relaxed);
    }

    /// An expansion ends: the last one calls the idle hook.
    pub(crate) fn end(&self) {
        if self.0.active.fetch_sub(1, Ordering::Relaxed) == 1 {
            (self.0.idle)();
        }
    }
}

/// The count `LEDGER_THREADS` asks for: unset or empty is `0` (one per
/// core); anything but a decimal number is refused, naming the variable.
fn count_from_env(value: Option<&OsStr>) -> Result<usize> {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Ok(0);
    };
    value
        .to_str()
        .and_then(|text| text.trim().parse().ok())
        .ok_or_else(|| Error::InvalidArgument {
            message: format!(
                "{THREADS_ENV}='{}' is not a thread count (a whole number, 0 for one per core)",
                crate::quote::escape(value.as_encoded_bytes())
            ),
        })
}

/// Whether a variable's value counts as set: anything but absent, empty or `0`.
fn is_set(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// A path from the environment; empty means unset. A value that is not
/// UTF-8 is kept, escaped, in `not_utf8`.
fn env_path(
    name: &'static str,
    value: Option<std::ffi::OsString>,
    not_utf8: &mut Vec<(&'static str, String)>,
) -> Option<Utf8PathBuf> {
    let value = value.filter(|v| !v.is_empty())?;
    match value.into_string() {
        Ok(text) => Some(Utf8PathBuf::from(text)),
        Err(raw) => {
            let escaped = crate::quote::escape(raw.as_encoded_bytes()).into_owned();
            not_utf8.push((name, escaped));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::collections::HashMap;
    use std::ffi::OsString;

    fn from(vars: &[(&str, &str)]) -> Result<Settings> {
        let vars: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        Settings::from_vars(|name| vars.get(name).cloned())
    }

    #[test]
    fn the_environment_count_is_a_whole_number_or_refused() {
        assert_eq!(count_from_env(None).unwrap(), 0);
        assert_eq!(count_from_env(Some(OsStr::new(""))).unwrap(), 0);
        assert_eq!(count_from_env(Some(OsStr::new("3"))).unwrap(), 3);
        assert_eq!(count_from_env(Some(OsStr::new(" 2\n"))).unwrap(), 2);
        for bad in ["-1", "two", "1.5"] {
            let err = count_from_env(Some(OsStr::new(bad))).unwrap_err();
            assert_eq!(err.code(), "invalid-argument");
            assert!(err.to_string().contains("LEDGER_THREADS="), "{err}");
        }
    }

    #[test]
    fn a_variable_counts_as_set_unless_absent_empty_or_zero() {
        assert!(!is_set(None));
        assert!(!is_set(Some(OsStr::new(""))));
        assert!(!is_set(Some(OsStr::new("0"))));
        assert!(is_set(Some(OsStr::new("1"))));
        assert!(is_set(Some(OsStr::new("yes"))));
    }

    #[test]
    fn the_environment_is_read_into_one_value() {
        assert_eq!(from(&[]).unwrap(), Settings::default());
        let read = from(&[
            (THREADS_ENV, "3"),
            (NO_CACHE_ENV, "1"),
            (KEY_ENV, "/k"),
            (ALLOWED_ENV, ""),
        ])
        .unwrap();
        assert_eq!(read.threads, 3);
        assert!(!read.digest_cache);
        assert_eq!(read.signing_key.as_deref(), Some("/k".into()));
        assert_eq!(read.allowed_signers, None);
    }

    #[test]
    fn a_bad_setting_is_refused_by_name() {
        let many = Settings {
            threads: MAX_THREADS + 1,
            ..Settings::default()
        };
        let err = many.check().unwrap_err();
        assert_eq!(err.code(), "invalid-argument");
        assert!(err.to_string().contains("threads: 1025"), "{err}");
        let empty = Settings {
            signing_key: Some(Utf8PathBuf::new()),
            ..Settings::default()
        };
        assert!(
            empty
                .check()
                .unwrap_err()
                .to_string()
                .contains("signing_key")
        );
    }

    #[test]
    fn a_sink_hears_when_its_last_expansion_ends() {
        let heard = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&heard);
        let sink = ProgressSink::new(move || {
            counter.fetch_add(1, Ordering::Relaxed);
        });
        sink.start();
        sink.start();
        sink.end();
        assert_eq!(heard.load(Ordering::Relaxed), 0);
        sink.end();
        assert_eq!(heard.load(Ordering::Relaxed), 1);
    }
}
