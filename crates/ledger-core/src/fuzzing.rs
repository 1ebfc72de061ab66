//! Fuzz-target bodies, one per `cargo fuzz` target in `fuzz/fuzz_targets/`.
//!
//! Each function takes arbitrary bytes and panics **only** when an invariant of
//! the library is violated. Invalid input is never a reason to panic: the library
//! must answer it with a coded [`Error`]. The same functions replay the kept
//! corpora and regressions in `crates/ledger-core/tests/fuzz_corpus.rs`, so
//! every input the fuzzer found interesting stays a test.
//!
//! Not a stable API: hidden from the documentation and free to change.
#![allow(clippy::panic, clippy::unwrap_used)]

use sha2::{Digest as _, Sha256};

use crate::error::Error;
use crate::expand::scope::Scope;
use crate::openspec::graph::ArtifactGraph;
use crate::path::WorkspacePath;
use crate::records::record::InventoryRecord;
use crate::tasks::normalize::{HashOutput, TasksNormalizer, normalize_tasks, normalize_tasks_with};
use crate::tasks::reader::read_tasks;
use crate::tasks::reference::{reference_normalize, reference_openspec};
use crate::tasks::rule::TaskRule;

/// Every error must render a message and carry a code; rendering must not panic.
fn check_error(e: &Error, allowed: &[&str], what: &str) {
    let message = e.to_string();
    assert!(!message.is_empty(), "{what}: empty error message");
    assert!(
        allowed.contains(&e.code()),
        "{what}: unexpected error code {} ({message})",
        e.code()
    );
}

// ---------------------------------------------------------------------------
// 1. The task-checkbox normalizer.
// ---------------------------------------------------------------------------

/// The streaming digest of `input` under `rule`, fed in chunks whose sizes come
/// from `plan` (cycled): size `(b & 0x1f) + 1`, preceded by an empty chunk when `b & 0x80`.
fn chunked_digest(input: &[u8], plan: &[u8], rule: TaskRule) -> [u8; 32] {
    let mut out = HashOutput::default();
    let mut normalizer = TasksNormalizer::new(rule);
    let mut rest = input;
    let mut step = 0;
    while !rest.is_empty() {
        let b = plan.get(step % plan.len().max(1)).copied().unwrap_or(0);
        step += 1;
        if b & 0x80 != 0 {
            normalizer.update(&[], &mut out);
        }
        let take = (usize::from(b & 0x1f) + 1).min(rest.len());
        let (chunk, tail) = rest.split_at(take);
        normalizer.update(chunk, &mut out);
        rest = tail;
    }
    normalizer.finish(&mut out);
    out.finalize()
}

/// `normalize_tasks` equals the naive whole-buffer reference, only ever turns a
/// line's `x` into a space, and the streaming digest under a chunking derived
/// from the input's first bytes is the SHA-256 of the whole-buffer result.
pub fn normalizer(data: &[u8]) {
    let got = normalize_tasks(data);
    let want = reference_normalize(data);
    assert_eq!(
        got,
        want,
        "normalize_tasks differs from the reference for {:?}",
        String::from_utf8_lossy(data)
    );
    assert_eq!(got.len(), data.len(), "normalization changed the length");
    for (i, (a, b)) in data.iter().zip(&got).enumerate() {
        assert!(
            a == b || (*a == b'x' && *b == b' '),
            "byte {i} changed from {a:#04x} to {b:#04x}"
        );
    }
    let plan = &data[..data.len().min(8)];
    let expected: [u8; 32] = Sha256::digest(&want).into();
    assert_eq!(
        chunked_digest(data, plan, TaskRule::TaskCheckboxV1),
        expected,
        "streaming digest differs for plan {plan:?} on {:?}",
        String::from_utf8_lossy(data)
    );
    // Normalization is idempotent: a rewritten line no longer has the prefix.
    assert_eq!(
        normalize_tasks(&got),
        got,
        "normalization is not idempotent"
    );
}

/// `openspec-checkbox`: the streaming normalization equals the reference, only
/// ever turns an `x`/`X` into a space, is idempotent and chunk-independent;
/// and the task reader agrees with it: the changed lines are exactly the done
/// tasks, and after normalization the same tasks remain, none done.
pub fn openspec_checkbox(data: &[u8]) {
    let rule = TaskRule::OpenspecCheckbox;
    let got = normalize_tasks_with(data, rule);
    let want = reference_openspec(data);
    let shown = || String::from_utf8_lossy(data).into_owned();
    assert_eq!(got, want, "differs from the reference for {:?}", shown());
    assert_eq!(got.len(), data.len(), "normalization changed the length");
    for (i, (a, b)) in data.iter().zip(&got).enumerate() {
        assert!(
            a == b || (matches!(a, b'x' | b'X') && *b == b' '),
            "byte {i} changed from {a:#04x} to {b:#04x}"
        );
    }
    let plan = &data[..data.len().min(8)];
    let expected: [u8; 32] = Sha256::digest(&want).into();
    assert_eq!(
        chunked_digest(data, plan, rule),
        expected,
        "streaming digest differs for plan {plan:?} on {:?}",
        shown()
    );
    assert_eq!(normalize_tasks_with(&got, rule), got, "not idempotent");
    let before = read_tasks(data, rule);
    let changed: Vec<usize> = data
        .split(|&b| b == b'\n')
        .zip(got.split(|&b| b == b'\n'))
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(n, _)| n + 1)
        .collect();
    let done: Vec<usize> = before
        .tasks
        .iter()
        .filter(|t| t.done)
        .map(|t| t.line)
        .collect();
    assert_eq!(changed, done, "rewritten lines are not the done tasks");
    for task in &before.tasks {
        // The text is the lossy reading of the exact bytes, which are kept
        // whenever it is lossy.
        assert_eq!(String::from_utf8_lossy(task.exact_text()), task.text);
        assert_eq!(
            task.text_bytes.is_some(),
            std::str::from_utf8(task.exact_text()).is_err()
        );
    }
    let after = read_tasks(&got, rule);
    assert_eq!((after.total, after.done), (before.total, 0));
}

// ---------------------------------------------------------------------------
// 2. Record and scope JSON.
// ---------------------------------------------------------------------------

/// `InventoryRecord::from_json` and `Scope` parsing + `validate` never panic;
/// what they accept round-trips through serialization unchanged.
pub fn record_json(data: &[u8]) {
    let text = String::from_utf8_lossy(data);

    match InventoryRecord::from_json(&text, "fuzz") {
        Ok(record) => {
            let json = record.to_json();
            let back = InventoryRecord::from_json(&json, "fuzz")
                .unwrap_or_else(|e| panic!("a written record is refused: {e}\n{json}"));
            assert_eq!(back, record, "record changed in a JSON round trip");
            assert_eq!(back.to_json(), json, "record JSON is not stable");
            assert_eq!(
                crate::expand::fingerprint::fingerprint_entries(record.entries.clone()).ok(),
                Some(record.fingerprint),
                "accepted a record whose entries do not give its fingerprint"
            );
        }
        Err(e) => check_error(
            &e,
            &["malformed-record", "unsupported-version"],
            "InventoryRecord::from_json",
        ),
    }

    if let Ok(scope) = serde_json::from_str::<Scope>(&text) {
        let valid = scope.validate();
        let json = serde_json::to_string(&scope).unwrap();
        let back: Scope = serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("a written scope is refused: {e}\n{json}"));
        assert_eq!(back, scope, "scope changed in a JSON round trip");
        assert_eq!(
            back.validate().is_ok(),
            valid.is_ok(),
            "validation changed in a round trip"
        );
        match valid {
            Ok(()) => {
                for root in scope.repositories.iter().chain(&scope.roots) {
                    assert!(
                        root == "." || WorkspacePath::new(root.as_str()).is_ok(),
                        "validated scope holds root {root:?}"
                    );
                }
                for exclusion in &scope.exclusions {
                    assert!(
                        WorkspacePath::new(exclusion.path.as_str()).is_ok(),
                        "validated scope holds exclusion {:?}",
                        exclusion.path
                    );
                }
                let mut with_store = scope.clone();
                with_store.ensure_store_excluded();
                assert!(with_store.validate().is_ok(), "store exclusion is invalid");
                assert!(with_store.is_excluded(".ledger/x"));
            }
            Err(e) => check_error(
                &e,
                &["invalid-path", "outside-workspace"],
                "Scope::validate",
            ),
        }
    }
}

// ---------------------------------------------------------------------------
// 3. Workspace paths.
// ---------------------------------------------------------------------------

/// §2, written out independently of `path.rs`.
fn reference_path_valid(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    !text.is_empty()
        && !text.contains('\0')
        && text
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

/// `WorkspacePath::from_bytes` never panics, accepts exactly the §2 paths, and
/// an accepted path survives text, bytes and JSON unchanged.
pub fn path(data: &[u8]) {
    let result = WorkspacePath::from_bytes(data);
    assert_eq!(
        result.is_ok(),
        reference_path_valid(data),
        "from_bytes disagrees with §2 on {data:?}: {result:?}"
    );
    match result {
        Ok(p) => {
            let s = p.as_str();
            assert_eq!(s.as_bytes(), data, "the path is not the bytes given");
            assert!(!s.is_empty() && !s.contains('\0'));
            assert!(!s.starts_with('/') && !s.ends_with('/'));
            assert!(
                s.split('/').all(|g| !g.is_empty() && g != "." && g != ".."),
                "accepted {s:?}"
            );
            assert_eq!(WorkspacePath::new(s).unwrap(), p);
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(serde_json::from_str::<WorkspacePath>(&json).unwrap(), p);
            assert!(p.is_within(".") && p.is_within(s));
            for parent in p.parents() {
                let parent = WorkspacePath::new(parent).unwrap();
                assert!(p.is_within(parent.as_str()), "{p} not within {parent}");
            }
            assert_eq!(p.as_path().as_str(), s);
        }
        Err(e) => {
            check_error(
                &e,
                &["invalid-path", "outside-workspace", "non-utf8-path"],
                "WorkspacePath::from_bytes",
            );
            assert!(e.path().is_some(), "a path error names no path: {e}");
            if let Ok(text) = std::str::from_utf8(data) {
                assert!(WorkspacePath::new(text).is_err());
                let json = serde_json::to_string(text).unwrap();
                assert!(serde_json::from_str::<WorkspacePath>(&json).is_err());
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 4. Markdown materials.
// ---------------------------------------------------------------------------

/// The documents the destinations are resolved against: at the workspace root
/// (where any `..` escapes) and deep inside a change.
const DOCUMENTS: [&str; 2] = ["design.md", "openspec/changes/x/design.md"];

/// Link extraction (Markdown and HTML) and resolution never panic; every resolved material is a
/// valid workspace path, and a destination without a `..` segment stays in the
/// document's directory.
pub fn markdown(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let design = WorkspacePath::new(DOCUMENTS[0]).unwrap();
    // The only refusal of extraction itself is an HTML `<base href>`.
    let dests = match crate::openspec::materials::link_destinations(&design, &text) {
        Ok(dests) => dests,
        Err(e) => return check_error(&e, &["ambiguous-material"], "materials::link_destinations"),
    };
    for (i, d) in dests.iter().enumerate() {
        assert!(!dests[..i].contains(d), "duplicate destination {d:?}");
    }
    for document in DOCUMENTS {
        let doc = WorkspacePath::new(document).unwrap();
        let dir = doc.parents().last().unwrap_or(".");
        for dest in &dests {
            match crate::openspec::materials::resolve(&doc, dest) {
                Ok(Some(p)) => {
                    let s = p.as_str();
                    assert!(
                        WorkspacePath::new(s).is_ok(),
                        "{dest:?} resolved to invalid {s:?}"
                    );
                    assert!(
                        !s.starts_with("../") && s != "..",
                        "{dest:?} resolved outside the workspace: {s:?}"
                    );
                    let plain = dest.split(['#', '?']).next().unwrap_or_default();
                    let decoded = percent_encoding::percent_decode_str(plain).decode_utf8_lossy();
                    if !decoded.split('/').any(|g| g == "..") {
                        assert!(p.is_within(dir), "{dest:?} in {document} left {dir}: {s:?}");
                    }
                }
                Ok(None) => {}
                Err(e) => check_error(
                    &e,
                    &["ambiguous-material", "outside-workspace", "invalid-path"],
                    "materials::resolve",
                ),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 5. schema.yaml.
// ---------------------------------------------------------------------------

/// `ArtifactGraph::from_schema_yaml` never panics (nor overflows the stack);
/// an accepted graph has unique ids, is in topological order, and rebuilding
/// it from its own artifacts gives the same graph.
pub fn schema_yaml(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let graph = match ArtifactGraph::from_schema_yaml(&text, "fuzz") {
        Ok(graph) => graph,
        Err(e) => {
            check_error(
                &e,
                &["bad-schema", "unknown-artifact", "graph-cycle"],
                "ArtifactGraph::from_schema_yaml",
            );
            return;
        }
    };
    let artifacts = graph.artifacts();
    for (i, a) in artifacts.iter().enumerate() {
        assert!(!a.id.is_empty() && !a.generates.is_empty());
        assert!(
            artifacts[..i].iter().all(|b| b.id != a.id),
            "duplicate id {:?}",
            a.id
        );
        for r in &a.requires {
            assert!(
                artifacts[..i].iter().any(|b| &b.id == r),
                "{:?} requires {r:?}, which does not come earlier",
                a.id
            );
        }
    }
    let rebuilt = ArtifactGraph::new(
        artifacts.to_vec(),
        graph.tracks().map(str::to_owned),
        "fuzz",
    )
    .unwrap_or_else(|e| panic!("an accepted graph is refused when rebuilt: {e}"))
    .with_task_rule(graph.task_rule());
    // The rebuilt graph comes from the same schema text.
    let rebuilt = match graph.schema() {
        Some(schema) => rebuilt.with_schema(schema.clone()),
        None => rebuilt,
    };
    assert_eq!(rebuilt, graph, "topological order is not stable");
    for a in artifacts {
        assert!(graph.artifact(&a.id).is_ok());
        for up in graph.upstream(&a.id) {
            assert!(graph.downstream(up).contains(&a.id.as_str()));
        }
    }
}

// ---------------------------------------------------------------------------
// 6. The digest cache file.
// ---------------------------------------------------------------------------

/// A digest cache file (`.ledger/digest-cache`, written by anyone with the
/// user's account) of any bytes is parsed without a panic; accepted sorted
/// entries ascend and are found through their buckets; the journal ends exactly
/// at its first batch that does not check out, and a key's latest entry wins.
pub fn digest_cache(data: &[u8]) {
    crate::expand::cache::fuzz_cache_file(data);
}

// ---------------------------------------------------------------------------
// 7. The walk memo file.
// ---------------------------------------------------------------------------

/// A walk memo file (`.ledger/walk-memo`, written by anyone with the user's
/// account) of any bytes is decoded without a panic, allocating no more than
/// its bytes could hold; one that checks out encodes back to exactly its bytes.
pub fn walk_memo(data: &[u8]) {
    crate::expand::walk_memo::fuzz_walk_memo(data);
}
