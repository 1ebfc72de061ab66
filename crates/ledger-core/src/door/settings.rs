//! Process-wide settings every later call uses: the thread count and the
//! digest cache. Neither changes an answer, only how it is computed.

use schemars::JsonSchema;
use serde::Deserialize;

use super::Verb;
use crate::Result;

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

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::free("threads", &[], threads),
        Verb::free("set_threads", &["count"], set_threads),
        Verb::free("digest_cache_enabled", &[], digest_cache_enabled),
        Verb::free("set_digest_cache", &["enabled"], set_digest_cache),
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
}
