//! The change lifecycle on an OpenSpec-shaped change in a temp Git repository:
//! handoff writes, a validation PASS, and the finalization check after an
//! archive move made by hand (the real OpenSpec CLI drives the same flow in
//! crates/ledger-cli/tests/openspec_cli.rs).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::collections::BTreeMap;
use std::path::Path;

use ledger_core::{
    approval::{
        Absence, Check, StatePatch, TaskIds, ValidationVerdict, advance_state, approve, state_log,
    },
    expand::{Inventory, Scope},
    gate::{Echo, GateSpec, run_gate},
    lifecycle::{
        Finalization, ValidationRequest, check_validation, finalize_check, record_validation,
    },
    openspec::{ArtifactGraph, ChangeSet},
    records::Store,
};
use ledger_testkit::{Git, utf8};

const DIR: &str = "openspec/changes/add-auth";
const ARCHIVE: &str = "openspec/changes/archive/2026-12-01-add-auth";
const TASKS: &str = "## 1. Core\n- [ ] 1.1 [core] Add login\n- [ ] 1.2 [core] Add tokens\n";

const AUTH_DELTA: &str = "## ADDED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- **WHEN** a user logs in\n- **THEN** it works\n";
const AUTH_BASELINE: &str = "# auth Specification\n\n## Purpose\nSigning in.\n\n## Requirements\n\n### Requirement: Logout\nThe system SHALL log users out.\n\n#### Scenario: out\n- x\n";
/// What `openspec archive` writes from the two above.
const AUTH_SYNCED: &str = "# auth Specification\n\n## Purpose\nSigning in.\n\n## Requirements\n\n### Requirement: Logout\nThe system SHALL log users out.\n\n#### Scenario: out\n- x\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- **WHEN** a user logs in\n- **THEN** it works\n";
const TOKENS_DELTA: &str = "## ADDED Requirements\n\n### Requirement: Tokens\nThe system SHALL issue tokens.\n\n#### Scenario: t\n- y\n";
/// A new capability's skeleton with the added requirement.
const TOKENS_SYNCED: &str = "# api/tokens Specification\n\n## Purpose\nTBD - created by archiving change add-auth. Update Purpose after archive.\n\n## Requirements\n\n### Requirement: Tokens\nThe system SHALL issue tokens.\n\n#### Scenario: t\n- y\n";

struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Self {
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
        };
        Git::isolated().run(repo.path(), &["init", "-q"]);
        repo.write(
            &format!("{DIR}/proposal.md"),
            "# Why\nUsers need to log in.\n",
        );
        repo.write(&format!("{DIR}/design.md"), "# Design\nCookies.\n");
        repo.write(&format!("{DIR}/specs/auth/spec.md"), AUTH_DELTA);
        repo.write(&format!("{DIR}/specs/api/tokens/spec.md"), TOKENS_DELTA);
        repo.write(&format!("{DIR}/tasks.md"), TASKS);
        repo.write("openspec/specs/auth/spec.md", AUTH_BASELINE);
        repo.write("openspec/specs/billing/spec.md", "# billing\n");
        repo.write("src/lib.rs", "pub fn login() {}\n");
        repo.write("README.md", "# product\n");
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn store(&self) -> Store {
        Store::open(utf8(self.path())).unwrap()
    }

    fn change(&self) -> ChangeSet {
        ChangeSet::new(utf8(self.path()), "add-auth", ArtifactGraph::spec_driven()).unwrap()
    }

    fn approve_all(&self) {
        for a in ["proposal", "specs", "design", "tasks"] {
            approve(
                &self.store(),
                &self.change(),
                a,
                "review 1",
                Absence::Refuse,
            )
            .unwrap();
        }
    }

    /// A passing gate over `src/`.
    fn run_gate(&self) {
        let mut scope = Scope::new(utf8(self.path()));
        scope.add_root("src").unwrap();
        let argv = vec!["cat".to_owned(), "src/lib.rs".to_owned()];
        let spec = GateSpec::new("test", argv, ".", scope, BTreeMap::new()).unwrap();
        let ran = run_gate(&self.store(), &spec, Echo::Off).unwrap();
        assert!(ran.evidence.passed());
    }

    fn request(&self) -> ValidationRequest {
        let mut request = ValidationRequest::new(ValidationVerdict::Pass, "review 2");
        request.roots.push("src".to_owned());
        request.gate(utf8(self.path()), "test");
        request
    }

    /// OpenSpec's `archive`, by hand: the directory moved, the deltas synced.
    fn archive(&self) {
        let to = self.path().join(ARCHIVE);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::rename(self.path().join(DIR), to).unwrap();
        self.write("openspec/specs/auth/spec.md", AUTH_SYNCED);
        self.write("openspec/specs/api/tokens/spec.md", TOKENS_SYNCED);
        self.write(&format!("{ARCHIVE}/completion-evidence.md"), "# Done\n");
        self.write("docs/registry.md", "add-auth: done\n");
    }

    fn finalize(&self) -> Finalization {
        let expected = ["docs/registry.md".to_owned()];
        finalize_check(&self.store(), &self.change(), &expected).unwrap()
    }
}

fn paths(changes: &[ledger_core::records::Change]) -> Vec<String> {
    changes
        .iter()
        .map(|c| format!("{} {}", c.change.as_str(), c.path()))
        .collect()
}

#[test]
fn handoff_writes_patch_only_the_named_fields_and_default_the_task_ids() {
    let repo = Repo::new();
    repo.approve_all();
    let patch = StatePatch {
        role: Some("implementation".into()),
        outcome: Some("tasks approved".into()),
        areas: Some(vec!["web".into(), "api".into(), "web".into()]),
        checks: vec![Check {
            name: "make test".into(),
            result: "not run".into(),
        }],
        blockers: vec!["waiting for the API key".into()],
        next: Some("validation".into()),
        ..StatePatch::default()
    };
    let (first, envelope) = advance_state(&repo.store(), &repo.change(), &patch, None).unwrap();
    assert_eq!(envelope.bindings.len(), 4, "the approvals stay");
    assert_eq!(envelope.affected_areas, ["web", "api"]);
    assert_eq!(envelope.tasks_completed, Vec::<String>::new());
    assert_eq!(envelope.tasks_remaining, ["1.1", "1.2"]);

    // Progress: the ids follow the file; a check is replaced by name.
    repo.write(
        &format!("{DIR}/tasks.md"),
        &TASKS.replace("- [ ] 1.1", "- [x] 1.1"),
    );
    let tick = StatePatch {
        checks: vec![Check {
            name: "make test".into(),
            result: "PASS (12 tests)".into(),
        }],
        clear_blockers: true,
        ..StatePatch::default()
    };
    let (second, envelope) =
        advance_state(&repo.store(), &repo.change(), &tick, Some(&first.into())).unwrap();
    assert_eq!(envelope.role, "implementation");
    assert_eq!(envelope.tasks_completed, ["1.1"]);
    assert_eq!(envelope.tasks_remaining, ["1.2"]);
    assert_eq!(envelope.checks.len(), 1);
    assert_eq!(envelope.checks[0].result, "PASS (12 tests)");
    assert!(envelope.blockers.is_empty());
    assert_eq!(envelope.next_outcome.as_deref(), Some("validation"));

    // A writer that started from the first record is refused, naming both.
    let stale =
        advance_state(&repo.store(), &repo.change(), &tick, Some(&first.into())).unwrap_err();
    assert_eq!(stale.code(), "pointer-conflict");
    let message = stale.to_string();
    assert!(message.contains(&first.to_string()) && message.contains(&second.to_string()));

    // Explicit ids that contradict the file win only with a reason.
    let mut given = StatePatch {
        tasks: TaskIds::Given {
            completed: vec!["1.1".into(), "1.2".into()],
            remaining: vec![],
            reason: None,
        },
        ..StatePatch::default()
    };
    let refused = advance_state(&repo.store(), &repo.change(), &given, None).unwrap_err();
    assert_eq!(refused.code(), "invalid-argument", "{refused}");
    if let TaskIds::Given { reason, .. } = &mut given.tasks {
        *reason = Some("ticked upstream".into());
    }
    let (_, envelope) = advance_state(&repo.store(), &repo.change(), &given, None).unwrap();
    assert_eq!(envelope.tasks_completed, ["1.1", "1.2"]);

    // An approval after the handoff keeps it.
    approve(
        &repo.store(),
        &repo.change(),
        "tasks",
        "review 3",
        Absence::Refuse,
    )
    .unwrap();
    let log = state_log(&repo.store(), "add-auth").unwrap();
    assert_eq!(log.len(), 4 + 3 + 1);
    assert_eq!(log[0].changes[0].field, "bindings");
    assert_eq!(log[0].changes[0].summary, "approved tasks again");
    assert_eq!(log[1].changes[0].field, "tasks_completed");
    let fields: Vec<&str> = log[3].changes.iter().map(|c| c.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "role",
            "outcome",
            "affected_areas",
            "tasks_remaining",
            "checks",
            "blockers",
            "next_outcome"
        ]
    );
    assert_eq!(log[3].changes[0].summary, "(none) -> implementation");
    assert_eq!(log[7].changes[0].summary, "approved proposal");

    let empty = StatePatch {
        role: Some(" ".into()),
        ..StatePatch::default()
    };
    let err = advance_state(&repo.store(), &repo.change(), &empty, None).unwrap_err();
    assert_eq!(err.code(), "invalid-argument");
    let ghost = ChangeSet::new(utf8(repo.path()), "ghost", ArtifactGraph::spec_driven()).unwrap();
    let err = advance_state(&repo.store(), &ghost, &StatePatch::default(), None).unwrap_err();
    assert_eq!(err.code(), "unknown-change");
}

#[test]
fn a_pass_needs_standing_approvals_and_fresh_gates() {
    let repo = Repo::new();
    let refused = record_validation(&repo.store(), &repo.change(), &repo.request()).unwrap_err();
    assert_eq!(refused.code(), "validation-refused");
    let message = refused.to_string();
    assert!(
        message.contains("artifact proposal is unbound"),
        "{message}"
    );
    assert!(
        message.contains("gate test is stale (no evidence"),
        "{message}"
    );

    repo.approve_all();
    repo.run_gate();
    let (record, envelope) =
        record_validation(&repo.store(), &repo.change(), &repo.request()).unwrap();
    let validation = envelope.validation.as_ref().unwrap();
    assert_eq!(validation.verdict, ValidationVerdict::Pass);
    assert_eq!(validation.capabilities, ["api/tokens", "auth"]);
    assert_eq!(validation.gates[0].gate, "test");
    assert!(validation.gates[0].record.is_some());
    assert_eq!(envelope.bindings.len(), 4);
    let scope = &validation.inventory.scope;
    assert_eq!(
        scope.roots(),
        [
            DIR,
            "openspec/specs/api/tokens",
            "openspec/specs/auth",
            "src"
        ]
    );
    assert!(scope.tasks().is_empty(), "the PASS hashes Tasks raw");
    let excluded: Vec<&str> = scope.exclusions().iter().map(|e| e.path.as_str()).collect();
    assert_eq!(
        excluded,
        [
            ".ledger",
            "openspec/changes/add-auth/completion-evidence.md"
        ]
    );
    let listed: Vec<&str> = validation
        .inventory
        .entries
        .iter()
        .map(|e| e.path.as_str())
        .collect();
    assert!(listed.contains(&"openspec/changes/add-auth/tasks.md"));
    assert!(!listed.contains(&"README.md") && !listed.contains(&"openspec/specs/billing/spec.md"));

    let check = check_validation(&repo.store(), &repo.change()).unwrap();
    assert!(check.stands && check.comparison.matches, "{check:?}");
    assert_eq!(check.record, record);
    assert!(check.gates[0].fresh);

    // Ticking a task is progress for approvals, but the PASS hashed Tasks raw.
    repo.write(
        &format!("{DIR}/tasks.md"),
        &TASKS.replace("- [ ] 1.1", "- [x] 1.1"),
    );
    let check = check_validation(&repo.store(), &repo.change()).unwrap();
    assert!(!check.stands);
    assert_eq!(
        paths(&check.comparison.changes),
        ["content-changed openspec/changes/add-auth/tasks.md"]
    );
    repo.write(&format!("{DIR}/tasks.md"), TASKS);
    // A delivery file changes: the gate and the PASS fall.
    repo.write("src/lib.rs", "pub fn login() { todo!() }\n");
    let check = check_validation(&repo.store(), &repo.change()).unwrap();
    assert!(!check.stands && !check.gates[0].fresh);
    repo.write("src/lib.rs", "pub fn login() {}\n");
    assert!(
        check_validation(&repo.store(), &repo.change())
            .unwrap()
            .stands
    );

    // A FAIL is recorded without the preconditions, and is never finalized.
    repo.write(&format!("{DIR}/proposal.md"), "# Why not\n");
    let mut fail = repo.request();
    fail.verdict = ValidationVerdict::Fail;
    record_validation(&repo.store(), &repo.change(), &fail).unwrap();
    assert!(
        !check_validation(&repo.store(), &repo.change())
            .unwrap()
            .stands
    );
    let err = finalize_check(&repo.store(), &repo.change(), &[]).unwrap_err();
    assert_eq!(err.code(), "not-validated");
}

fn validated() -> Repo {
    let repo = Repo::new();
    repo.approve_all();
    repo.run_gate();
    record_validation(&repo.store(), &repo.change(), &repo.request()).unwrap();
    repo
}

#[test]
fn finalization_lists_the_expected_completion_outputs() {
    let repo = validated();
    let before = repo.finalize();
    assert!(before.clean && before.archive_move.is_none() && before.spec_sync.is_empty());
    let made_before = repo.change();
    repo.archive();
    let done = repo.finalize();
    let expected = ["docs/registry.md".to_owned()];
    let stale_set = finalize_check(&repo.store(), &made_before, &expected).unwrap();
    assert_eq!(
        stale_set, done,
        "the change is located when checked, not when the set was made"
    );
    assert!(done.clean, "{:?}", done.new_changes);
    let moved = done.archive_move.as_ref().unwrap();
    assert_eq!((moved.from.as_str(), moved.to.as_str()), (DIR, ARCHIVE));
    assert_eq!(moved.files.len(), 5);
    assert_eq!(moved.files[0].to.as_str(), format!("{ARCHIVE}/design.md"));
    assert_eq!(
        paths(&done.spec_sync),
        [
            "added openspec/specs/api/tokens/spec.md",
            "content-changed openspec/specs/auth/spec.md"
        ]
    );
    assert_eq!(
        paths(&done.completion_evidence),
        [format!("added {ARCHIVE}/completion-evidence.md")]
    );
    assert_eq!(paths(&done.registry), ["added docs/registry.md"]);
    // A retry reads the same envelope and gives the same answer.
    assert_eq!(repo.finalize(), done);
}

#[test]
fn anything_else_after_validation_is_a_new_change() {
    let repo = validated();
    repo.archive();
    repo.write("src/lib.rs", "pub fn login() { unimplemented!() }\n");
    repo.write(&format!("{ARCHIVE}/design.md"), "# Design\nTokens.\n");
    repo.write(&format!("{ARCHIVE}/notes.md"), "late notes\n");
    repo.write(
        "openspec/specs/billing/spec.md",
        "# billing, synced by mistake\n",
    );
    repo.write("openspec/specs/other/spec.md", "# other\n");
    // Outside every validated root and completion output: not ledger's to judge.
    repo.write("docs/unnamed.md", "not a registry anyone named\n");
    let done = repo.finalize();
    assert!(!done.clean);
    assert_eq!(
        paths(&done.new_changes),
        [
            format!("content-changed {ARCHIVE}/design.md"),
            format!("added {ARCHIVE}/notes.md"),
            "content-changed openspec/specs/billing/spec.md".to_owned(),
            "added openspec/specs/other/spec.md".to_owned(),
            "content-changed src/lib.rs".to_owned(),
        ]
    );
    assert_eq!(
        done.archive_move.unwrap().files.len(),
        4,
        "design.md did not move intact"
    );
    assert_eq!(done.spec_sync.len(), 2);
}

#[test]
fn a_copy_into_the_archive_while_the_change_stays_is_a_new_change() {
    let repo = validated();
    let to = repo.path().join(ARCHIVE);
    std::fs::create_dir_all(&to).unwrap();
    for file in ["proposal.md", "design.md", "tasks.md"] {
        std::fs::copy(repo.path().join(DIR).join(file), to.join(file)).unwrap();
    }
    repo.write(&format!("{ARCHIVE}/design.md"), "# Design\nTampered.\n");
    let done = repo.finalize();
    assert!(!done.clean);
    assert!(done.archive_move.is_none());
    assert_eq!(
        paths(&done.new_changes),
        [
            format!("added {ARCHIVE}/design.md"),
            format!("added {ARCHIVE}/proposal.md"),
            format!("added {ARCHIVE}/tasks.md"),
        ]
    );
}

#[test]
fn an_earlier_archive_of_the_same_name_is_not_the_move() {
    let repo = Repo::new();
    let earlier = "openspec/changes/archive/2025-01-01-add-auth";
    repo.write(&format!("{earlier}/proposal.md"), "# An older add-auth\n");
    repo.approve_all();
    repo.run_gate();
    record_validation(&repo.store(), &repo.change(), &repo.request()).unwrap();
    repo.archive();
    let done = repo.finalize();
    assert!(done.clean, "{:?}", done.new_changes);
    assert_eq!(done.archive_move.unwrap().to, ARCHIVE);
}

#[test]
fn a_spec_sync_is_the_spec_file_of_a_touched_capability_only() {
    let repo = validated();
    repo.archive();
    // Below a touched capability, but another file and a nested capability.
    repo.write("openspec/specs/auth/run.sh", "echo\n");
    repo.write("openspec/specs/auth/sub/spec.md", "# sub\n");
    let done = repo.finalize();
    assert_eq!(
        paths(&done.new_changes),
        [
            "added openspec/specs/auth/run.sh",
            "added openspec/specs/auth/sub/spec.md"
        ]
    );
}

#[test]
fn a_pass_keeps_what_it_must_hold_whatever_is_excluded() {
    let repo = Repo::new();
    repo.approve_all();
    repo.run_gate();
    repo.write(&format!("{DIR}/notes/log.md"), "phase log\n");
    for (exclusion, phase) in [
        ("openspec/specs", true),
        ("openspec/specs/auth", false),
        (&format!("{DIR}/design.md") as &str, true),
        (DIR, false),
        (&format!("{DIR}/notes") as &str, true),
        (&format!("{DIR}/notes") as &str, false),
        (".agents", false),
    ] {
        let mut request = repo.request();
        if phase {
            request.phase_records.push(exclusion.to_owned());
        } else {
            request
                .exclusions
                .push((exclusion.to_owned(), Some("why".to_owned())));
        }
        let err = record_validation(&repo.store(), &repo.change(), &request).unwrap_err();
        assert_eq!(err.code(), "invalid-argument", "{exclusion}: {err}");
        assert!(err.to_string().contains(exclusion), "{err}");
    }
    // One phase record file inside the change directory is fine.
    let mut request = repo.request();
    request.phase_records.push(format!("{DIR}/notes/log.md"));
    record_validation(&repo.store(), &repo.change(), &request).unwrap();
}

#[test]
fn a_gate_run_again_since_the_verdict_no_longer_backs_it() {
    let repo = validated();
    assert!(
        check_validation(&repo.store(), &repo.change())
            .unwrap()
            .stands
    );
    // The same gate, over another scope: fresh, but not what the verdict relied on.
    let mut scope = Scope::new(utf8(repo.path()));
    scope.add_root("README.md").unwrap();
    let argv = vec!["true".to_owned()];
    let spec = GateSpec::new("test", argv, ".", scope, BTreeMap::new()).unwrap();
    run_gate(&repo.store(), &spec, Echo::Off).unwrap();
    let check = check_validation(&repo.store(), &repo.change()).unwrap();
    assert!(!check.stands);
    assert!(check.gates[0].rerun && check.gates[0].fresh);
}

#[test]
fn a_forged_pass_inventory_is_a_malformed_record() {
    let repo = validated();
    let store = repo.store();
    let (_, envelope) = ledger_core::approval::current_state(&store, "add-auth").unwrap();
    let forge = |edit: &dyn Fn(&mut ledger_core::approval::Validation)| {
        let mut forged = envelope.clone();
        edit(forged.validation.as_mut().unwrap());
        let now = store.head("changes/add-auth").unwrap();
        store
            .commit("changes/add-auth", "state", now.as_ref(), &forged)
            .unwrap();
        let err = check_validation(&store, &repo.change()).unwrap_err();
        assert_eq!(err.code(), "malformed-record", "{err}");
        let err = repo_finalize_err(&repo);
        assert_eq!(err.code(), "malformed-record", "{err}");
        // Put the real one back for the next forgery.
        let now = store.head("changes/add-auth").unwrap();
        store
            .commit("changes/add-auth", "state", now.as_ref(), &envelope)
            .unwrap();
    };
    forge(&|v| {
        v.fingerprint = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
            .parse()
            .unwrap()
    });
    forge(&|v| v.inventory.entries.reverse());
}

fn repo_finalize_err(repo: &Repo) -> ledger_core::Error {
    finalize_check(&repo.store(), &repo.change(), &[]).unwrap_err()
}

#[test]
fn a_baseline_that_is_not_the_approved_delta_applied_is_a_new_change() {
    let repo = validated();
    repo.archive();
    // Unrelated text where the sync belongs; the other capability is right.
    repo.write("openspec/specs/auth/spec.md", "# auth\n\nanything at all\n");
    let done = repo.finalize();
    assert!(!done.clean);
    assert_eq!(
        paths(&done.new_changes),
        ["content-changed openspec/specs/auth/spec.md"]
    );
    assert_eq!(
        paths(&done.spec_sync),
        ["added openspec/specs/api/tokens/spec.md"]
    );
    let m = &done.spec_mismatches[..];
    assert_eq!(m.len(), 1);
    assert_eq!(
        (m[0].capability.as_str(), m[0].path.as_str()),
        ("auth", "openspec/specs/auth/spec.md")
    );
    assert_eq!(
        m[0].headers,
        [
            "### Requirement: Logout",
            "### Requirement: Login",
            "(outside the requirement blocks)"
        ]
    );
    // One requirement edited: only its header is named.
    repo.write(
        "openspec/specs/auth/spec.md",
        &AUTH_SYNCED.replace("log users in", "log anyone in"),
    );
    let done = repo.finalize();
    assert_eq!(done.spec_mismatches[0].headers, ["### Requirement: Login"]);
    // Not synced at all after the archive: the sync is missing.
    repo.write("openspec/specs/auth/spec.md", AUTH_BASELINE);
    let done = repo.finalize();
    assert!(!done.clean && done.new_changes.is_empty());
    assert_eq!(done.spec_mismatches[0].headers, ["### Requirement: Login"]);
    assert!(done.sync_unverified.is_empty());
}

#[test]
fn a_sync_ledger_cannot_reproduce_is_unverified_never_clean() {
    let repo = Repo::new();
    // A delta without any operation: OpenSpec's archive aborts on it.
    repo.write(&format!("{DIR}/specs/auth/spec.md"), "## ADDED Tokens\n");
    repo.approve_all();
    repo.run_gate();
    record_validation(&repo.store(), &repo.change(), &repo.request()).unwrap();
    assert!(repo.finalize().clean, "nothing is archived yet");
    repo.archive();
    let done = repo.finalize();
    assert!(!done.clean);
    assert!(done.new_changes.is_empty() && done.spec_mismatches.is_empty());
    let capabilities: Vec<&str> = done
        .sync_unverified
        .iter()
        .map(|u| u.capability.as_str())
        .collect();
    assert_eq!(capabilities, ["api/tokens", "auth"]);
    assert!(
        done.sync_unverified[1]
            .reason
            .contains("no ADDED/MODIFIED/REMOVED/RENAMED"),
        "{:?}",
        done.sync_unverified
    );
    assert!(
        done.sync_unverified[0]
            .reason
            .contains("all capabilities or none")
    );
}

#[test]
fn a_pass_names_its_delivery_or_records_why_there_is_none() {
    let repo = Repo::new();
    repo.approve_all();
    repo.run_gate();
    let mut request = repo.request();
    request.roots.clear();
    let err = record_validation(&repo.store(), &repo.change(), &request).unwrap_err();
    assert_eq!(err.code(), "no-delivery", "{err}");
    assert!(
        ledger_core::approval::current_state(&repo.store(), "add-auth")
            .unwrap()
            .1
            .validation
            .is_none()
    );
    // A declaration needs a reason, and contradicts delivery inputs.
    request.no_delivery = Some(" ".to_owned());
    let err = record_validation(&repo.store(), &repo.change(), &request).unwrap_err();
    assert_eq!(err.code(), "invalid-argument", "{err}");
    let mut both = repo.request();
    both.no_delivery = Some("planning only".to_owned());
    let err = record_validation(&repo.store(), &repo.change(), &both).unwrap_err();
    assert_eq!(err.code(), "invalid-argument", "{err}");

    request.no_delivery = Some("a planning-only change".to_owned());
    let (_, envelope) = record_validation(&repo.store(), &repo.change(), &request).unwrap();
    let validation = envelope.validation.unwrap();
    assert_eq!(
        validation.no_delivery.as_deref(),
        Some("a planning-only change")
    );
    assert!(
        !validation
            .inventory
            .scope
            .roots()
            .contains(&"src".to_owned())
    );
    let check = check_validation(&repo.store(), &repo.change()).unwrap();
    assert!(check.stands, "{check:?}");
    assert_eq!(check.no_delivery.as_deref(), Some("a planning-only change"));
    // A FAIL is a finding: it needs no delivery inputs.
    let mut fail = ValidationRequest::new(ValidationVerdict::Fail, "review 3");
    fail.gate(utf8(repo.path()), "test");
    record_validation(&repo.store(), &repo.change(), &fail).unwrap();
}

#[test]
fn nothing_the_pass_must_hold_is_excluded_under_any_spelling() {
    let repo = Repo::new();
    repo.write(&format!("{DIR}/.openspec.yaml"), "schema: spec-driven\n");
    repo.write(&format!("{DIR}/specs/auth/notes.md"), "notes\n");
    repo.write("src/generated/out.rs", "// generated\n");
    repo.approve_all();
    repo.run_gate();
    let refused: &[(&str, bool, &str)] = &[
        ("openspec/specs/auth/spec.md", false, "invalid-argument"),
        ("openspec/specs/auth/spec.md", true, "invalid-argument"),
        ("./openspec/specs/auth/spec.md", false, "invalid-argument"),
        ("openspec/specs/auth/spec.md/", true, "invalid-argument"),
        ("openspec/specs/auth/", false, "invalid-argument"),
        (
            "openspec/specs/api/tokens/spec.md",
            false,
            "invalid-argument",
        ),
        ("OpenSpec/Specs/Auth/spec.md", false, "invalid-argument"),
        ("openspec//specs/auth/spec.md", false, "invalid-path"),
        (
            "openspec/x/../specs/auth/spec.md",
            false,
            "outside-workspace",
        ),
        (
            "openspec/changes/add-auth/.openspec.yaml",
            true,
            "invalid-argument",
        ),
        (
            "./openspec/changes/add-auth/tasks.md",
            true,
            "invalid-argument",
        ),
        (
            "openspec/changes/add-auth/TASKS.md",
            true,
            "invalid-argument",
        ),
        (
            "openspec/changes/add-auth/specs/auth/notes.md",
            true,
            "invalid-argument",
        ),
        (
            "openspec/changes/add-auth/specs/new/spec.md",
            true,
            "invalid-argument",
        ),
        (
            "openspec/changes/add-auth/.openspec.yaml",
            false,
            "invalid-argument",
        ),
        ("./.agents/", false, "invalid-argument"),
    ];
    for (path, phase, code) in refused {
        let mut request = repo.request();
        if *phase {
            request.phase_records.push((*path).to_owned());
        } else {
            request.exclusions.push(((*path).to_owned(), None));
        }
        let err = record_validation(&repo.store(), &repo.change(), &request).unwrap_err();
        assert_eq!(err.code(), *code, "{path} (phase record: {phase}): {err}");
    }
    assert!(
        ledger_core::approval::current_state(&repo.store(), "add-auth")
            .unwrap()
            .1
            .validation
            .is_none()
    );
    // What the PASS holds when a delivery subtree is excluded in another spelling.
    let mut request = repo.request();
    request
        .exclusions
        .push(("./src/generated/".to_owned(), None));
    let (_, envelope) = record_validation(&repo.store(), &repo.change(), &request).unwrap();
    let validation = envelope.validation.unwrap();
    let listed: Vec<&str> = validation
        .inventory
        .entries
        .iter()
        .map(|e| e.path.as_str())
        .collect();
    assert!(
        listed.contains(&"openspec/specs/auth/spec.md"),
        "{listed:?}"
    );
    assert!(
        listed.contains(&"openspec/changes/add-auth/.openspec.yaml"),
        "{listed:?}"
    );
    assert!(!listed.contains(&"src/generated/out.rs"), "{listed:?}");
    let excluded: Vec<&str> = validation
        .inventory
        .scope
        .exclusions()
        .iter()
        .map(|e| e.path.as_str())
        .collect();
    assert!(excluded.contains(&"src/generated"), "{excluded:?}");
}

#[test]
fn a_phase_record_is_one_regular_file_when_recorded_and_at_every_check() {
    let repo = Repo::new();
    repo.approve_all();
    repo.run_gate();
    let record = ".agents/phases/add-auth.md";
    let mut request = repo.request();
    request.phase_records.push(record.to_owned());
    // Absent when recorded: refused.
    let err = record_validation(&repo.store(), &repo.change(), &request).unwrap_err();
    assert_eq!(err.code(), "invalid-argument", "{err}");
    assert!(err.to_string().contains("missing"), "{err}");
    // A symlink is no regular file either.
    std::fs::create_dir_all(repo.path().join(".agents/phases")).unwrap();
    std::os::unix::fs::symlink("../../README.md", repo.path().join(record)).unwrap();
    let err = record_validation(&repo.store(), &repo.change(), &request).unwrap_err();
    assert!(err.to_string().contains("a symlink"), "{err}");
    std::fs::remove_file(repo.path().join(record)).unwrap();

    repo.write(record, "validated\n");
    record_validation(&repo.store(), &repo.change(), &request).unwrap();
    let check = check_validation(&repo.store(), &repo.change()).unwrap();
    assert!(check.stands, "{check:?}");
    assert_eq!(
        check.phase_records[0].kind,
        ledger_core::lifecycle::PhaseRecordKind::File
    );
    // The record becomes a directory hiding a delivery file: the PASS does not stand.
    std::fs::remove_file(repo.path().join(record)).unwrap();
    repo.write(&format!("{record}/smuggled.rs"), "fn smuggled() {}\n");
    let check = check_validation(&repo.store(), &repo.change()).unwrap();
    assert!(!check.stands);
    let standing = &check.phase_records[0];
    assert_eq!(
        standing.kind,
        ledger_core::lifecycle::PhaseRecordKind::Directory
    );
    let inside: Vec<&str> = standing.inside.iter().map(|p| p.as_str()).collect();
    assert_eq!(inside, [".agents/phases/add-auth.md/smuggled.rs"]);
    repo.archive();
    let done = repo.finalize();
    assert!(!done.clean);
    assert_eq!(
        paths(&done.new_changes),
        ["added .agents/phases/add-auth.md/smuggled.rs"]
    );
    // Removed: not one regular file either.
    std::fs::remove_dir_all(repo.path().join(record)).unwrap();
    let done = repo.finalize();
    assert!(!done.clean && done.new_changes.is_empty());
    assert_eq!(
        done.phase_records[0].kind,
        ledger_core::lifecycle::PhaseRecordKind::Missing
    );
}

#[test]
fn a_phase_record_inside_the_change_is_checked_where_the_archive_moved_it() {
    let repo = Repo::new();
    repo.approve_all();
    repo.run_gate();
    let record = format!("{DIR}/phases/validation.md");
    repo.write(&record, "validated\n");
    let mut request = repo.request();
    request.phase_records.push(record.clone());
    record_validation(&repo.store(), &repo.change(), &request).unwrap();
    repo.archive();
    let done = repo.finalize();
    assert!(done.clean, "{done:?}");
    assert_eq!(
        done.phase_records[0].path,
        format!("{ARCHIVE}/phases/validation.md")
    );
    let moved = repo.path().join(ARCHIVE).join("phases/validation.md");
    std::fs::remove_file(&moved).unwrap();
    std::fs::create_dir(&moved).unwrap();
    std::fs::write(moved.join("extra.md"), "unvalidated\n").unwrap();
    let done = repo.finalize();
    assert!(!done.clean);
    assert_eq!(
        paths(&done.new_changes),
        [format!("added {ARCHIVE}/phases/validation.md/extra.md")]
    );
}

/// A passing gate over `src/` whose result depends on a prerequisite.
fn run_gate_with_prerequisite(repo: &Repo) {
    let mut scope = Scope::new(utf8(repo.path()));
    scope.add_root("src").unwrap();
    let argv = vec!["cat".to_owned(), "src/lib.rs".to_owned()];
    let prerequisites = BTreeMap::from([(
        "toolchain".to_owned(),
        ledger_core::gate::Observe::Literal("1.80".to_owned()),
    )]);
    let spec = GateSpec::new("test", argv, ".", scope, prerequisites).unwrap();
    run_gate(&repo.store(), &spec, Echo::Off).unwrap();
}

#[test]
fn a_gate_with_prerequisites_backs_a_pass_when_they_are_observed_now() {
    let repo = Repo::new();
    repo.approve_all();
    run_gate_with_prerequisite(&repo);
    // Named only: its prerequisite is unverified, the PASS refused.
    let err = record_validation(&repo.store(), &repo.change(), &repo.request()).unwrap_err();
    assert_eq!(err.code(), "validation-refused");
    assert!(
        err.to_string().contains("prerequisite-unverified")
            || err.to_string().contains("not observed"),
        "{err}"
    );

    let observe = |value: &str| {
        ledger_core::lifecycle::GatePrerequisites::from([(
            "test".to_owned(),
            BTreeMap::from([(
                "toolchain".to_owned(),
                ledger_core::gate::Observe::Literal(value.to_owned()),
            )]),
        )])
    };
    let with = |prerequisites: &ledger_core::lifecycle::GatePrerequisites| {
        let mut request = ValidationRequest::new(ValidationVerdict::Pass, "review 2");
        request.roots.push("src".to_owned());
        request
            .gates_observing(utf8(repo.path()), &["test".to_owned()], prerequisites)
            .map(|()| request)
    };
    let err = record_validation(
        &repo.store(),
        &repo.change(),
        &with(&observe("1.81")).unwrap(),
    )
    .unwrap_err();
    assert_eq!(err.code(), "validation-refused", "{err}");
    record_validation(
        &repo.store(),
        &repo.change(),
        &with(&observe("1.80")).unwrap(),
    )
    .unwrap();
    // Prerequisites of a gate the validation does not rely on: a typo, refused.
    let mut typo = observe("1.80");
    typo.insert("tset".to_owned(), BTreeMap::new());
    assert_eq!(with(&typo).unwrap_err().code(), "invalid-argument");

    // The check observes them the same way.
    let check = check_validation(&repo.store(), &repo.change()).unwrap();
    assert!(!check.stands && !check.gates[0].fresh, "{check:?}");
    let check = ledger_core::lifecycle::check_validation_with(
        &repo.store(),
        &repo.change(),
        &observe("1.80"),
    )
    .unwrap();
    assert!(check.stands, "{check:?}");
    let err = ledger_core::lifecycle::check_validation_with(&repo.store(), &repo.change(), &typo)
        .unwrap_err();
    assert_eq!(err.code(), "invalid-argument");
}

#[test]
fn writes_record_nothing_when_what_was_reviewed_moved_or_another_writer_came_first() {
    use ledger_core::approval::{WriteBasis, approve_with, current_state, retire_from};
    use ledger_core::records::StartedFrom;
    let repo = Repo::new();
    let store = repo.store();
    let reviewed = repo.change().inventory("proposal").unwrap().fingerprint;
    repo.write(
        &format!("{DIR}/proposal.md"),
        "# Why\nEdited after the review.\n",
    );
    let basis = WriteBasis {
        reviewed: Some(reviewed),
        started_from: Some(StartedFrom::Nothing),
    };
    let err = approve_with(
        &store,
        &repo.change(),
        "proposal",
        "r",
        Absence::Refuse,
        &basis,
    )
    .unwrap_err();
    assert_eq!(err.code(), "fingerprint-moved", "{err}");
    assert!(
        err.to_string()
            .contains("openspec/changes/add-auth/proposal.md"),
        "{err}"
    );
    assert_eq!(
        current_state(&store, "add-auth").unwrap().0,
        None,
        "nothing recorded"
    );

    // Reviewed what is there now, from no state: recorded.
    let now = repo.change().inventory("proposal").unwrap().fingerprint;
    let basis = WriteBasis {
        reviewed: Some(now),
        started_from: Some(StartedFrom::Nothing),
    };
    approve_with(
        &store,
        &repo.change(),
        "proposal",
        "r",
        Absence::Refuse,
        &basis,
    )
    .unwrap();
    let first = current_state(&store, "add-auth").unwrap().0.unwrap();
    // The same basis again: another writer (the one above) came first.
    let err = approve_with(
        &store,
        &repo.change(),
        "proposal",
        "r",
        Absence::Refuse,
        &basis,
    )
    .unwrap_err();
    assert_eq!(err.code(), "pointer-conflict", "{err}");
    assert_eq!(current_state(&store, "add-auth").unwrap().0, Some(first));

    // Edited after an approval: the changed path is named against the binding.
    let reviewed_again = WriteBasis {
        reviewed: Some(now),
        started_from: Some(first.into()),
    };
    repo.write(&format!("{DIR}/proposal.md"), "# Why\nEdited again.\n");
    let err = approve_with(
        &store,
        &repo.change(),
        "proposal",
        "r",
        Absence::Refuse,
        &reviewed_again,
    )
    .unwrap_err();
    assert_eq!(err.code(), "fingerprint-moved");
    assert!(
        err.to_string()
            .contains("content changed: openspec/changes/add-auth/proposal.md"),
        "{err}"
    );

    // Retiring after another writer: a conflict, the state stays.
    let err =
        retire_from(&store, "add-auth", "abandoned", Some(&StartedFrom::Nothing)).unwrap_err();
    assert_eq!(err.code(), "pointer-conflict");
    retire_from(&store, "add-auth", "abandoned", Some(&first.into())).unwrap();
}

#[test]
fn a_verdict_records_nothing_when_its_pass_inventory_moved_or_another_writer_came_first() {
    let repo = Repo::new();
    repo.approve_all();
    repo.run_gate();
    let store = repo.store();
    let (head, _) = ledger_core::approval::current_state(&store, "add-auth").unwrap();
    let reviewed = Inventory::expand(
        &ledger_core::lifecycle::pass_scope(&repo.change(), &repo.request()).unwrap(),
    )
    .unwrap()
    .fingerprint;
    let mut request = repo.request();
    request.basis.reviewed = Some(reviewed);
    request.basis.started_from = head.map(Into::into);
    repo.write("src/lib.rs", "pub fn login() { /* after review */ }\n");
    repo.run_gate();
    let err = record_validation(&store, &repo.change(), &request).unwrap_err();
    assert_eq!(err.code(), "fingerprint-moved", "{err}");
    assert!(err.to_string().contains("src/lib.rs"), "{err}");
    assert_eq!(
        ledger_core::approval::current_state(&store, "add-auth")
            .unwrap()
            .0,
        head
    );

    repo.write("src/lib.rs", "pub fn login() {}\n");
    repo.run_gate();
    record_validation(&store, &repo.change(), &request).unwrap();
    // The same basis again: the head moved since.
    let err = record_validation(&store, &repo.change(), &request).unwrap_err();
    assert_eq!(err.code(), "pointer-conflict", "{err}");
}

/// A workspace of `count` changes, each approved, with a declared gate over
/// its directory that ran, and a PASS over `src/` for every other one.
fn many_changes(count: usize) -> tempfile::TempDir {
    use ledger_core::gate::{Declarations, RunOptions, run_declared};
    let dir = tempfile::tempdir().unwrap();
    let ws = utf8(dir.path());
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let git = Git::isolated().identity("t", "t@example.com");
    git.run(dir.path(), &["init", "-q"]);
    let mut toml = String::new();
    for i in 0..count {
        let change = format!("openspec/changes/c{i}");
        write(&format!("{change}/proposal.md"), "# Why\n");
        write(&format!("{change}/design.md"), "# Design\n");
        write(&format!("{change}/specs/cap{i}/spec.md"), AUTH_DELTA);
        write(
            &format!("{change}/tasks.md"),
            "## 1. Core\n- [x] 1.1 Done\n",
        );
        toml.push_str(&format!(
            "[gates.g{i}]\ncommand = [\"true\"]\nroots = [\"{change}\"]\n\n"
        ));
    }
    write("ledger.toml", &toml);
    for i in 0..100 {
        write(&format!("src/f{i}.txt"), "x\n");
    }
    git.commit_all(dir.path(), "changes");
    let store = Store::open(ws).unwrap();
    let declarations = Declarations::read_required(ws).unwrap();
    let quiet = RunOptions {
        echo: Echo::Off,
        ..RunOptions::default()
    };
    run_declared(&store, &declarations, &quiet, &mut |_| {}).unwrap();
    for i in 0..count {
        let change = ChangeSet::new(ws, &format!("c{i}"), ArtifactGraph::spec_driven()).unwrap();
        for artifact in ["proposal", "specs", "design", "tasks"] {
            approve(&store, &change, artifact, "review", Absence::Refuse).unwrap();
        }
        if i % 2 == 0 {
            let mut request = ValidationRequest::new(ValidationVerdict::Pass, "review");
            request.roots.push("src".to_owned());
            request.gate(ws, &format!("g{i}"));
            record_validation(&store, &change, &request).unwrap();
        }
    }
    dir
}

/// What `work` opened and read from Git on this thread.
fn git_reads_of<R>(work: impl FnOnce() -> R) -> ledger_core::expand::GitReads {
    let before = ledger_core::expand::git_reads();
    work();
    let after = ledger_core::expand::git_reads();
    ledger_core::expand::GitReads {
        repository_opens: after.repository_opens - before.repository_opens,
        index_reads: after.index_reads - before.index_reads,
    }
}

/// The resume call, and each verb that evaluates many scopes, opens the
/// workspace's repository once and reads its index once, however many
/// changes, approvals, gates and PASSes it evaluates (issue 47: it was once
/// per scope, and once per store access).
#[test]
fn one_call_opens_the_repository_once_and_reads_its_index_once() {
    use ledger_core::approval::status;
    use ledger_core::gate::{Declarations, check_declared};
    use ledger_core::lifecycle::{ResumeRequest, list_changes, resume_check};
    let dir = many_changes(6);
    let ws = utf8(dir.path());
    let store = Store::open(ws).unwrap();
    let once = ledger_core::expand::GitReads {
        repository_opens: 1,
        index_reads: 1,
    };
    let resume = git_reads_of(|| {
        let resume = resume_check(&store, &ResumeRequest::new(ws)).unwrap();
        assert_eq!(resume.changes.len(), 6);
        assert!(resume.changes.iter().all(|c| c.approvals.all_approved()));
    });
    assert_eq!(resume, once, "ledger check of six changes");
    let changes = git_reads_of(|| list_changes(&store, &ResumeRequest::new(ws)).unwrap());
    assert_eq!(changes, once, "ledger changes");
    let declarations = Declarations::read_required(ws).unwrap();
    let gates = git_reads_of(|| {
        let checked = check_declared(&declarations, &BTreeMap::new()).unwrap();
        assert!(checked.iter().all(|f| f.fresh), "{checked:?}");
    });
    assert_eq!(gates, once, "ledger gate check --all");
    let change = ChangeSet::new(ws, "c0", ArtifactGraph::spec_driven()).unwrap();
    let approvals = git_reads_of(|| status(&store, &change).unwrap());
    assert_eq!(approvals, once, "ledger status");
    let validation = git_reads_of(|| assert!(check_validation(&store, &change).unwrap().stands));
    assert_eq!(validation, once, "ledger validate check");
}
