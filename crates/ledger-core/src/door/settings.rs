//! Process-wide settings every later call uses: the thread count, the digest
//! cache (neither changes an answer, only how it is computed), and
//! the signing settings (which key signs, whose signatures are trusted).

use schemars::JsonSchema;
use serde::Deserialize;

use camino::Utf8PathBuf;

use super::Verb;
use crate::records::signing::{SigningSettings, set_signing_settings, signing_settings};
use crate::{Error, Result};

/// The number of threads calls run with now.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreadsOptions {}

fn threads(_: ThreadsOptions) -> Result<usize> {
    Ok(crate::expand::threads())
}

/// Sets the number of threads every later call uses (`0`: one per core;
/// without a call, the `LEDGER_THREADS` environment variable decides, else
/// one per core). Above the core's limit (`MAX_THREADS`): `invalid-argument`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetThreadsOptions {
    /// How many threads (a whole number, 0 to `MAX_THREADS`).
    pub count: usize,
}

fn set_threads(o: SetThreadsOptions) -> Result<()> {
    crate::expand::set_threads(o.count)
}

/// Whether calls use the digest cache now.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DigestCacheEnabledOptions {}

fn digest_cache_enabled(_: DigestCacheEnabledOptions) -> Result<bool> {
    Ok(crate::expand::digest_cache_enabled())
}

/// Turns the digest cache in `.ledger/` on or off for every later call in
/// this process (off: every file is read). Without a call, the
/// `LEDGER_NO_CACHE` environment variable decides; the cache is on by
/// default. The answer never depends on it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetDigestCacheOptions {
    /// Use the cache.
    pub enabled: bool,
}

fn set_digest_cache(o: SetDigestCacheOptions) -> Result<()> {
    crate::expand::set_digest_cache(o.enabled);
    Ok(())
}

/// The signing settings now: the key records are signed with and the
/// allowed-signers file, each absent when unset.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SigningOptions {}

fn signing(_: SigningOptions) -> Result<SigningSettings> {
    let settings = signing_settings();
    // A file the environment names by a path that is not UTF-8 is refused,
    // not shown as unset.
    settings.key_path()?;
    settings.allowed_signers_path()?;
    Ok(settings)
}

/// Sets the signing settings of every later call in this process; an
/// option left out (or null) is unset. Without a call, the
/// `LEDGER_SIGNING_KEY` and `LEDGER_ALLOWED_SIGNERS` environment variables
/// decide. The files are read when used, not now.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetSigningOptions {
    /// The OpenSSH private key file (not encrypted) records are signed with.
    #[serde(default)]
    pub signing_key: Option<String>,
    /// The allowed-signers file (ssh-keygen's format, as git's
    /// `gpg.ssh.allowedSignersFile`) saying whose signatures are trusted.
    #[serde(default)]
    pub allowed_signers: Option<String>,
}

fn set_signing(o: SetSigningOptions) -> Result<()> {
    set_signing_settings(SigningSettings {
        signing_key: file_option("signing_key", o.signing_key)?,
        allowed_signers: file_option("allowed_signers", o.allowed_signers)?,
        not_utf8: Vec::new(),
    });
    Ok(())
}

/// A file option: an empty name is refused (unset is null, not "").
fn file_option(name: &str, value: Option<String>) -> Result<Option<Utf8PathBuf>> {
    match value {
        Some(v) if v.is_empty() => Err(Error::InvalidArgument {
            message: format!("{name} is empty: name a file, or leave it out to unset it"),
        }),
        v => Ok(v.map(Utf8PathBuf::from)),
    }
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::free("threads", &[], threads),
        Verb::free("set_threads", &["count"], set_threads),
        Verb::free("digest_cache_enabled", &[], digest_cache_enabled),
        Verb::free("set_digest_cache", &["enabled"], set_digest_cache),
        Verb::free("signing", &[], signing),
        Verb::free("set_signing", &[], set_signing),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::{Value, json};

    use crate::door::{Case, Hooks, respond};

    fn free(verb: &str, options: Value) -> Value {
        let reply = respond(
            None,
            verb,
            &options.to_string(),
            Case::Camel,
            &Hooks::default(),
        );
        serde_json::from_str(&reply).unwrap()
    }

    // Only refusals here: the settings are process-wide, and other tests run
    // in this process at the same time.
    #[test]
    fn a_thread_count_is_a_whole_number_up_to_the_limit() {
        for bad in [
            json!(-1),
            json!(1.5),
            json!("4"),
            json!(crate::expand::MAX_THREADS + 1),
        ] {
            let reply = free("set_threads", json!({ "count": bad }));
            assert_eq!(reply["error"]["code"], "invalid-argument", "{bad}: {reply}");
        }
        assert!(free("threads", json!({}))["ok"].as_u64().unwrap() >= 1);
        let reply = free("set_digest_cache", json!({"enabled": "no"}));
        assert_eq!(reply["error"]["code"], "invalid-argument");
        assert!(free("digest_cache_enabled", json!({}))["ok"].is_boolean());
        let reply = free("threads", json!({"count": 2}));
        assert_eq!(
            reply["error"]["code"], "invalid-argument",
            "threads takes no option"
        );
    }

    #[test]
    fn signing_settings_are_file_names_or_unset() {
        for bad in [
            json!({"signing_key": ""}),
            json!({"allowed_signers": ""}),
            json!({"signing_key": 3}),
            json!({"allowed_signers": ["a"]}),
            json!({"signingKey": "k", "trusted": "f"}),
        ] {
            let reply = free("set_signing", bad.clone());
            assert_eq!(reply["error"]["code"], "invalid-argument", "{bad}: {reply}");
        }
        let reply = free("signing", json!({"signing_key": "k"}));
        assert_eq!(reply["error"]["code"], "invalid-argument", "{reply}");
        let now = free("signing", json!({}));
        assert!(now["ok"].is_object(), "{now}");
    }
}
