//! The approval cascade on a real OpenSpec-shaped change in a temp Git repository.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::process::Command;

use camino::Utf8Path;
use ledger_core::{
    approval::{Absence, ApprovalState, Binding, StateEnvelope, approve, evaluate, status},
    openspec::{ArtifactGraph, ChangeSet},
    records::Store,
    tasks::TaskRule,
};
use ledger_testkit::{Git, utf8};

const CHANGE: &str = "openspec/changes/add-auth";

struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repo { dir };
        repo.git(&["init", "-q"]);
        repo.write("proposal.md", "# Why\nUsers need to log in.\n");
        repo.write(
            "design.md",
            "# Design\nSee ![flow](diagrams/flow.svg) and [API](../../../docs/api.md), [RFC](https://www.rfc-editor.org/rfc/rfc6749).\n",
        );
        repo.write("diagrams/flow.svg", "<svg/>\n");
        repo.write("../../../docs/api.md", "# API\n");
        repo.write("specs/auth/spec.md", "## Requirement: login\n");
        repo.write("specs/api/tokens/spec.md", "## Requirement: tokens\n");
        repo.write("specs/auth/notes.txt", "not a spec file\n");
        repo.write(
            "tasks.md",
            "## 1. Core\n- [ ] 1.1 [core] Add login\n- [ ] 1.2 [core] Add tokens\n",
        );
        repo.git(&["add", "-A"]);
        repo.git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "change",
        ]);
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn git(&self, args: &[&str]) {
        Git::isolated().run(self.path(), args);
    }

    /// Writes a file relative to the change directory.
    fn write(&self, rel: &str, text: &str) {
        let path = self.path().join(CHANGE).join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn remove(&self, rel: &str) {
        std::fs::remove_file(self.path().join(CHANGE).join(rel)).unwrap();
    }

    fn change(&self) -> ChangeSet {
        let ws = Utf8Path::from_path(self.path()).unwrap();
        ChangeSet::new(ws, "add-auth", ArtifactGraph::spec_driven()).unwrap()
    }

    /// An envelope approving every artifact as it is now, through the store.
    fn approve_all(&self) -> StateEnvelope {
        let store = Store::open(utf8(self.path())).unwrap();
        for a in ["proposal", "specs", "design", "tasks"] {
            approve(&store, &self.change(), a, "msg-1", Absence::Refuse).unwrap();
        }
        ledger_core::approval::current_state(&store, "add-auth")
            .unwrap()
            .1
    }

    /// The states of proposal, specs, design, tasks, with the reset causes.
    fn states(&self, env: &StateEnvelope) -> Row {
        evaluate(&self.change(), env)
            .artifacts
            .into_iter()
            .map(|a| (a.state, a.reset_by))
            .collect()
    }
}

use ApprovalState::{Approved as A, Blocked as B, Changed as C, Reset as R, Unbound as U};

fn row(states: &[(ApprovalState, &[&str])]) -> Row {
    states
        .iter()
        .map(|(s, c)| (*s, c.iter().map(|x| x.to_string()).collect()))
        .collect()
}

#[test]
fn sets_hold_the_right_files() {
    let repo = Repo::new();
    let change = repo.change();
    let paths = |a: &str| -> Vec<String> {
        change
            .inventory(a)
            .unwrap()
            .entries
            .iter()
            .map(|e| e.path.to_string())
            .collect()
    };
    assert_eq!(paths("proposal"), [format!("{CHANGE}/proposal.md")]);
    assert_eq!(
        paths("specs"),
        [
            format!("{CHANGE}/specs/api/tokens/spec.md"),
            format!("{CHANGE}/specs/auth/spec.md")
        ]
    );
    assert_eq!(
        paths("design"),
        [
            "docs/api.md".to_owned(),
            format!("{CHANGE}/design.md"),
            format!("{CHANGE}/diagrams/flow.svg"),
        ]
    );
    let tasks = change.scope("tasks").unwrap();
    assert_eq!(tasks.tasks().len(), 1, "tasks.md is normalized");
}

type Edit = fn(&Repo);
type Row = Vec<(ApprovalState, Vec<String>)>;

#[test]
fn the_cascade_table() {
    let cases: Vec<(&str, Edit, Row)> = vec![
        (
            "nothing",
            |_| {},
            row(&[(A, &[]), (A, &[]), (A, &[]), (A, &[])]),
        ),
        (
            "edit proposal",
            |r| r.write("proposal.md", "# Why\nChanged.\n"),
            row(&[
                (C, &[]),
                (R, &["proposal"]),
                (R, &["proposal"]),
                (R, &["proposal"]),
            ]),
        ),
        (
            "edit a spec",
            |r| r.write("specs/auth/spec.md", "## Requirement: login v2\n"),
            row(&[(A, &[]), (C, &[]), (A, &[]), (R, &["specs"])]),
        ),
        (
            "edit design",
            |r| r.write("design.md", "# Design\nSee ![flow](diagrams/flow.svg).\n"),
            row(&[(A, &[]), (A, &[]), (C, &[]), (R, &["design"])]),
        ),
        (
            "edit tasks",
            |r| r.write("tasks.md", "## 1. Core\n- [ ] 1.1 [core] Add login\n"),
            row(&[(A, &[]), (A, &[]), (A, &[]), (C, &[])]),
        ),
        (
            "tick a canonical checkbox",
            |r| {
                r.write(
                    "tasks.md",
                    "## 1. Core\n- [x] 1.1 [core] Add login\n- [ ] 1.2 [core] Add tokens\n",
                )
            },
            row(&[(A, &[]), (A, &[]), (A, &[]), (A, &[])]),
        ),
        (
            "add a spec file",
            |r| r.write("specs/billing/spec.md", "## Requirement: invoices\n"),
            row(&[(A, &[]), (C, &[]), (A, &[]), (R, &["specs"])]),
        ),
        (
            "remove a spec file",
            |r| r.remove("specs/api/tokens/spec.md"),
            row(&[(A, &[]), (C, &[]), (A, &[]), (R, &["specs"])]),
        ),
        (
            "a non-spec file under specs/ does not count",
            |r| r.write("specs/auth/notes.txt", "edited\n"),
            row(&[(A, &[]), (A, &[]), (A, &[]), (A, &[])]),
        ),
        (
            "edit a linked design material",
            |r| r.write("diagrams/flow.svg", "<svg><g/></svg>\n"),
            row(&[(A, &[]), (A, &[]), (C, &[]), (R, &["design"])]),
        ),
        (
            "edit a material outside the change",
            |r| r.write("../../../docs/api.md", "# API v2\n"),
            row(&[(A, &[]), (A, &[]), (C, &[]), (R, &["design"])]),
        ),
        (
            "edit proposal and design",
            |r| {
                r.write("proposal.md", "changed\n");
                r.write("design.md", "changed\n");
            },
            row(&[
                (C, &[]),
                (R, &["proposal"]),
                (C, &["proposal"]),
                (R, &["proposal", "design"]),
            ]),
        ),
    ];
    for (name, edit, expected) in cases {
        let repo = Repo::new();
        let env = repo.approve_all();
        edit(&repo);
        assert_eq!(repo.states(&env), expected, "{name}");
    }
}

#[test]
fn a_missing_material_blocks_the_design() {
    let repo = Repo::new();
    let env = repo.approve_all();
    repo.remove("diagrams/flow.svg");
    let status = evaluate(&repo.change(), &env);
    let design = &status.artifacts[2];
    assert_eq!(design.state, B);
    assert!(
        design
            .blocked
            .as_deref()
            .unwrap()
            .starts_with("error[missing-material]"),
        "{design:?}"
    );
    assert!(
        design
            .blocked
            .as_deref()
            .unwrap()
            .contains("diagrams/flow.svg"),
        "{design:?}"
    );
    assert_eq!(
        (
            status.artifacts[3].state,
            status.artifacts[3].reset_by.clone()
        ),
        (R, vec!["design".to_owned()])
    );
    let err = repo.change().inventory("design").unwrap_err();
    assert_eq!(err.code(), "missing-material");
}

#[test]
fn legacy_state_without_bindings_is_unbound() {
    let repo = Repo::new();
    let states = repo.states(&StateEnvelope::new("add-auth"));
    assert_eq!(states, row(&[(U, &[]), (U, &[]), (U, &[]), (U, &[])]));
    // A change already edited upstream: still unbound (needs a decision), not reset.
    let mut env = repo.approve_all();
    env.bindings.retain(|b| b.artifact != "tasks");
    repo.write("proposal.md", "changed\n");
    let states = repo.states(&env);
    assert_eq!(states[3].0, U);
}

#[test]
fn approve_and_status_through_the_store() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    let change = repo.change();
    assert!(!status(&store, &change).unwrap().all_approved());
    for a in ["proposal", "specs", "design", "tasks"] {
        let binding = approve(&store, &change, a, "chat message 42", Absence::Refuse).unwrap();
        assert_eq!(
            binding.fingerprint,
            change.inventory(a).unwrap().fingerprint
        );
    }
    let now = status(&store, &change).unwrap();
    assert!(now.all_approved(), "{now:?}");
    assert!(now.state_record.is_some());
    // In a Git checkout the store is the repository's, never in an approval set.
    assert!(std::fs::read_dir(repo.path().join(".git/ledger/records")).is_ok());
    assert!(status(&store, &change).unwrap().all_approved());
    // Re-approving after a change restores the approval of that artifact only.
    repo.write("design.md", "# Design v2\n");
    let after = status(&store, &change).unwrap();
    assert_eq!(after.artifacts[2].state, C);
    approve(&store, &change, "design", "msg 43", Absence::Refuse).unwrap();
    let states: Vec<ApprovalState> = status(&store, &change)
        .unwrap()
        .artifacts
        .iter()
        .map(|a| a.state)
        .collect();
    assert_eq!(states, [A, A, A, R]);
    assert_eq!(store.history("changes/add-auth").unwrap().len(), 5);
}

#[test]
fn approval_is_refused_when_blocked_or_without_source() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    repo.remove("diagrams/flow.svg");
    let err = approve(&store, &repo.change(), "design", "msg", Absence::Refuse).unwrap_err();
    assert_eq!(err.code(), "missing-material");
    assert!(
        store.head("changes/add-auth").unwrap().is_none(),
        "nothing recorded"
    );
    let err = approve(&store, &repo.change(), "proposal", "  ", Absence::Refuse).unwrap_err();
    assert_eq!(err.code(), "missing-source");
    let err = approve(&store, &repo.change(), "review", "msg", Absence::Refuse).unwrap_err();
    assert_eq!(err.code(), "unknown-artifact");
}

#[test]
fn custom_graph_from_schema_yaml() {
    let repo = Repo::new();
    let schema = "artifacts:\n  - id: brief\n    generates: proposal.md\n  - id: plan\n    generates: tasks.md\n    requires: [brief]\napply:\n  tracks: tasks.md\n";
    let graph = ArtifactGraph::from_schema_yaml(schema, "schema.yaml").unwrap();
    let ws = Utf8Path::from_path(repo.path()).unwrap();
    let change = ChangeSet::new(ws, "add-auth", graph).unwrap();
    let mut env = StateEnvelope::new("add-auth");
    let brief = change.inventory("brief").unwrap().fingerprint;
    for (a, upstream) in [
        ("brief", vec![]),
        ("plan", vec![("brief".to_owned(), brief)]),
    ] {
        env.bind(Binding {
            change: "add-auth".into(),
            artifact: a.into(),
            fingerprint: change.inventory(a).unwrap().fingerprint,
            source: "s".into(),
            observed_at: "t".into(),
            upstream: upstream.into_iter().collect(),
            inventory: None,
            schema: change.graph().schema().cloned(),
            baselines: None,
        });
    }
    repo.write(
        "tasks.md",
        "## 1. Core\n- [x] 1.1 [core] Add login\n- [x] 1.2 [core] Add tokens\n",
    );
    let states: Vec<ApprovalState> = evaluate(&change, &env)
        .artifacts
        .iter()
        .map(|a| a.state)
        .collect();
    assert_eq!(states, [A, A], "ticks in the tracked file do not count");
    repo.write("proposal.md", "changed\n");
    let states: Vec<ApprovalState> = evaluate(&change, &env)
        .artifacts
        .iter()
        .map(|a| a.state)
        .collect();
    assert_eq!(states, [C, R]);
}

fn code<T: std::fmt::Debug>(result: ledger_core::Result<T>) -> &'static str {
    result.unwrap_err().code()
}

#[test]
fn a_change_without_spec_files_has_an_empty_specs_set() {
    let repo = Repo::new();
    std::fs::remove_dir_all(repo.path().join(CHANGE).join("specs")).unwrap();
    let store = Store::open(utf8(repo.path())).unwrap();
    let change = repo.change();
    let specs = change.inventory("specs").unwrap();
    assert!(specs.entries.is_empty(), "{:?}", specs.entries);
    assert_eq!(
        specs.fingerprint,
        ledger_core::expand::fingerprint_entries(Vec::<ledger_core::expand::Entry>::new()).unwrap()
    );
    // None of its files exist: approving it needs the explicit absence.
    assert_eq!(
        code(approve(&store, &change, "specs", "m", Absence::Refuse)),
        "absent-artifact"
    );
    for a in ["proposal", "specs", "design", "tasks"] {
        approve(&store, &change, a, "m", Absence::Approve).unwrap();
    }
    // A file elsewhere in the workspace is no part of any set.
    std::fs::write(repo.path().join("README.md"), "unrelated\n").unwrap();
    let now = status(&store, &change).unwrap();
    assert!(now.all_approved(), "{now:?}");
}

#[test]
fn an_approval_is_refused_while_an_upstream_is_blocked() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    let change = repo.change();
    for a in ["proposal", "specs"] {
        approve(&store, &change, a, "m", Absence::Refuse).unwrap();
    }
    repo.remove("diagrams/flow.svg");
    let err = approve(&store, &change, "tasks", "m", Absence::Refuse).unwrap_err();
    assert_eq!(err.code(), "upstream-blocked", "{err}");
    assert!(err.to_string().contains("\"design\""), "{err}");
    assert!(err.to_string().contains("missing-material"), "{err}");
    // Design replaced by text linking nothing, then approved: tasks was never
    // approved on it, so it is not approved now.
    repo.write("design.md", "# Another design\n");
    approve(&store, &change, "design", "m", Absence::Refuse).unwrap();
    let tasks = &status(&store, &change).unwrap().artifacts[3];
    assert_eq!(tasks.state, U);
}

#[test]
fn a_binding_without_an_upstream_fingerprint_is_reset() {
    // A binding made before upstream-blocked existed, while design was blocked.
    let repo = Repo::new();
    let change = repo.change();
    let mut env = repo.approve_all();
    let tasks = env.binding("tasks").unwrap().clone();
    let mut upstream = tasks.upstream.clone();
    upstream.remove("design");
    env.bind(Binding { upstream, ..tasks });
    let row = &evaluate(&change, &env).artifacts[3];
    assert_eq!(
        (row.state, row.reset_by.clone()),
        (R, vec!["design".to_owned()])
    );
}

#[test]
fn an_unknown_change_is_refused_and_nothing_is_recorded() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    let ws = Utf8Path::from_path(repo.path()).unwrap();
    let typo = ChangeSet::new(ws, "add-atuh", ArtifactGraph::spec_driven()).unwrap();
    let err = approve(&store, &typo, "proposal", "m", Absence::Approve).unwrap_err();
    assert_eq!(err.code(), "unknown-change");
    assert!(err.to_string().contains("add-atuh"), "{err}");
    // It says which workspace it looked in: a wrong one finds no change.
    assert!(
        err.to_string().contains(&format!("in workspace '{ws}':")),
        "{err}"
    );
    assert_eq!(code(status(&store, &typo)), "unknown-change");
    assert!(store.refs().unwrap().is_empty(), "nothing recorded");
    // `archive` holds archived changes; it is no change itself.
    std::fs::create_dir_all(repo.path().join("openspec/changes/archive")).unwrap();
    let archive = ChangeSet::new(ws, "archive", ArtifactGraph::spec_driven()).unwrap();
    assert_eq!(code(archive.require_present()), "unknown-change");
}

#[test]
fn an_artifact_whose_file_is_missing_needs_the_explicit_absence() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    let schema = "artifacts:\n  - id: brief\n    generates: proposal.md\n  - id: review\n    generates: review.md\n    requires: [brief]\n";
    let graph = ArtifactGraph::from_schema_yaml(schema, "schema.yaml").unwrap();
    let ws = Utf8Path::from_path(repo.path()).unwrap();
    let change = ChangeSet::new(ws, "add-auth", graph).unwrap();
    let err = approve(&store, &change, "review", "m", Absence::Refuse).unwrap_err();
    assert_eq!(err.code(), "absent-artifact");
    assert!(err.to_string().contains("review.md"), "{err}");
    let binding = approve(&store, &change, "review", "m", Absence::Approve).unwrap();
    assert_eq!(binding.inventory.unwrap().entries[0].kind(), "missing");
    // Once it is written, the absence it was approved as no longer holds.
    repo.write("review.md", "# Review\n");
    let row = &status(&store, &change).unwrap().artifacts[1];
    assert_eq!(row.state, C);
}

#[test]
fn status_lists_the_paths_that_changed() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    let change = repo.change();
    repo.approve_all();
    repo.write("specs/auth/spec.md", "## Requirement: login v2\n");
    repo.remove("specs/api/tokens/spec.md");
    repo.write("specs/billing/spec.md", "## Requirement: pay\n");
    let specs = &status(&store, &change).unwrap().artifacts[1];
    assert_eq!(specs.state, C);
    let changes: Vec<(&str, &str)> = specs
        .changes
        .as_ref()
        .unwrap()
        .iter()
        .map(|c| (c.path(), c.change.as_str()))
        .collect();
    assert_eq!(
        changes,
        [
            (
                "openspec/changes/add-auth/specs/api/tokens/spec.md",
                "removed"
            ),
            (
                "openspec/changes/add-auth/specs/auth/spec.md",
                "content-changed"
            ),
            ("openspec/changes/add-auth/specs/billing/spec.md", "added"),
        ]
    );
}

#[test]
fn an_archived_change_is_found_by_name_and_reported_as_archived() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    repo.approve_all();
    let archive = repo.path().join("openspec/changes/archive");
    std::fs::create_dir_all(&archive).unwrap();
    std::fs::rename(
        repo.path().join(CHANGE),
        archive.join("2026-12-01-add-auth"),
    )
    .unwrap();
    let change = repo.change();
    assert_eq!(
        *change.location(),
        ledger_core::openspec::ChangeLocation::Archived {
            directory: "openspec/changes/archive/2026-12-01-add-auth".into()
        }
    );
    let now = status(&store, &change).unwrap();
    let states: Vec<ApprovalState> = now.artifacts.iter().map(|a| a.state).collect();
    assert_eq!(states, [ApprovalState::Archived; 4]);
    assert!(now.all_approved());
    // An edit after the move is a change of the archived files, path by path.
    std::fs::write(archive.join("2026-12-01-add-auth/proposal.md"), "edited\n").unwrap();
    let now = status(&store, &change).unwrap();
    let proposal = &now.artifacts[0];
    assert_eq!(proposal.state, C);
    let paths: Vec<&str> = proposal
        .changes
        .iter()
        .flatten()
        .map(|c| c.path())
        .collect();
    assert_eq!(
        paths,
        ["openspec/changes/archive/2026-12-01-add-auth/proposal.md"]
    );
    assert_eq!(now.artifacts[3].state, R);
    assert_eq!(
        code(approve(&store, &change, "proposal", "m", Absence::Refuse)),
        "invalid-argument"
    );
}

#[test]
fn a_gone_change_is_reported_as_gone_and_can_be_retired() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    repo.approve_all();
    std::fs::remove_dir_all(repo.path().join(CHANGE)).unwrap();
    let change = repo.change();
    let now = status(&store, &change).unwrap();
    assert!(now.artifacts.iter().all(|a| a.state == ApprovalState::Gone));
    assert!(!now.all_approved());
    let before = store.history("changes/add-auth").unwrap().len();
    let record = ledger_core::approval::retire(&store, "add-auth", "abandoned").unwrap();
    assert_eq!(store.head("changes/add-auth").unwrap(), Some(record));
    assert_eq!(store.history("changes/add-auth").unwrap().len(), before + 1);
    let now = status(&store, &change).unwrap();
    assert_eq!(now.retired.as_ref().unwrap().reason, "abandoned");
    assert!(now.artifacts.iter().all(|a| a.binding.is_none()));
    assert_eq!(
        code(ledger_core::approval::retire(&store, "never-recorded", "x")),
        "invalid-argument"
    );
    assert_eq!(
        code(ledger_core::approval::retire(&store, "add-auth", " ")),
        "invalid-argument"
    );
}

#[test]
fn a_design_that_is_no_regular_file_blocks_without_hanging_or_following() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    let design = repo.path().join(CHANGE).join("design.md");
    let blocked = |repo: &Repo| -> String {
        let status = status(&store, &repo.change()).unwrap();
        assert_eq!(status.artifacts[2].state, B);
        status.artifacts[2].blocked.clone().unwrap()
    };
    std::fs::remove_file(&design).unwrap();
    let made = Command::new("mkfifo").arg(&design).status().unwrap();
    assert!(made.success());
    assert!(blocked(&repo).starts_with("error[special-file]"));
    std::fs::remove_file(&design).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &design).unwrap();
    let reason = blocked(&repo);
    assert!(reason.starts_with("error[unreadable]"), "{reason}");
    assert!(reason.contains("symlink"), "{reason}");
}

#[test]
fn a_state_pointer_naming_another_kind_of_record_is_corrupt() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    // Any JSON object would read as an empty envelope: the kind decides.
    store
        .commit(
            "changes/add-auth",
            "evidence",
            None,
            &serde_json::json!({"gate": "g"}),
        )
        .unwrap();
    let err = status(&store, &repo.change()).unwrap_err();
    assert_eq!(err.code(), "corrupt-record", "{err}");
    assert!(err.to_string().contains("\"evidence\""), "{err}");
}

#[test]
fn changes_lists_every_change_with_recorded_state() {
    let repo = Repo::new();
    let store = Store::open(utf8(repo.path())).unwrap();
    assert!(ledger_core::approval::changes(&store).unwrap().is_empty());
    repo.approve_all();
    store
        .commit("gates/test", "evidence", None, &serde_json::json!({}))
        .unwrap();
    assert_eq!(
        ledger_core::approval::changes(&store).unwrap(),
        ["add-auth"]
    );
    let state: ledger_core::approval::CurrentState =
        ledger_core::approval::current_state(&store, "add-auth")
            .unwrap()
            .into();
    let json = serde_json::to_value(&state).unwrap();
    assert_eq!(json["record"], state.record.unwrap().to_string());
    assert_eq!(json["state"]["change"], "add-auth");
}

/// The change's tasks in OpenSpec's own format (no `[area]` tag).
const OPENSPEC_TASKS: &str =
    "## 1. Core\n- [ ] 1.1 Add login\n  - [ ] 1.1.1 Test it\n* [ ] 1.2 Add tokens\n";

#[test]
fn under_openspec_checkbox_ticking_is_progress_and_status_keeps_the_recorded_rule() {
    let repo = Repo::new();
    repo.write("tasks.md", OPENSPEC_TASKS);
    let store = Store::open(utf8(repo.path())).unwrap();
    let mut change = repo.change();
    change = change.with_task_rule(Some(TaskRule::OpenspecCheckbox));
    for a in ["proposal", "specs", "design", "tasks"] {
        approve(&store, &change, a, "msg", Absence::Refuse).unwrap();
    }
    let (_, envelope) = ledger_core::approval::current_state(&store, "add-auth").unwrap();
    let recorded = &envelope
        .binding("tasks")
        .unwrap()
        .inventory
        .as_ref()
        .unwrap()
        .scope;
    let tasks_md = ledger_core::WorkspacePath::new(format!("{CHANGE}/tasks.md").as_str()).unwrap();
    assert_eq!(
        recorded.task_rule(&tasks_md),
        Some(TaskRule::OpenspecCheckbox)
    );
    // Ticking boxes, nested and under another bullet, is progress ...
    repo.write(
        "tasks.md",
        &OPENSPEC_TASKS
            .replace("- [ ] 1.1 ", "- [x] 1.1 ")
            .replace("* [ ] 1.2", "* [X] 1.2"),
    );
    assert!(status(&store, &change).unwrap().all_approved());
    // ... also for a status that does not name the rule: the binding recorded it.
    assert!(status(&store, &repo.change()).unwrap().all_approved());
    let read = change.tasks().unwrap();
    assert_eq!((read.tasks.total, read.tasks.done), (3, 2));
    assert_eq!(read.tasks.remaining_ids(), ["1.1.1"]);
    // ... while editing a task's text is a change.
    repo.write(
        "tasks.md",
        &OPENSPEC_TASKS.replace("Add login", "Add logins"),
    );
    assert_eq!(status(&store, &change).unwrap().artifacts[3].state, C);
}

#[test]
fn under_the_default_rule_ticking_an_openspec_task_is_a_change() {
    let repo = Repo::new();
    repo.write("tasks.md", OPENSPEC_TASKS);
    let store = Store::open(utf8(repo.path())).unwrap();
    for a in ["proposal", "specs", "design", "tasks"] {
        approve(&store, &repo.change(), a, "msg", Absence::Refuse).unwrap();
    }
    repo.write(
        "tasks.md",
        &OPENSPEC_TASKS.replace("- [ ] 1.1 ", "- [x] 1.1 "),
    );
    // Recorded under task-checkbox-v1: choosing another rule now does not rescue it.
    let mut change = repo.change();
    change = change.with_task_rule(Some(TaskRule::OpenspecCheckbox));
    assert_eq!(status(&store, &change).unwrap().artifacts[3].state, C);
    assert_eq!(change.tasks().unwrap().tasks.done, 1);
    assert_eq!(
        repo.change().tasks().unwrap().tasks.total,
        0,
        "no canonical lines"
    );
}

#[test]
fn a_schema_naming_the_rule_chooses_it() {
    let repo = Repo::new();
    let schema = "artifacts:\n  - {id: tasks, generates: tasks.md}\napply:\n  tracks: tasks.md\nledger:\n  task_rule: openspec-checkbox\n";
    let graph = ArtifactGraph::from_schema_yaml(schema, "schema.yaml").unwrap();
    let ws = Utf8Path::from_path(repo.path()).unwrap();
    let change = ChangeSet::new(ws, "add-auth", graph).unwrap();
    assert_eq!(change.task_rule(), TaskRule::OpenspecCheckbox);
    let scope = change.scope("tasks").unwrap();
    assert_eq!(
        scope.task_rule(&scope.tasks()[0].0),
        Some(TaskRule::OpenspecCheckbox)
    );
    let mut flagged = change.clone();
    flagged = flagged.with_task_rule(Some(TaskRule::TaskCheckboxV1));
    assert!(
        flagged
            .scope("tasks")
            .unwrap()
            .tasks()
            .iter()
            .all(|(_, rule)| rule.is_default())
    );
}

#[test]
fn every_reader_of_the_tasks_uses_the_rule_their_approval_recorded() {
    let repo = Repo::new();
    repo.write("tasks.md", OPENSPEC_TASKS);
    let store = Store::open(utf8(repo.path())).unwrap();
    // Under the default rule OpenSpec's three task lines are no task: a warning each time.
    let binding = approve(&store, &repo.change(), "tasks", "msg", Absence::Refuse).unwrap();
    let warnings = repo.change().task_rule_warnings(&binding);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        (warnings[0].rule, warnings[0].other),
        (TaskRule::TaskCheckboxV1, TaskRule::OpenspecCheckbox)
    );
    assert_eq!(warnings[0].lines, [2, 3, 4]);
    assert_eq!(warnings[0].path.as_str(), format!("{CHANGE}/tasks.md"));
    let mut chosen = repo.change();
    chosen = chosen.with_task_rule(Some(TaskRule::OpenspecCheckbox));
    let binding = approve(&store, &chosen, "tasks", "msg", Absence::Refuse).unwrap();
    assert!(chosen.task_rule_warnings(&binding).is_empty());
    // Unflagged, the change reads the file under the recorded rule ...
    let read = repo.change().tasks().unwrap();
    assert_eq!(
        (read.tasks.rule, read.tasks.total),
        (TaskRule::OpenspecCheckbox, 3)
    );
    let (_, envelope) = ledger_core::approval::current_state(&store, "add-auth").unwrap();
    assert_eq!(
        repo.change().reading_task_rule(&envelope),
        TaskRule::OpenspecCheckbox
    );
    // ... the state's default task ids come from it ...
    let patch = ledger_core::approval::StatePatch {
        role: Some("impl".into()),
        ..ledger_core::approval::StatePatch::default()
    };
    let (_, state) =
        ledger_core::approval::advance_state(&store, &repo.change(), &patch, None).unwrap();
    assert_eq!(state.tasks_remaining, ["1.1", "1.1.1", "1.2"]);
    // ... and approving again keeps it.
    let binding = approve(&store, &repo.change(), "tasks", "msg", Absence::Refuse).unwrap();
    assert_eq!(binding.task_rule(), Some(TaskRule::OpenspecCheckbox));
    // A rule the caller chooses wins over the recorded one.
    let mut flagged = repo.change();
    flagged = flagged.with_task_rule(Some(TaskRule::TaskCheckboxV1));
    assert_eq!(flagged.tasks().unwrap().tasks.total, 0);
    assert_eq!(
        flagged.reading_task_rule(&envelope),
        TaskRule::TaskCheckboxV1
    );
}

#[test]
fn a_design_s_inline_html_links_are_materials() {
    let repo = Repo::new();
    repo.write(
        "design.md",
        "# Design\n<img src=\"mocks/login.png\" width=\"300\">\n\n<p>See <a href='notes/why.md#top'>why</a>.</p>\n",
    );
    repo.write("mocks/login.png", "png\n");
    repo.write("notes/why.md", "# Why\n");
    let scope = repo.change().scope("design").unwrap();
    let paths: Vec<&str> = scope.paths().iter().map(|p| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            format!("{CHANGE}/design.md"),
            format!("{CHANGE}/mocks/login.png"),
            format!("{CHANGE}/notes/why.md"),
        ]
    );
    // Editing the image is a change of the approved design.
    let env = repo.approve_all();
    repo.write("mocks/login.png", "png, edited\n");
    assert_eq!(repo.states(&env)[2].0, C);
    // Missing, it blocks the design, as a Markdown image would.
    repo.remove("mocks/login.png");
    let err = repo.change().inventory("design").unwrap_err();
    assert_eq!(err.code(), "missing-material");
    assert!(err.to_string().contains("mocks/login.png"), "{err}");
    // An HTML <base> would change what every relative link names: refused.
    repo.write(
        "design.md",
        "<base href=\"https://example.com/\">\n\n![a](a.png)\n",
    );
    let err = repo.change().inventory("design").unwrap_err();
    assert_eq!(err.code(), "ambiguous-material");
}

/// Writes a file relative to the workspace.
fn write_main(repo: &Repo, rel: &str, text: &str) {
    let path = repo.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The state of each artifact, and the moved baselines of `specs`.
fn baseline_view(repo: &Repo) -> (Vec<ApprovalState>, Vec<String>, bool) {
    let store = Store::open(utf8(repo.path())).unwrap();
    let s = status(&store, &repo.change()).unwrap();
    let states = s.artifacts.iter().map(|a| a.state).collect();
    (
        states,
        s.artifacts[1].baselines_moved.clone(),
        s.artifacts[1].baselines_unbound,
    )
}

/// A delta is approved against the baselines it changes: a moved baseline
/// makes `specs` changed (and resets what stands on it), as does a removed
/// one or one that appears for a new capability; re-approving binds the new
/// baselines.
#[test]
fn specs_are_bound_to_the_baselines_their_deltas_change() {
    let repo = Repo::new();
    write_main(
        &repo,
        "openspec/specs/auth/spec.md",
        "# auth\n## Requirement: v1\n",
    );
    // `api/tokens` is a new capability: no baseline yet.
    repo.approve_all();
    let auth = "openspec/specs/auth/spec.md".to_owned();
    let tokens = "openspec/specs/api/tokens/spec.md".to_owned();
    assert_eq!(baseline_view(&repo), (vec![A, A, A, A], vec![], false));

    write_main(&repo, &auth, "# auth\n## Requirement: v2\n");
    assert_eq!(
        baseline_view(&repo),
        (vec![A, C, A, R], vec![auth.clone()], false)
    );
    let store = Store::open(utf8(repo.path())).unwrap();
    let row = &status(&store, &repo.change()).unwrap().artifacts[1];
    let changed: Vec<&str> = row.changes.iter().flatten().map(|c| c.path()).collect();
    assert_eq!(changed, [auth.as_str()]);

    // Re-approved against the new baseline, it stands again.
    approve(&store, &repo.change(), "specs", "msg-2", Absence::Refuse).unwrap();
    assert_eq!(baseline_view(&repo).0[1], A);

    // A baseline appearing for the new capability moves it too.
    write_main(&repo, &tokens, "# tokens\n");
    assert_eq!(
        baseline_view(&repo),
        (vec![A, C, A, R], vec![tokens.clone()], false)
    );
    approve(&store, &repo.change(), "specs", "msg-3", Absence::Refuse).unwrap();
    // And one removed.
    std::fs::remove_file(repo.path().join(&auth)).unwrap();
    assert_eq!(baseline_view(&repo).1, [auth]);
}

/// A binding written before ledger bound baselines reads as before, and
/// says that its baselines were not bound; a set with no delta has none.
#[test]
fn an_approval_without_bound_baselines_reads_as_before_and_says_so() {
    let repo = Repo::new();
    write_main(&repo, "openspec/specs/auth/spec.md", "# auth\n");
    let mut envelope = repo.approve_all();
    for binding in &mut envelope.bindings {
        binding.baselines = None;
    }
    let s = evaluate(&repo.change(), &envelope);
    let view: Vec<(ApprovalState, bool)> = s
        .artifacts
        .iter()
        .map(|a| (a.state, a.baselines_unbound))
        .collect();
    assert_eq!(view, [(A, false), (A, true), (A, false), (A, false)]);
    write_main(&repo, "openspec/specs/auth/spec.md", "# moved\n");
    assert_eq!(evaluate(&repo.change(), &envelope).artifacts[1].state, A);
}
