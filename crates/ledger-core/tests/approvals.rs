//! The approval cascade on a real OpenSpec-shaped change in a temp Git repository.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::process::Command;

use camino::Utf8Path;
use ledger_core::{
    ApprovalState, ArtifactGraph, Binding, ChangeSet, StateEnvelope, Store, approve, evaluate,
    status,
};

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
        let status = Command::new("git")
            .arg("-C")
            .arg(self.path())
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
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
        let store = Store::open(self.path());
        for a in ["proposal", "specs", "design", "tasks"] {
            approve(&store, &self.change(), a, "msg-1").unwrap();
        }
        ledger_core::current_state(&store, "add-auth").unwrap().1
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
    assert_eq!(tasks.normalize.len(), 1, "tasks.md is normalized");
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
    let store = Store::open(repo.path());
    let change = repo.change();
    assert!(!status(&store, &change).unwrap().all_approved());
    for a in ["proposal", "specs", "design", "tasks"] {
        let binding = approve(&store, &change, a, "chat message 42").unwrap();
        assert_eq!(
            binding.fingerprint,
            change.inventory(a).unwrap().fingerprint
        );
    }
    let now = status(&store, &change).unwrap();
    assert!(now.all_approved(), "{now:?}");
    assert!(now.state_record.is_some());
    // The store itself never enters an approval set.
    assert!(std::fs::read_dir(repo.path().join(".ledger")).is_ok());
    assert!(status(&store, &change).unwrap().all_approved());
    // Re-approving after a change restores the approval of that artifact only.
    repo.write("design.md", "# Design v2\n");
    let after = status(&store, &change).unwrap();
    assert_eq!(after.artifacts[2].state, C);
    approve(&store, &change, "design", "msg 43").unwrap();
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
    let store = Store::open(repo.path());
    repo.remove("diagrams/flow.svg");
    let err = approve(&store, &repo.change(), "design", "msg").unwrap_err();
    assert_eq!(err.code(), "missing-material");
    assert!(
        store.head("changes/add-auth").unwrap().is_none(),
        "nothing recorded"
    );
    let err = approve(&store, &repo.change(), "proposal", "  ").unwrap_err();
    assert_eq!(err.code(), "missing-source");
    let err = approve(&store, &repo.change(), "review", "msg").unwrap_err();
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
    for a in ["brief", "plan"] {
        env.bind(Binding {
            change: "add-auth".into(),
            artifact: a.into(),
            fingerprint: change.inventory(a).unwrap().fingerprint,
            source: "s".into(),
            observed_at: "t".into(),
            upstream: Default::default(),
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
