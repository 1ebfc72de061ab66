//! A workspace's settings at the door: the thread count, the digest cache
//! (neither changes an answer, only how it is computed) and the signing
//! files (which key signs, whose signatures are trusted). A binding's
//! `Workspace` asks [`workspace_settings`] once, when it is made (the
//! environment read then, the caller's choices over it), keeps the answer,
//! and passes it with every call ([`super::call_with`]). Nothing is
//! process-wide: two workspaces in one process keep their own.

use schemars::JsonSchema;
use serde::Deserialize;

use camino::Utf8PathBuf;

use super::{Case, Verb};
use crate::{Result, Settings};

/// The settings of a new workspace: each option given is taken as it is;
/// each left out (or null) comes from the environment, read now
/// (`LEDGER_THREADS`, `LEDGER_NO_CACHE`, `LEDGER_SIGNING_KEY`,
/// `LEDGER_ALLOWED_SIGNERS`), or from the defaults when `environment` is
/// false. A bad setting is `invalid-argument`, naming it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceSettingsOptions {
    /// How many threads read and hash files (0: one per core; at most
    /// `MAX_THREADS`).
    #[serde(default)]
    pub threads: Option<usize>,
    /// Use the digest cache in `.ledger/` (off: every file is read).
    #[serde(default)]
    pub digest_cache: Option<bool>,
    /// The OpenSSH private key file (not encrypted) records are signed with.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub signing_key: Option<Utf8PathBuf>,
    /// The allowed-signers file (ssh-keygen's format, as git's
    /// `gpg.ssh.allowedSignersFile`) saying whose signatures are trusted.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub allowed_signers: Option<Utf8PathBuf>,
    /// Read the `LEDGER_*` environment variables for the settings left out
    /// (default true); false: the defaults (one thread per core, the cache
    /// on, nothing signed or trusted).
    #[serde(default = "yes")]
    pub environment: bool,
}

fn yes() -> bool {
    true
}

fn workspace_settings(o: WorkspaceSettingsOptions) -> Result<Settings> {
    let mut settings = match o.environment {
        true => Settings::from_env()?,
        false => Settings::default(),
    };
    if let Some(threads) = o.threads {
        settings.threads = threads;
    }
    if let Some(on) = o.digest_cache {
        settings.digest_cache = on;
    }
    settings = with_file(settings, o.signing_key, |s, f| s.signing_key = Some(f));
    settings = with_file(settings, o.allowed_signers, |s, f| {
        s.allowed_signers = Some(f)
    });
    settings.check()?;
    // A file the environment names by a path that is not UTF-8 is refused
    // now, not shown as unset (it would be refused when used).
    let signing = crate::records::signing::SigningSettings::of(&settings);
    signing.key_path()?;
    signing.allowed_signers_path()?;
    Ok(settings)
}

/// `settings` with `file` set by `set`, when one is given.
fn with_file(
    mut settings: Settings,
    file: Option<Utf8PathBuf>,
    set: impl FnOnce(&mut Settings, Utf8PathBuf),
) -> Settings {
    if let Some(file) = file {
        set(&mut settings, file);
    }
    settings
}

/// The settings a door passes with a call, as JSON (field names in `case`):
/// `invalid-argument`, naming the setting, when one is malformed.
pub(super) fn parse(json: &str, case: Case) -> Result<Settings> {
    let value = super::case::parse_options(json, "the workspace's settings")?;
    let settings: Settings = super::case::from_value(value, case, "settings")?;
    settings.check()?;
    Ok(settings)
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![Verb::free("workspace_settings", &[], workspace_settings)]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::{Value, json};

    use crate::door::{Case, Hooks, respond, respond_with};

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

    #[test]
    fn a_setting_given_is_taken_and_a_bad_one_refused_by_name() {
        let given =
            json!({"threads": 2, "digestCache": false, "signingKey": "k", "environment": false});
        let reply = free("workspace_settings", given);
        assert_eq!(
            reply["ok"],
            json!({"threads": 2, "digestCache": false, "signingKey": "k", "allowedSigners": null}),
            "{reply}"
        );
        for (bad, named) in [
            (json!({"threads": -1}), "threads"),
            (json!({"threads": "4"}), "threads"),
            (json!({"threads": crate::MAX_THREADS + 1}), "threads"),
            (json!({"digestCache": "no"}), "digestCache"),
            (json!({"signingKey": ""}), "signing_key"),
            (json!({"allowedSigners": ["a"]}), "allowedSigners"),
            (json!({"trusted": "f"}), "trusted"),
        ] {
            let reply = free("workspace_settings", bad.clone());
            assert_eq!(reply["error"]["code"], "invalid-argument", "{bad}: {reply}");
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(message.contains(named), "{bad}: {message}");
        }
    }

    #[test]
    fn settings_passed_with_a_call_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().to_str().unwrap();
        let call = |settings: &str| -> Value {
            let reply = respond_with(
                Some(ws),
                Some(settings),
                "fingerprint",
                "{}",
                Case::Snake,
                &Hooks::default(),
            );
            serde_json::from_str(&reply).unwrap()
        };
        assert!(call(r#"{"threads": 1, "digest_cache": false}"#)["ok"].is_string());
        let reply = call(r#"{"threads": 100000}"#);
        assert_eq!(reply["error"]["code"], "invalid-argument", "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("threads")
        );
    }
}
