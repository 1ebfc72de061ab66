#![allow(clippy::unwrap_used, clippy::panic)]

use std::fs;

use ledger_testkit::utf8;
use serde_json::{Value, json};

use super::*;

const REF: &str = "changes/add-auth";

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(utf8(dir.path())).unwrap();
    (dir, store)
}

fn code<T: fmt::Debug>(result: Result<T>) -> &'static str {
    result.unwrap_err().code()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

/// A record with a fixed timestamp, so that its bytes are reproducible.
fn fixed(body: Value, previous: Option<&RecordId>) -> StoredRecord<Value> {
    StoredRecord {
        written_at: "2026-01-01T00:00:00.000Z".to_owned(),
        ..StoredRecord::new("state", previous, body)
    }
}

#[test]
fn record_round_trip() {
    let (_dir, store) = store();
    let first = store.write_record("state", None, &json!({"n": 1})).unwrap();
    let id = store
        .write_record("state", Some(&first), &json!({"n": 2}))
        .unwrap();
    let back: StoredRecord<Value> = store.read_record(&id).unwrap();
    assert_eq!(back.format, STORED_RECORD_FORMAT);
    assert_eq!(back.version, STORED_RECORD_VERSION);
    assert_eq!(back.kind, "state");
    assert_eq!(back.previous, Some(first));
    assert_eq!(back.body, json!({"n": 2}));
    assert!(back.written_at.ends_with('Z'), "{}", back.written_at);
    humantime::parse_rfc3339(&back.written_at).unwrap();

    let bytes = fs::read(store.record_path(&id)).unwrap();
    assert_eq!(RecordId::of(&bytes), id);
    assert!(bytes.ends_with(b"}\n"));
    assert!(files_in(&store.tmp_dir()).is_empty());
}

#[test]
fn body_of_another_type_is_malformed_not_corrupt() {
    let (_dir, store) = store();
    let id = store.write_record("state", None, &"text").unwrap();
    assert_eq!(code(store.read_record::<u32>(&id)), "malformed-record");
}

#[test]
fn identical_content_gives_the_same_id_once() {
    let (_dir, store) = store();
    let record = fixed(json!({"same": true}), None);
    let a = store.write_stored(&record).unwrap();
    let b = store.write_stored(&record).unwrap();
    assert_eq!(a, b);
    assert_eq!(files_in(&store.records_dir()), vec![format!("{a}.json")]);
    assert!(files_in(&store.tmp_dir()).is_empty());
}

#[test]
fn an_existing_name_with_other_bytes_is_never_replaced() {
    let (_dir, store) = store();
    let record = fixed(json!({"x": 1}), None);
    let mut bytes = serde_json::to_vec_pretty(&record).unwrap();
    bytes.push(b'\n');
    let id = RecordId::of(&bytes);
    fs::create_dir_all(store.records_dir()).unwrap();
    fs::write(store.record_path(&id), b"edited\n").unwrap();

    assert_eq!(code(store.write_stored(&record)), "corrupt-record");
    assert_eq!(fs::read(store.record_path(&id)).unwrap(), b"edited\n");
    assert!(files_in(&store.tmp_dir()).is_empty());
}

#[test]
fn tampered_record_is_refused_and_listed() {
    let (_dir, store) = store();
    let id = store.commit("changes/a", "state", None, &"ok").unwrap();
    let path = store.record_path(&id);
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("\"ok\"", "\"ko\"");
    fs::write(&path, text).unwrap();

    let err = store.read_record::<Value>(&id).unwrap_err();
    assert_eq!(err.code(), "corrupt-record");
    assert_eq!(err.path(), Some(path.to_str().unwrap()));
    assert!(err.to_string().contains("not to its name"), "{err}");
    assert_eq!(code(store.history("changes/a")), "corrupt-record");

    let report = store.check().unwrap();
    assert_eq!(report.corrupt.len(), 1);
    assert_eq!(report.corrupt[0].file, format!("records/{id}.json"));
    assert_eq!(report.dangling[0].missing, id);
    assert_eq!(report.records, 0);
    assert!(!report.is_clean());
}

#[test]
fn stale_writer_gets_a_conflict_naming_both_records() {
    let (_dir, store) = store();
    let base = store.commit("changes/a", "state", None, &1).unwrap();
    let winner = store.commit("changes/a", "state", Some(&base), &2).unwrap();

    let err = store
        .commit("changes/a", "state", Some(&base), &3)
        .unwrap_err();
    let Error::PointerConflict {
        pointer,
        expected,
        found,
        orphan,
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(err.code(), "pointer-conflict");
    assert_eq!(pointer, "changes/a");
    assert_eq!(expected, &base.to_string());
    assert_eq!(found, &winner.to_string());
    let message = err.to_string();
    for id in [expected, found, orphan] {
        assert!(message.contains(id.as_str()), "{message}");
    }
    assert!(message.contains("orphan"), "{message}");

    assert_eq!(store.head("changes/a").unwrap(), Some(winner));
    let report = store.check().unwrap();
    assert_eq!(
        report.orphan_ids(),
        vec![orphan.parse::<RecordId>().unwrap()]
    );
    assert_eq!(report.records, 3);
    assert!(report.corrupt.is_empty() && report.dangling.is_empty());
}

#[test]
fn creating_a_ref_that_exists_is_a_conflict() {
    let (_dir, store) = store();
    let first = store.commit("gates/test", "evidence", None, &1).unwrap();
    let err = store
        .commit("gates/test", "evidence", None, &2)
        .unwrap_err();
    assert_eq!(err.code(), "pointer-conflict");
    assert!(
        err.to_string().contains("started from record no-record"),
        "{err}"
    );
    assert_eq!(store.head("gates/test").unwrap(), Some(first));
}

#[test]
fn advance_refuses_a_record_that_does_not_follow_expected() {
    let (_dir, store) = store();
    let a = store.commit("r", "state", None, &1).unwrap();
    let b = store.commit("r", "state", Some(&a), &2).unwrap();
    // Written after `a`, but the ref has moved on to `b`: advancing would drop `b`.
    let late = store.write_record("state", Some(&a), &3).unwrap();
    let err = store.advance("r", Some(&b), &late).unwrap_err();
    assert_eq!(err.code(), "chain-mismatch");
    assert_eq!(store.head("r").unwrap(), Some(b));

    let missing: RecordId = "ab".repeat(32).parse().unwrap();
    assert_eq!(code(store.advance("r", Some(&b), &missing)), "unreadable");
    assert_eq!(store.head("r").unwrap(), Some(b));
}

#[test]
fn repeating_a_successful_advance_is_a_no_op() {
    let (_dir, store) = store();
    let a = store.write_record("state", None, &1).unwrap();
    store.advance("r", None, &a).unwrap();
    store.advance("r", None, &a).unwrap();
    assert_eq!(store.history("r").unwrap(), vec![a]);
}

#[test]
fn history_walks_the_chain_newest_first() {
    let (_dir, store) = store();
    let mut ids = Vec::new();
    for n in 0..4 {
        let id = store.commit("changes/x", "state", ids.last(), &n).unwrap();
        ids.push(id);
    }
    ids.reverse();
    assert_eq!(store.history("changes/x").unwrap(), ids);
    assert_eq!(store.history("changes/none").unwrap(), Vec::new());
}

#[test]
fn leftover_temp_files_are_listed() {
    let (_dir, store) = store();
    store.commit("r", "state", None, &1).unwrap();
    assert!(store.check().unwrap().is_clean());
    fs::write(store.tmp_dir().join("record-1-0.tmp"), b"{\"half").unwrap();
    let report = store.check().unwrap();
    assert_eq!(report.temp_files, vec!["record-1-0.tmp".to_owned()]);
    assert!(!report.is_clean());
}

#[test]
fn ref_naming_a_missing_record_is_dangling() {
    let (_dir, store) = store();
    let a = store.commit("chain", "state", None, &1).unwrap();
    store.commit("chain", "state", Some(&a), &2).unwrap();
    let lone = store.commit("lone", "state", None, &3).unwrap();
    fs::remove_file(store.record_path(&a)).unwrap();
    fs::remove_file(store.record_path(&lone)).unwrap();

    assert_eq!(code(store.read_record::<Value>(&lone)), "unreadable");
    assert_eq!(code(store.history("chain")), "unreadable");
    let report = store.check().unwrap();
    let dangling: Vec<_> = report
        .dangling
        .iter()
        .map(|d| (d.reference.as_str(), d.missing))
        .collect();
    assert_eq!(dangling, vec![("chain", a), ("lone", lone)]);
    assert!(report.orphans.is_empty() && report.corrupt.is_empty());
}

#[test]
fn bad_ref_names_are_refused() {
    let (_dir, store) = store();
    let id = store.write_record("state", None, &1).unwrap();
    for name in [
        "", "../x", "a//b", ".hidden", "a/.b", "a/", "/a", "a b", "a\\b", "é",
    ] {
        assert_eq!(code(store.head(name)), "bad-ref-name", "{name:?}");
        assert_eq!(code(store.advance(name, None, &id)), "bad-ref-name");
        assert_eq!(code(store.commit(name, "s", None, &1)), "bad-ref-name");
    }
    for name in ["changes/add-auth", "gates/test", "a.b_c-D9", "x/y/z"] {
        assert_eq!(store.head(name).unwrap(), None, "{name:?}");
    }
    assert!(!store.refs_dir().exists());
}

#[test]
fn refs_are_listed_by_name_and_corrupt_refs_reported() {
    let (_dir, store) = store();
    let b = store.commit("gates/test", "evidence", None, &1).unwrap();
    let a = store.commit("changes/add-auth", "state", None, &2).unwrap();
    assert_eq!(
        store.refs().unwrap(),
        vec![
            ("changes/add-auth".to_owned(), a),
            ("gates/test".to_owned(), b)
        ]
    );

    fs::write(store.refs_dir().join("gates/test"), format!("{b}")).unwrap();
    assert_eq!(code(store.head("gates/test")), "corrupt-record");
    assert_eq!(code(store.refs()), "corrupt-record");
    let report = store.check().unwrap();
    assert_eq!(report.corrupt[0].file, "refs/gates/test");
    // With its ref unreadable, `b` is reachable from nothing.
    assert_eq!(report.orphan_ids(), vec![b]);
}

#[test]
fn absent_store_is_empty_and_clean_and_stays_absent() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(utf8(dir.path())).unwrap();
    assert_eq!(store.root(), dir.path().join(".ledger"));
    assert_eq!(store.head("changes/a").unwrap(), None);
    assert_eq!(store.refs().unwrap(), Vec::new());
    assert_eq!(store.history("changes/a").unwrap(), Vec::new());
    let report = store.check().unwrap();
    assert!(report.is_clean());
    assert_eq!(report, StoreReport::default());
    assert!(!store.root().exists());
}

#[test]
fn files_are_never_group_or_world_writable() {
    let (_dir, store) = store();
    store.commit("changes/a", "state", None, &1).unwrap();
    let id = store.head("changes/a").unwrap().unwrap();
    for path in [
        store.record_path(&id),
        store.ref_path("changes/a"),
        store.dir().join("lock"),
        store.dir().join(".gitignore"),
        store.records_dir(),
        store.refs_dir().join("changes"),
    ] {
        let mode = crate::platform::mode(&fs::metadata(&path).unwrap());
        assert_eq!(mode & 0o022, 0, "{path:?} {mode:o}");
        assert_ne!(mode & 0o400, 0, "{path:?} {mode:o}");
    }
}

#[test]
fn record_ids_parse_strictly_and_serialize_as_hex() {
    let hex = "0f".repeat(32);
    let id: RecordId = hex.parse().unwrap();
    assert_eq!(id.to_string(), hex);
    assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{hex}\""));
    let back: RecordId = serde_json::from_str(&format!("\"{hex}\"")).unwrap();
    assert_eq!(back, id);
    for bad in [
        hex.to_uppercase(),
        hex[1..].to_owned(),
        format!("sha256:{hex}"),
        format!("{hex}\n"),
        String::new(),
    ] {
        assert_eq!(code(bad.parse::<RecordId>()), "bad-record-id", "{bad:?}");
    }
    assert!(serde_json::from_str::<RecordId>("\"xyz\"").is_err());
}

#[test]
fn unsupported_version_is_not_called_corrupt() {
    let (_dir, store) = store();
    let record = StoredRecord {
        version: "2.0".to_owned(),
        ..fixed(json!(1), None)
    };
    let id = store.write_stored(&record).unwrap();
    assert_eq!(code(store.read_record::<Value>(&id)), "unsupported-version");
}

/// A write whose head moved asks `rebase` for its body on the head that
/// landed and is recorded after it, leaving no orphan; a write that depends
/// on what landed (`rebase` says `None`) is `pointer-conflict`, its record
/// an orphan as ever.
#[test]
fn a_write_rebased_on_what_landed_leaves_no_orphan() {
    let (_dir, store) = store();
    let first = store.commit(REF, "state", None, &"a").unwrap();
    let second = store.commit(REF, "state", Some(&first), &"b").unwrap();
    let mut asked = Vec::new();
    let third = store
        .commit_or_rebase(REF, "state", Some(&first), &"c", &mut |head| {
            asked.push(head.copied());
            Ok(Some("c after b"))
        })
        .unwrap();
    assert_eq!(asked, [Some(second)]);
    assert_eq!(store.history(REF).unwrap(), [third, second, first]);
    let body: StoredRecord<String> = store.read_record(&third).unwrap();
    assert_eq!(body.body, "c after b");
    assert!(store.check().unwrap().orphans.is_empty());
    let refused = store.commit_or_rebase(REF, "state", Some(&first), &"d", &mut |_| Ok(None));
    assert_eq!(code(refused), "pointer-conflict");
    assert_eq!(store.check().unwrap().orphans.len(), 1);
    assert_eq!(store.head(REF).unwrap(), Some(third));
}

/// What a refused write left is listed with what it was, and a recorded
/// decision ends it: discarded (nothing deleted) or kept on top of its ref.
#[test]
fn an_orphan_is_listed_with_what_it_was_and_a_decision_ends_it() {
    let (_dir, store) = store();
    let first = store.commit(REF, "state", None, &"a").unwrap();
    let second = store.commit(REF, "state", Some(&first), &"b").unwrap();
    let conflict = store.commit(REF, "state", Some(&first), &"mine");
    assert_eq!(code(conflict), "pointer-conflict");
    let listed = store.check().unwrap().orphans;
    assert_eq!(listed.len(), 1);
    let orphan = listed[0].clone();
    assert_eq!(
        (
            orphan.kind.as_str(),
            orphan.follows,
            orphan.reference.as_deref()
        ),
        ("state", Some(first), Some(REF))
    );
    let refused = store.decide_orphan(&second, OrphanChoice::Discard, "not one");
    assert_eq!(code(refused), "invalid-argument");
    let no_reason = store.decide_orphan(&orphan.id, OrphanChoice::Keep, " ");
    assert_eq!(code(no_reason), "invalid-argument");

    let kept = store
        .decide_orphan(&orphan.id, OrphanChoice::Keep, "mine is right")
        .unwrap();
    let on_top = kept.kept_as.unwrap();
    assert_eq!(store.head(REF).unwrap(), Some(on_top));
    let body: StoredRecord<String> = store.read_record(&on_top).unwrap();
    assert_eq!((body.body.as_str(), body.previous), ("mine", Some(second)));
    let report = store.check().unwrap();
    assert!(report.is_clean(), "{report:?}");
    assert!(
        store.read_record::<String>(&orphan.id).is_ok(),
        "nothing is deleted"
    );

    let again = store.commit(REF, "state", Some(&second), &"late");
    assert_eq!(code(again), "pointer-conflict");
    let late = store.check().unwrap().orphans[0].id;
    let discarded = store
        .decide_orphan(&late, OrphanChoice::Discard, "superseded")
        .unwrap();
    assert_eq!(discarded.kept_as, None);
    assert!(store.check().unwrap().is_clean());
    assert_eq!(store.head(REF).unwrap(), Some(on_top));
    assert_eq!(store.history(DECISIONS).unwrap().len(), 2);
}
