//! The settings of this run: the `LEDGER_*` environment variables and the
//! global flags (`--threads`, `--no-cache`, `--signing-key`,
//! `--allowed-signers`), merged once in `main` into one
//! [`ledger_core::Settings`]. `main` passes that value to the verb it runs,
//! and every scope, store and change the verb opens carries it: neither the
//! core nor this binary keeps a setting in a global, so a verb that serves
//! many calls in one process (`ledger mcp`) is handed its settings the same
//! way.

use std::ffi::OsString;

use camino::Utf8PathBuf;
use ledger_core::{Error, ProgressSink, Settings, THREADS_ENV};

/// The global flags that are settings.
pub struct Flags {
    /// `--threads N`.
    pub threads: Option<usize>,
    /// `--no-cache`.
    pub no_cache: bool,
    /// `--signing-key FILE`.
    pub signing_key: Option<Utf8PathBuf>,
    /// `--allowed-signers FILE`.
    pub allowed_signers: Option<Utf8PathBuf>,
}

/// The settings `flags` and the environment give (a flag wins over its
/// variable, which is then not read: `--threads 2` runs whatever
/// `LEDGER_THREADS` says), with the progress line's sink.
pub fn read(
    flags: Flags,
    env: impl Fn(&str) -> Option<OsString>,
    progress: Option<ProgressSink>,
) -> Result<Settings, Error> {
    let threads_given = flags.threads.is_some();
    let mut settings = Settings::from_vars(|name| {
        (!(threads_given && name == THREADS_ENV)).then(|| env(name))?
    })?;
    if let Some(count) = flags.threads {
        settings.threads = count;
    }
    if flags.no_cache {
        settings.digest_cache = false;
    }
    if flags.signing_key.is_some() {
        settings.signing_key = flags.signing_key;
    }
    if flags.allowed_signers.is_some() {
        settings.allowed_signers = flags.allowed_signers;
    }
    settings.progress = progress;
    settings.check()?;
    Ok(settings)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn flags() -> Flags {
        Flags {
            threads: None,
            no_cache: false,
            signing_key: None,
            allowed_signers: None,
        }
    }

    #[test]
    fn a_flag_wins_over_its_variable() {
        let env = |name: &str| match name {
            "LEDGER_THREADS" => Some(OsString::from("many")),
            "LEDGER_SIGNING_KEY" => Some(OsString::from("/env/key")),
            _ => None,
        };
        assert!(
            read(flags(), env, None).is_err(),
            "a bad variable is refused"
        );
        let given = Flags {
            threads: Some(2),
            no_cache: true,
            signing_key: Some("/flag/key".into()),
            ..flags()
        };
        let settings = read(given, env, None).unwrap();
        assert_eq!(settings.threads, 2);
        assert!(!settings.digest_cache);
        assert_eq!(settings.signing_key.unwrap(), "/flag/key");
    }
}
