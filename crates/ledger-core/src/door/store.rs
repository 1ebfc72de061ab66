//! The workspace's record store (docs/records.md, docs/sharing.md), as the
//! doors read it: its check, its refs and the records they name, where a
//! head came from, and the two writes of a shared store (resolving heads
//! that went apart, setting up a remote). The store is `<workspace>/.ledger`,
//! or the repository's when the workspace is the top of a Git checkout;
//! opening it creates nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Verb, Workspace, text};
use crate::{
    Result,
    records::{
        OrphanChoice, OrphanDecision, Provenance, RecordId, RefHead, RemoteSetup, StoreReport,
        StoredRecord, Unlocked,
    },
};

/// What `store_check` finds, and whether the store is clean.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StoreCheck {
    /// The report (`ledger store check --json`).
    #[serde(flatten)]
    pub report: StoreReport,
    /// No orphan records, temp files, corrupt files or dangling refs (the
    /// digest cache never makes a store unclean).
    pub clean: bool,
}

/// Orphan records, leftover temp files, corrupt files and dangling refs of
/// the store (`ledger store check --json`), and whether it is clean; an
/// absent store is empty and clean.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreCheckOptions {}

fn store_check(ws: &Workspace, _: StoreCheckOptions) -> Result<StoreCheck> {
    let report = ws.store()?.check()?;
    let clean = report.is_clean();
    Ok(StoreCheck { report, clean })
}

/// The record a ref names, or null.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeadOptions {
    /// The ref name, e.g. `changes/add-auth` or `gates/test`.
    pub reference: String,
}

fn head(ws: &Workspace, o: HeadOptions) -> Result<Option<RecordId>> {
    ws.store()?.head(&o.reference)
}

/// The records on a ref, newest first.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryOptions {
    /// The ref name, e.g. `changes/add-auth` or `gates/test`.
    pub reference: String,
}

fn history(ws: &Workspace, o: HistoryOptions) -> Result<Vec<RecordId>> {
    ws.store()?.history(&o.reference)
}

/// Every ref and the record it names, sorted by name.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefsOptions {}

fn refs(ws: &Workspace, _: RefsOptions) -> Result<Vec<RefHead>> {
    let refs = ws.store()?.refs()?;
    Ok(refs
        .into_iter()
        .map(|(name, id)| RefHead {
            name,
            id,
            remote: None,
        })
        .collect())
}

/// A record (its header and its body as stored), checked against its id.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoredRecordOptions {
    /// The record's id (64 hex digits).
    pub id: String,
}

fn stored_record(
    ws: &Workspace,
    o: StoredRecordOptions,
) -> Result<StoredRecord<serde_json::Value>> {
    let id: RecordId = o.id.parse()?;
    ws.store()?.read_record(&id)
}

/// Where the record a ref names came from (this store, or a remote's
/// fetched head) and who signed it, judged against the allowed signers of
/// the signing settings; null when the ref has no head.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProvenanceOptions {
    /// The ref name, e.g. `changes/add-auth` or `gates/test`.
    pub reference: String,
}

fn provenance(ws: &Workspace, o: ProvenanceOptions) -> Result<Option<Provenance>> {
    ws.store()?.provenance(&o.reference)
}

/// Ends a divergence (`divergent-heads`) by keeping the head that names
/// `keep`: a write with every head as a parent, so nothing is lost and the
/// next push fast-forwards. Returns the kept record.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveOptions {
    /// The ref whose heads went apart.
    pub reference: String,
    /// The record of the head to keep (64 hex digits).
    pub keep: String,
}

fn resolve(ws: &Workspace, o: ResolveOptions) -> Result<RecordId> {
    let keep: RecordId = o.keep.parse()?;
    ws.store()?.resolve(&o.reference, &keep)
}

/// Decides an orphan record that `store_check` lists (what a write refused
/// with `pointer-conflict` left): `keep` records its content again on top of
/// its ref's head, `discard` sets it aside; either way the decision is
/// recorded with the reason (on the ref `store/decisions`) and the orphan is
/// no longer listed. Nothing is deleted.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecideOrphanOptions {
    /// The orphan record (64 hex digits).
    pub orphan: String,
    /// `keep` or `discard`.
    pub choice: OrphanChoice,
    /// Why, in the decider's words.
    pub reason: String,
}

fn decide_orphan(ws: &Workspace, o: DecideOrphanOptions) -> Result<OrphanDecision> {
    let orphan: RecordId = o.orphan.parse()?;
    ws.store()?.decide_orphan(&orphan, o.choice, &o.reason)
}

/// Removes the ref lock files a killed writer left beside the store's Git
/// refs (`store_check` lists them under `locks`): only those at least
/// `older_than_seconds` old (default 600, at least 60), never one a writer
/// may still hold. Returns what was removed and what was kept.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreUnlockOptions {
    /// Remove only lock files at least this many seconds old (default 600).
    #[serde(default)]
    pub older_than_seconds: Option<u64>,
}

fn store_unlock(ws: &Workspace, o: StoreUnlockOptions) -> Result<Unlocked> {
    ws.store()?
        .unlock(o.older_than_seconds.map(std::time::Duration::from_secs))
}

/// Adds the fetch refspec that brings a remote's ledger heads beside this
/// store's to the repository's configuration
/// (`+refs/ledger/heads/*:refs/ledger/remotes/<remote>/*`), unless it is
/// there, and gives the push refspec.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoteSetupOptions {
    /// The Git remote (default `origin`).
    #[serde(default = "origin")]
    pub remote: String,
}

fn origin() -> String {
    "origin".to_owned()
}

fn remote_setup(ws: &Workspace, o: RemoteSetupOptions) -> Result<RemoteSetup> {
    ws.store()?.remote_setup(&o.remote)
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("store_check", &[], store_check)
            .shown(|check: &StoreCheck| text::store_report(&check.report)),
        Verb::method("head", &["reference"], head),
        Verb::method("history", &["reference"], history),
        Verb::method("refs", &[], refs),
        Verb::method("stored_record", &["id"], stored_record),
        Verb::method("provenance", &["reference"], provenance),
        Verb::method("resolve", &["reference", "keep"], resolve).shown(|kept: &RecordId| {
            format!("the ref now names {kept}; its other heads stay in its history\n")
        }),
        Verb::method(
            "decide_orphan",
            &["orphan", "choice", "reason"],
            decide_orphan,
        ),
        Verb::method("store_unlock", &[], store_unlock),
        Verb::method("remote_setup", &[], remote_setup),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::{Value, json};

    use crate::door::{Case, Hooks, respond};

    fn call(dir: &tempfile::TempDir, verb: &str, options: Value) -> Value {
        let ws = dir.path().to_str().unwrap();
        let reply = respond(
            Some(ws),
            verb,
            &options.to_string(),
            Case::Camel,
            &Hooks::default(),
        );
        serde_json::from_str(&reply).unwrap()
    }

    #[test]
    fn the_store_reads_its_refs_and_records_and_says_whether_it_is_clean() {
        let dir = tempfile::tempdir().unwrap();
        let empty = call(&dir, "store_check", json!({}));
        assert_eq!(
            (
                empty["ok"]["records"].as_u64(),
                empty["ok"]["clean"].as_bool()
            ),
            (Some(0), Some(true)),
            "{empty}"
        );
        assert_eq!(empty["ok"]["tempFiles"], json!([]));
        assert_eq!(call(&dir, "refs", json!({}))["ok"], json!([]));
        let change = dir.path().join("openspec/changes/add-auth");
        std::fs::create_dir_all(&change).unwrap();
        std::fs::write(change.join("proposal.md"), "# Why\n").unwrap();
        let approve = json!({"change": "add-auth", "artifact": "proposal", "source": "m"});
        assert!(call(&dir, "approve", approve,)["ok"].is_object());
        let refs = call(&dir, "refs", json!({}));
        let head = &refs["ok"][0];
        assert_eq!(head["name"], "changes/add-auth", "{refs}");
        let history = call(&dir, "history", json!({"reference": "changes/add-auth"}));
        assert_eq!(history["ok"], json!([head["id"]]));
        let record = call(&dir, "storedRecord", json!({"id": head["id"]}));
        assert_eq!(
            record["error"]["code"], "invalid-argument",
            "verbs are snake_case on the wire"
        );
        let record = call(&dir, "stored_record", json!({"id": head["id"]}));
        assert_eq!(record["ok"]["kind"], "state", "{record}");
        assert_eq!(record["ok"]["previous"], Value::Null);
        // The body is the record as stored: its keys are not re-cased.
        assert!(
            record["ok"]["body"]["bindings"][0]["observed_at"].is_string(),
            "{record}"
        );
        assert!(record["ok"]["writtenAt"].is_string());
        let bad = call(&dir, "stored_record", json!({"id": "abc"}));
        assert_eq!(bad["error"]["code"], "bad-record-id");
        let none = call(&dir, "head", json!({"reference": "gates/test"}));
        assert_eq!(none["ok"], Value::Null);
        let checked = call(&dir, "store_check", json!({}));
        assert_eq!(
            (
                checked["ok"]["records"].as_u64(),
                checked["ok"]["clean"].as_bool()
            ),
            (Some(1), Some(true))
        );
        std::fs::write(
            dir.path().join(".ledger/refs/changes/stray"),
            "0".repeat(64),
        )
        .unwrap();
        let dangling = call(&dir, "store_check", json!({}));
        assert_eq!(dangling["ok"]["clean"], false, "{dangling}");
    }

    #[test]
    fn a_git_store_says_where_a_head_came_from_and_refuses_what_it_cannot_do() {
        let dir = tempfile::tempdir().unwrap();
        ledger_testkit::Git::isolated().init(dir.path(), &[]);
        let store = crate::records::Store::open(ledger_testkit::utf8(dir.path())).unwrap();
        let id = store.commit("gates/test", "evidence", None, &1).unwrap();
        let seen = call(&dir, "provenance", json!({"reference": "gates/test"}));
        assert_eq!(seen["ok"]["record"], id.to_string(), "{seen}");
        assert_eq!(seen["ok"]["local"], true);
        assert_eq!(seen["ok"]["signer"], Value::Null);
        assert_eq!(
            call(&dir, "provenance", json!({"reference": "gates/none"}))["ok"],
            Value::Null
        );
        let keep = json!({"reference": "gates/test", "keep": id.to_string()});
        assert_eq!(
            call(&dir, "resolve", keep)["error"]["code"],
            "invalid-argument"
        );
        let bad = json!({"reference": "gates/test", "keep": "xyz"});
        assert_eq!(call(&dir, "resolve", bad)["error"]["code"], "bad-record-id");
        let setup = call(&dir, "remote_setup", json!({}));
        assert_eq!(
            setup["error"]["code"], "invalid-argument",
            "no remote origin: {setup}"
        );
    }
}
