//! ledger's approvals on repositories made by the real OpenSpec CLI (the npm
//! package `@fission-ai/openspec`, pinned in tests/openspec/package-lock.json).
//! `make openspec-test` installs it and runs these tests with the binary's path in
//! `LEDGER_OPENSPEC_BIN`; a plain `cargo test` skips them (they are ignored).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

mod common;
#[path = "openspec_cli/sync_diff.rs"]
mod sync_diff;

use common::*;

const NEEDS: &str = "needs the OpenSpec CLI: make openspec-test";

/// The OpenSpec binary the test setup installed; a missing one fails the test.
fn openspec_bin() -> PathBuf {
    match std::env::var_os("LEDGER_OPENSPEC_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => panic!("LEDGER_OPENSPEC_BIN is not set: run these tests with `make openspec-test`"),
    }
}

/// A Git checkout in which OpenSpec made its project (`openspec init --tools none .`).
struct Project {
    s: Sandbox,
}

impl Project {
    fn new() -> Self {
        let s = Sandbox::new();
        s.init();
        let project = Project { s };
        project.openspec(&["init", "--tools", "none", "."]);
        project
    }

    /// Runs `openspec args` in the workspace, which must succeed. Its HOME and
    /// data directories are the sandbox's (no user-level schema or config is
    /// read), and it sends no telemetry.
    fn openspec(&self, args: &[&str]) -> Output {
        let out = self.openspec_output(args);
        assert!(
            out.status.success(),
            "openspec {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Runs `openspec args` in the workspace, whatever its exit status.
    fn openspec_output(&self, args: &[&str]) -> Output {
        let home = self.s.home();
        Command::new(openspec_bin())
            .args(args)
            .current_dir(self.s.w())
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("OPENSPEC_TELEMETRY", "0")
            .env("DO_NOT_TRACK", "1")
            .env("CI", "1")
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    }

    fn write(&self, rel: &str, text: &str) {
        self.s.write(rel, text.as_bytes());
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.s.w().join(rel)).unwrap()
    }

    fn ledger(&self, args: &[&str]) -> Output {
        self.s.ledger(&self.s.w(), args)
    }

    /// `ledger approve`, which must succeed.
    fn approve(&self, change: &str, artifact: &str, extra: &[&str]) {
        let mut args = vec![
            "approve",
            "--change",
            change,
            "--artifact",
            artifact,
            "--source",
            "review thread 12",
        ];
        args.extend(extra);
        let out = self.ledger(&args);
        assert!(
            out.status.success(),
            "approve {artifact}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `ledger status --json`, with its exit code.
    fn status(&self, change: &str, extra: &[&str]) -> (Value, i32) {
        let mut args = vec!["status", "--change", change, "--json"];
        args.extend(extra);
        let out = self.ledger(&args);
        let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
        });
        (json, out.status.code().unwrap())
    }

    /// The status table.
    fn status_text(&self, change: &str) -> String {
        let out = self.ledger(&["status", "--change", change]);
        String::from_utf8(out.stdout).unwrap()
    }
}

/// `artifact=state` for every row of a status.
fn states(status: &Value) -> Vec<String> {
    let rows = status["artifacts"].as_array().unwrap().iter();
    rows.map(|a| {
        format!(
            "{}={}",
            a["artifact"].as_str().unwrap(),
            a["state"].as_str().unwrap()
        )
    })
    .collect()
}

fn row<'a>(status: &'a Value, artifact: &str) -> &'a Value {
    let rows = status["artifacts"].as_array().unwrap();
    rows.iter().find(|a| a["artifact"] == artifact).unwrap()
}

const PROPOSAL: &str = "## Why

Users cannot sign in to the product today, so every session starts anonymous and loses its state.

## What Changes

- Add a sign-in flow with email and password.

## Capabilities

### New Capabilities
- `auth`: signing in and out.

### Modified Capabilities

## Impact

The web front end and the session service.
";

const DESIGN: &str = "## Context

See [the decision record](notes/decision.md).

## Decisions

Sessions are cookies.
";

fn spec(capability: &str) -> String {
    format!(
        "## Purpose

Lets a person use {capability} with the product, and stop using it again.

## ADDED Requirements

### Requirement: Use {capability}
The system SHALL let a person use {capability} once they are signed in.

#### Scenario: Signed in
- **WHEN** a signed-in person opens {capability}
- **THEN** the system shows it
"
    )
}

/// OpenSpec's own task format (its tasks template): no area tag.
const TASKS: &str = "# Tasks

## 1. Sign in

- [ ] 1.1 Add the sign-in form and verify it renders
- [ ] 1.2 Add the session cookie and verify the login test passes
";

/// `openspec new change NAME` and the four spec-driven artifacts, valid under
/// `openspec validate --strict`.
fn spec_driven_change(p: &Project, name: &str) -> String {
    p.openspec(&["new", "change", name]);
    let dir = format!("openspec/changes/{name}");
    assert_eq!(
        p.read(&format!("{dir}/.openspec.yaml")).lines().next(),
        Some("schema: spec-driven")
    );
    p.write(&format!("{dir}/proposal.md"), PROPOSAL);
    p.write(&format!("{dir}/design.md"), DESIGN);
    p.write(&format!("{dir}/notes/decision.md"), "# Decision: cookies\n");
    p.write(&format!("{dir}/specs/auth/spec.md"), &spec("auth"));
    p.write(&format!("{dir}/tasks.md"), TASKS);
    p.openspec(&["validate", name, "--strict"]);
    dir
}

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn the_embedded_schemas_are_the_packages() {
    let package = std::env::var_os("LEDGER_OPENSPEC_PACKAGE").map(PathBuf::from);
    let package = package.unwrap_or_else(|| panic!("LEDGER_OPENSPEC_PACKAGE is not set ({NEEDS})"));
    let version: Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).unwrap()).unwrap();
    assert_eq!(version["version"], ledger_core::openspec::OPENSPEC_VERSION);
    let mut shipped: Vec<String> = std::fs::read_dir(package.join("schemas"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    shipped.sort();
    let mut embedded: Vec<&str> = ledger_core::openspec::BUILTIN_SCHEMAS
        .iter()
        .map(|(n, _)| *n)
        .collect();
    embedded.sort();
    assert_eq!(shipped, embedded);
    for (name, text) in ledger_core::openspec::BUILTIN_SCHEMAS {
        let file = package.join("schemas").join(name).join("schema.yaml");
        assert_eq!(&std::fs::read_to_string(file).unwrap(), text, "{name}");
    }
}

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn approvals_through_a_spec_driven_change_until_archive() {
    let p = Project::new();
    // OpenSpec's task lines carry no area tag: the project names OpenSpec's
    // rule for ledger in config.yaml, a key OpenSpec ignores.
    let config = p.read("openspec/config.yaml");
    p.write(
        "openspec/config.yaml",
        &format!("{config}\nledger:\n  task_rule: openspec-checkbox\n"),
    );
    let dir = spec_driven_change(&p, "add-thing");
    for artifact in ["proposal", "specs", "design", "tasks"] {
        p.approve("add-thing", artifact, &[]);
    }
    let (status, code) = p.status("add-thing", &[]);
    assert_eq!(
        states(&status),
        [
            "proposal=approved",
            "specs=approved",
            "design=approved",
            "tasks=approved"
        ]
    );
    assert_eq!(code, 0);
    // The schema OpenSpec wrote into .openspec.yaml, resolved built in.
    assert_eq!(status["schema"]["name"], "spec-driven");
    assert!(status["schema"].get("path").is_none());
    assert_eq!(status["schema_changed"], serde_json::json!([]));
    let binding = &row(&status, "tasks")["binding"];
    assert_eq!(binding["schema"], status["schema"]);

    // Ticking tasks as OpenSpec's apply phase does is progress, not a change.
    p.write(
        &format!("{dir}/tasks.md"),
        &TASKS
            .replace("- [ ] 1.1", "- [x] 1.1")
            .replace("- [ ] 1.2", "- [X] 1.2"),
    );
    p.openspec(&["validate", "add-thing", "--strict"]);
    let (status, code) = p.status("add-thing", &[]);
    assert_eq!(row(&status, "tasks")["state"], "approved");
    assert_eq!(code, 0);

    // The design changes: its approval and the tasks' fall (docs/approvals.md, States).
    p.write(
        &format!("{dir}/design.md"),
        &format!("{DESIGN}\nSessions expire after a day.\n"),
    );
    let (status, code) = p.status("add-thing", &[]);
    assert_eq!(
        states(&status),
        [
            "proposal=approved",
            "specs=approved",
            "design=changed",
            "tasks=reset"
        ]
    );
    assert_eq!(
        row(&status, "tasks")["reset_by"],
        serde_json::json!(["design"])
    );
    assert_eq!(code, 1);
    p.approve("add-thing", "design", &[]);
    let (status, _) = p.status("add-thing", &[]);
    assert_eq!(
        row(&status, "tasks")["state"],
        "reset",
        "tasks stood on the old design"
    );
    p.approve("add-thing", "tasks", &[]);

    // A second capability: the specs set grows, the tasks fall with it.
    p.write(&format!("{dir}/specs/billing/spec.md"), &spec("billing"));
    p.openspec(&["validate", "add-thing", "--strict"]);
    let (status, _) = p.status("add-thing", &[]);
    assert_eq!(
        states(&status),
        [
            "proposal=approved",
            "specs=changed",
            "design=approved",
            "tasks=reset"
        ]
    );
    let changes = &row(&status, "specs")["changes"];
    assert_eq!(changes[0]["change"], "added");
    assert_eq!(
        changes[0]["new"]["path"],
        format!("{dir}/specs/billing/spec.md")
    );
    p.approve("add-thing", "specs", &[]);
    p.approve("add-thing", "tasks", &[]);
    assert_eq!(p.status("add-thing", &[]).1, 0);

    // OpenSpec archives the change: the approvals held until the end.
    p.openspec(&["archive", "add-thing", "--yes"]);
    assert!(!p.s.w().join(&dir).exists());
    let (status, code) = p.status("add-thing", &[]);
    assert_eq!(status["location"]["state"], "archived");
    let archived = status["location"]["directory"].as_str().unwrap();
    assert!(
        archived.starts_with("openspec/changes/archive/") && archived.ends_with("-add-thing"),
        "{archived}"
    );
    assert_eq!(
        states(&status),
        [
            "proposal=archived",
            "specs=archived",
            "design=archived",
            "tasks=archived"
        ]
    );
    assert_eq!(status["schema"]["name"], "spec-driven");
    assert_eq!(code, 0);
    let text = p.status_text("add-thing");
    assert!(
        text.contains("archived in openspec/changes/archive/"),
        "{text}"
    );
}

/// A delta is approved against the baseline it modifies: the main spec
/// edited after the approval makes `specs` changed (naming the baseline) and
/// resets `tasks`; approved again, OpenSpec's archive applies it.
#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn a_moved_baseline_changes_the_specs_approval() {
    let p = Project::new();
    // The baseline: a first change adding the capability, archived by OpenSpec.
    spec_driven_change(&p, "add-auth");
    p.openspec(&["archive", "add-auth", "--yes"]);
    let baseline = "openspec/specs/auth/spec.md";
    assert!(p.read(baseline).contains("### Requirement: Use auth"));

    let dir = spec_driven_change(&p, "tune-auth");
    p.write(
        &format!("{dir}/specs/auth/spec.md"),
        &spec("auth").replace("## ADDED Requirements", "## MODIFIED Requirements"),
    );
    p.openspec(&["validate", "tune-auth", "--strict"]);
    for artifact in ["proposal", "specs", "design", "tasks"] {
        p.approve("tune-auth", artifact, &[]);
    }
    assert_eq!(p.status("tune-auth", &[]).1, 0);

    // Someone edits the main spec the delta was approved against.
    let moved = p
        .read(baseline)
        .replace("once they are signed in", "once signed in");
    p.write(baseline, &moved);
    let (status, code) = p.status("tune-auth", &[]);
    assert_eq!(
        states(&status),
        [
            "proposal=approved",
            "specs=changed",
            "design=approved",
            "tasks=reset"
        ]
    );
    assert_eq!(code, 1);
    assert_eq!(
        row(&status, "specs")["baselines_moved"],
        serde_json::json!([baseline])
    );
    let text = p.status_text("tune-auth");
    assert!(
        text.contains(&format!("baseline moved since approval: {baseline}")),
        "{text}"
    );

    // Reviewed against the new baseline and approved again: the archive applies it.
    p.approve("tune-auth", "specs", &[]);
    assert_eq!(p.status("tune-auth", &[]).1, 0);
    p.openspec(&["archive", "tune-auth", "--yes"]);
    let (status, code) = p.status("tune-auth", &[]);
    assert_eq!(status["location"]["state"], "archived");
    assert_eq!(code, 0, "{status}");
}

/// A project schema made from OpenSpec's own (`openspec schema fork`): a
/// proposal, then the tasks.
const RAPID: &str = "name: rapid
version: 1
description: A proposal, then the tasks
artifacts:
  - id: proposal
    generates: proposal.md
    description: Why and what
    template: proposal.md
    requires: []
  - id: tasks
    generates: tasks.md
    description: The checklist
    template: tasks.md
    requires:
      - proposal
apply:
  requires: [tasks]
  tracks: tasks.md
";

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn a_project_openspec_init_made_reads_openspec_task_lines_without_being_told() {
    // No `ledger:` key anywhere: the config.yaml `openspec init` wrote is enough.
    let p = Project::new();
    assert!(!p.read("openspec/config.yaml").contains("ledger:"));
    let dir = spec_driven_change(&p, "add-thing");
    for artifact in ["proposal", "specs", "design", "tasks"] {
        p.approve("add-thing", artifact, &[]);
    }
    let (status, _) = p.status("add-thing", &[]);
    let rule = &row(&status, "tasks")["binding"]["inventory"]["scope"]["task_rules"];
    assert_eq!(
        rule[format!("{dir}/tasks.md")],
        "openspec-checkbox",
        "{status}"
    );
    // The apply phase ticks OpenSpec's lines: progress, not a change.
    p.write(
        &format!("{dir}/tasks.md"),
        &TASKS.replace("- [ ] 1.1", "- [x] 1.1"),
    );
    let (status, code) = p.status("add-thing", &[]);
    assert_eq!(row(&status, "tasks")["state"], "approved", "{status}");
    assert_eq!(code, 0);
    // Editing a task's text is a change.
    p.write(
        &format!("{dir}/tasks.md"),
        &TASKS.replace(
            "- [ ] 1.1 Add the sign-in form",
            "- [x] 1.1 Add the sign-up form",
        ),
    );
    assert_eq!(
        row(&p.status("add-thing", &[]).0, "tasks")["state"],
        "changed"
    );
}

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn a_custom_schema_by_name_and_by_openspec_yaml() {
    let p = Project::new();
    p.openspec(&["schema", "fork", "spec-driven", "rapid"]);
    p.write("openspec/schemas/rapid/schema.yaml", RAPID);
    p.openspec(&["schema", "validate", "rapid"]);

    // A change made with the schema: OpenSpec records it (and, as the schema
    // generates no specs, skip_specs) in .openspec.yaml.
    p.openspec(&["new", "change", "quick-fix", "--schema", "rapid"]);
    let meta = p.read("openspec/changes/quick-fix/.openspec.yaml");
    assert!(
        meta.starts_with("schema: rapid\n") && meta.contains("skip_specs: true"),
        "{meta}"
    );
    p.write("openspec/changes/quick-fix/proposal.md", PROPOSAL);
    p.write("openspec/changes/quick-fix/tasks.md", TASKS);
    p.openspec(&["validate", "quick-fix", "--strict"]);
    // ledger reads the schema from .openspec.yaml: no flag needed.
    p.approve("quick-fix", "proposal", &[]);
    p.approve("quick-fix", "tasks", &[]);
    let (status, code) = p.status("quick-fix", &[]);
    assert_eq!(states(&status), ["proposal=approved", "tasks=approved"]);
    assert_eq!(code, 0);
    assert_eq!(status["schema"]["name"], "rapid");
    assert_eq!(
        status["schema"]["path"],
        "openspec/schemas/rapid/schema.yaml"
    );
    // And by name.
    let (by_name, code) = p.status("quick-fix", &["--schema", "rapid"]);
    assert_eq!((states(&by_name), code), (states(&status), 0));
    // The spec-driven graph is not this change's: its bindings were made with rapid.
    let (other, code) = p.status("quick-fix", &["--schema", "spec-driven"]);
    assert_eq!(other["schema_changed"][0]["reason"], "other-schema");
    assert_eq!(code, 1);

    // A change OpenSpec made with spec-driven, approved with --schema rapid:
    // status keeps the recorded graph, and says the change declares another.
    spec_driven_change(&p, "mixed");
    p.approve("mixed", "proposal", &["--schema", "rapid"]);
    p.approve("mixed", "tasks", &["--schema", "rapid"]);
    let (status, code) = p.status("mixed", &[]);
    assert_eq!(states(&status), ["proposal=approved", "tasks=approved"]);
    assert_eq!(status["schema_changed"][0]["reason"], "redeclared");
    assert_eq!(status["schema_changed"][0]["declared"], "spec-driven");
    assert_eq!(code, 1);
    assert_eq!(p.status("mixed", &["--schema", "rapid"]).1, 0);

    // The schema file itself changes: status says so.
    p.write(
        "openspec/schemas/rapid/schema.yaml",
        &RAPID.replace("A proposal, then the tasks", "Proposal first, tasks second"),
    );
    p.openspec(&["schema", "validate", "rapid"]);
    let (status, code) = p.status("quick-fix", &[]);
    assert_eq!(states(&status), ["proposal=approved", "tasks=approved"]);
    let changed = status["schema_changed"].as_array().unwrap();
    assert_eq!(changed.len(), 2);
    assert!(changed.iter().all(|c| c["reason"] == "content-changed"));
    assert_eq!(code, 1);
    let text = p.status_text("quick-fix");
    assert!(
        text.contains(
            "schema changed for proposal: the schema file changed since it was approved with rapid"
        ),
        "{text}"
    );

    // The project default (config.yaml) names the schema of a new change.
    p.write("openspec/config.yaml", "schema: rapid\n");
    p.openspec(&["new", "change", "by-default"]);
    assert!(
        p.read("openspec/changes/by-default/.openspec.yaml")
            .starts_with("schema: rapid\n")
    );
    let (status, _) = p.status("by-default", &[]);
    assert_eq!(states(&status), ["proposal=unbound", "tasks=unbound"]);

    // A name that is nowhere: a one-line coded error, and the CLI's hint.
    let out = p.ledger(&["status", "--change", "quick-fix", "--schema", "rapdi"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("error[unknown-schema]: "), "{err}");
    assert!(err.contains("(named by the caller)"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert_eq!(lines[1], "hint: give the schema file with --schema PATH");
}

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn a_change_that_skips_specs() {
    let p = Project::new();
    p.openspec(&["new", "change", "docs-only"]);
    let dir = "openspec/changes/docs-only";
    let meta = p.read(&format!("{dir}/.openspec.yaml"));
    p.write(
        &format!("{dir}/.openspec.yaml"),
        &format!("{meta}skip_specs: true\n"),
    );
    p.write(&format!("{dir}/proposal.md"), PROPOSAL);
    p.write(&format!("{dir}/design.md"), DESIGN);
    p.write(&format!("{dir}/notes/decision.md"), "# Decision: cookies\n");
    p.write(&format!("{dir}/tasks.md"), TASKS);
    p.openspec(&["validate", "docs-only", "--strict"]);
    for artifact in ["proposal", "design", "tasks"] {
        p.approve("docs-only", artifact, &[]);
    }
    let (status, code) = p.status("docs-only", &[]);
    assert_eq!(
        states(&status),
        [
            "proposal=approved",
            "specs=skipped",
            "design=approved",
            "tasks=approved"
        ]
    );
    assert_eq!(code, 0);
    assert!(
        p.status_text("docs-only")
            .contains("skipped: the change sets skip_specs")
    );
    // Nothing names a task rule here, but `openspec init` made the project:
    // OpenSpec's rule reads its lines, and a ticked task is progress.
    p.write(
        &format!("{dir}/tasks.md"),
        &TASKS.replace("- [ ] 1.1", "- [x] 1.1"),
    );
    let (status, code) = p.status("docs-only", &[]);
    assert_eq!(row(&status, "tasks")["state"], "approved");
    assert_eq!(code, 0);
}

impl Project {
    /// `ledger args --json` (or any verb printing JSON), with its exit code.
    fn ledger_json(&self, args: &[&str]) -> (Value, i32) {
        let out = self.ledger(args);
        let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr));
        });
        (json, out.status.code().unwrap())
    }
}

/// `kind path` of every change in a list of the finalization.
fn listed(changes: &Value) -> Vec<String> {
    let list = changes.as_array().unwrap().iter();
    list.map(|c| {
        format!(
            "{} {}",
            c["change"].as_str().unwrap(),
            c["new"]["path"].as_str().unwrap()
        )
    })
    .collect()
}

/// The lifecycle up to a PASS that stands: every artifact approved, the
/// handoff written while the tasks are done, a gate run over the delivery.
fn validated_project(name: &str) -> (Project, String) {
    let p = Project::new();
    let config = p.read("openspec/config.yaml");
    p.write(
        "openspec/config.yaml",
        &format!("{config}\nledger:\n  task_rule: openspec-checkbox\n"),
    );
    let dir = spec_driven_change(&p, name);
    p.write("src/login.rs", "pub fn login() {}\n");
    for artifact in ["proposal", "specs", "design", "tasks"] {
        p.approve(name, artifact, &[]);
    }
    let (set, code) = p.ledger_json(&[
        "state",
        "set",
        "--change",
        name,
        "--role",
        "implementation",
        "--outcome",
        "tasks approved",
        "--area",
        "web",
        "--next",
        "validation",
        "--json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        set["state"]["tasks_remaining"],
        serde_json::json!(["1.1", "1.2"])
    );
    assert_eq!(set["state"]["bindings"].as_array().unwrap().len(), 4);

    // OpenSpec's apply phase ticks the tasks: progress for the approvals, and
    // the ids the next handoff reads from the file.
    p.write(
        &format!("{dir}/tasks.md"),
        &TASKS
            .replace("- [ ] 1.1", "- [x] 1.1")
            .replace("- [ ] 1.2", "- [x] 1.2"),
    );
    let (set, _) = p.ledger_json(&[
        "state",
        "set",
        "--change",
        name,
        "--outcome",
        "tasks done",
        "--check",
        "make test=PASS",
        "--json",
    ]);
    assert_eq!(
        set["state"]["tasks_completed"],
        serde_json::json!(["1.1", "1.2"])
    );
    assert_eq!(set["state"]["tasks_remaining"], serde_json::json!([]));
    assert_eq!(set["state"]["role"], "implementation");
    assert_eq!(p.status(name, &[]).1, 0);

    let gate = p.ledger(&[
        "gate",
        "run",
        "--name",
        "test",
        "--root",
        "src",
        "--",
        "cat",
        "src/login.rs",
    ]);
    assert!(
        gate.status.success(),
        "{}",
        String::from_utf8_lossy(&gate.stderr)
    );
    let (pass, code) = p.ledger_json(&[
        "validate",
        "record",
        "--change",
        name,
        "--verdict",
        "PASS",
        "--source",
        "review 14",
        "--root",
        "src",
        "--gate",
        "test",
        "--json",
    ]);
    assert_eq!(code, 0);
    let validation = &pass["state"]["validation"];
    assert_eq!(validation["verdict"], "PASS");
    assert_eq!(validation["capabilities"], serde_json::json!(["auth"]));
    assert_eq!(validation["gates"][0]["gate"], "test");
    assert_eq!(pass["state"]["outcome"], "tasks done", "the handoff stays");
    let (check, code) = p.ledger_json(&["validate", "check", "--change", name, "--json"]);
    assert_eq!((check["stands"].as_bool(), code), (Some(true), 0));
    assert_eq!(check["gates"][0]["fresh"], true);
    (p, dir)
}

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn the_lifecycle_until_finalization() {
    let (p, dir) = validated_project("add-thing");
    // Nothing was archived yet: nothing to classify.
    let (before, code) = p.ledger_json(&["finalize", "check", "--change", "add-thing", "--json"]);
    assert_eq!((before["clean"].as_bool(), code), (Some(true), 0));
    assert!(before["archive_move"].is_null());

    p.openspec(&["archive", "add-thing", "--yes"]);
    assert!(!p.s.w().join(&dir).exists());
    let (done, code) = p.ledger_json(&["finalize", "check", "--change", "add-thing", "--json"]);
    assert_eq!(code, 0, "{done:#}");
    let moved = &done["archive_move"];
    assert_eq!(moved["from"], dir.as_str());
    let to = moved["to"].as_str().unwrap();
    assert!(
        to.starts_with("openspec/changes/archive/") && to.ends_with("-add-thing"),
        "{to}"
    );
    // .openspec.yaml, proposal, design, its material, the spec delta, tasks.
    assert_eq!(moved["files"].as_array().unwrap().len(), 6);
    assert_eq!(
        listed(&done["spec_sync"]),
        ["added openspec/specs/auth/spec.md"]
    );
    assert_eq!(listed(&done["new_changes"]), Vec::<String>::new());
    assert_eq!(done["completion_evidence"], serde_json::json!([]));
    let text = stdout(&p.ledger(&["finalize", "check", "--change", "add-thing"]));
    assert!(text.contains("archive move: 6 files"), "{text}");
    assert!(
        text.contains("spec sync (1):\n  added: openspec/specs/auth/spec.md"),
        "{text}"
    );

    // The completion evidence and a registry file are expected outputs too;
    // the stored PASS is not rewritten, and the retry reads only the envelope.
    p.write(&format!("{to}/completion-evidence.md"), "# Done\n");
    p.write("docs/changes.md", "add-thing: done\n");
    let (retry, code) = p.ledger_json(&[
        "finalize",
        "check",
        "--change",
        "add-thing",
        "--expect",
        "docs/changes.md",
        "--json",
    ]);
    assert_eq!(code, 0, "{retry:#}");
    assert_eq!(retry["record"], done["record"]);
    assert_eq!(
        listed(&retry["completion_evidence"]),
        [format!("added {to}/completion-evidence.md")]
    );
    assert_eq!(listed(&retry["registry"]), ["added docs/changes.md"]);
    let log = stdout(&p.ledger(&["state", "log", "--change", "add-thing"]));
    assert!(log.contains("  validation: PASS on sha256:"), "{log}");
    assert!(log.contains("  role: (none) -> implementation"), "{log}");
}

/// The work kinds `ledger check --json` lists for its first change.
fn work_kinds(report: &Value) -> Vec<String> {
    (report["changes"][0]["work"].as_array().unwrap().iter())
        .map(|w| w["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn resuming_with_one_check_until_the_archive() {
    let (p, dir) = validated_project("add-thing");
    let (report, code) = p.ledger_json(&["check", "--json"]);
    assert_eq!(code, 1, "an active change is work: {report:#}");
    assert_eq!(work_kinds(&report), ["archive"], "{report:#}");
    let change = &report["changes"][0];
    assert_eq!(change["validation"]["stands"], true);
    assert_eq!(change["validation"]["gates"][0]["fresh"], true);
    assert_eq!(change["tasks"]["done"], 2);
    assert_eq!(change["state"]["state"]["outcome"], "tasks done");
    let listed = stdout(&p.ledger(&["changes"]));
    assert!(
        listed.starts_with("add-thing")
            && listed.contains("active")
            && listed.contains("approvals 4/4"),
        "{listed}"
    );

    // A fix after the verdict: red again, the PASS and the gate both say why.
    p.write("src/login.rs", "pub fn login() { fixed() }\n");
    let (report, code) = p.ledger_json(&["check", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(
        work_kinds(&report),
        ["pass-changed", "gate-stale"],
        "{report:#}"
    );
    p.write("src/login.rs", "pub fn login() {}\n");

    p.openspec(&["archive", "add-thing", "--yes"]);
    assert!(!p.s.w().join(&dir).exists());
    let out = p.ledger(&["check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stdout(&out).ends_with("nothing to do\n"));
    let (named, code) = p.ledger_json(&["check", "--change", "add-thing", "--json"]);
    assert_eq!(
        code, 0,
        "archived, and its finalization checks out: {named:#}"
    );
    assert_eq!(named["changes"][0]["finalization"]["clean"], true);
    let (listed, _) = p.ledger_json(&["changes", "--json"]);
    assert_eq!(listed[0]["location"]["state"], "archived", "{listed:#}");
    assert_eq!(listed[0]["verdict"], "PASS");
}

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn a_delivery_file_edited_after_validation_blocks_finalization() {
    let (p, _) = validated_project("add-thing");
    p.write("src/login.rs", "pub fn login() { todo!() }\n");
    let (check, code) = p.ledger_json(&["validate", "check", "--change", "add-thing", "--json"]);
    assert_eq!((check["stands"].as_bool(), code), (Some(false), 1));
    assert_eq!(check["gates"][0]["fresh"], false);
    p.openspec(&["archive", "add-thing", "--yes"]);
    let out = p.ledger(&["finalize", "check", "--change", "add-thing"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("new changes (1):\n  content changed: src/login.rs"),
        "{text}"
    );
}

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn an_archived_file_altered_blocks_finalization() {
    let (p, _) = validated_project("add-thing");
    p.openspec(&["archive", "add-thing", "--yes"]);
    let (done, _) = p.ledger_json(&["finalize", "check", "--change", "add-thing", "--json"]);
    let to = done["archive_move"]["to"].as_str().unwrap().to_owned();
    p.write(
        &format!("{to}/design.md"),
        &format!("{DESIGN}\nEdited in the archive.\n"),
    );
    let (done, code) = p.ledger_json(&["finalize", "check", "--change", "add-thing", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(
        listed(&done["new_changes"]),
        [format!("content-changed {to}/design.md")]
    );
    assert_eq!(done["archive_move"]["files"].as_array().unwrap().len(), 5);
}

#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn a_spec_replaced_after_the_archive_blocks_finalization() {
    let (p, _) = validated_project("add-thing");
    p.openspec(&["archive", "add-thing", "--yes"]);
    // What openspec archive wrote is the expected sync...
    let (done, code) = p.ledger_json(&["finalize", "check", "--change", "add-thing", "--json"]);
    assert_eq!(code, 0, "{done:#}");
    assert_eq!(done["spec_mismatches"], serde_json::json!([]));
    // ...unrelated text in its place is a new change naming the headers.
    p.write(
        "openspec/specs/auth/spec.md",
        "# auth\n\nSomething else entirely.\n",
    );
    let (done, code) = p.ledger_json(&["finalize", "check", "--change", "add-thing", "--json"]);
    assert_eq!(
        (code, done["clean"].as_bool()),
        (1, Some(false)),
        "{done:#}"
    );
    assert_eq!(
        listed(&done["new_changes"]),
        ["added openspec/specs/auth/spec.md"]
    );
    let mismatch = &done["spec_mismatches"][0];
    assert_eq!(mismatch["capability"], "auth");
    let headers = mismatch["headers"].as_array().unwrap();
    assert!(
        headers
            .iter()
            .any(|h| h.as_str().unwrap().starts_with("### Requirement: ")),
        "{mismatch:#}"
    );
    let out = p.ledger(&["finalize", "check", "--change", "add-thing"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("spec sync differs from the approved deltas (1):\n  capability auth"),
        "{text}"
    );
}

/// The `ledger.toml` of the day below: `lint` and `test` (which needs it),
/// each appending its name to `runs` (outside the workspace) when it runs.
fn declared_gates(p: &Project) -> PathBuf {
    let runs = p.s.dir.path().join("runs");
    std::fs::write(&runs, "").unwrap();
    let r = runs.display();
    p.write(
        "ledger.toml",
        &format!(
            r#"[gates.lint]
command = ["sh", "-c", "echo lint >> '{r}'; echo lint ok; grep -q login src/login.rs"]
roots = ["src"]
purpose = "the sources name what they do"

[gates.test]
command = ["sh", "-c", "echo test >> '{r}'; echo test ok; cat src/login.rs"]
roots = ["src"]
needs = ["lint"]
"#
        ),
    );
    runs
}

fn ran(runs: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(runs).unwrap();
    text.lines().map(str::to_owned).collect()
}

/// A day with ledger, end to end on a repository the real OpenSpec CLI made:
/// gates declared once and run with `--all` (then reused, replayed), an
/// audit's verdict recorded before the fixes, one `ledger check` to resume,
/// a fix after the verdict that the check, the gates and the verdict all
/// see, the explicit downgrade, the re-run and re-validation, the archive.
#[test]
#[ignore = "needs the OpenSpec CLI: make openspec-test"]
fn a_day_with_ledger_from_the_first_gate_to_the_archive() {
    let p = Project::new();
    let name = "add-login";
    let dir = spec_driven_change(&p, name);
    p.write("src/login.rs", "pub fn login() {}\n");
    let runs = declared_gates(&p);
    for artifact in ["proposal", "specs", "design", "tasks"] {
        p.approve(name, artifact, &[]);
    }

    // Morning: every declared gate, in dependency order.
    let first = p.ledger(&["gate", "run", "--all"]);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(ran(&runs), ["lint", "test"]);
    let again = p.ledger(&["gate", "run", "--all", "--replay"]);
    assert_eq!(again.status.code(), Some(0));
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(
        said.contains("reused (fresh, not run): lint, test"),
        "{said}"
    );
    assert_eq!(
        stdout(&again),
        "lint ok\ntest ok\npub fn login() {}\n",
        "replayed"
    );
    assert_eq!(ran(&runs), ["lint", "test"], "reused, not run");
    assert!(
        stdout(&p.ledger(&["gate", "check", "--all"])).ends_with("all 2 declared gate(s) fresh\n")
    );

    // The audit's verdict, recorded before any fix, its report beside it.
    let (verdict, code) = p.ledger_json(&[
        "verdict",
        "record",
        "--name",
        "pr-7",
        "--verdict",
        "PASS",
        "--source",
        "review 7",
        "--root",
        "src",
        "--root",
        "reports",
        "--report",
        "reports/summary-7.md",
        "--finding",
        "minor: login has no doc comment",
        "--json",
    ]);
    assert_eq!(code, 0);
    p.write("reports/summary-7.md", "PASS, one minor finding\n");
    assert_eq!(
        p.ledger(&["verdict", "check", "--name", "pr-7"])
            .status
            .code(),
        Some(0)
    );

    // The tasks ticked, the handoff, the PASS on the declared gate.
    p.write(
        &format!("{dir}/tasks.md"),
        &TASKS
            .replace("- [ ] 1.1", "- [x] 1.1")
            .replace("- [ ] 1.2", "- [x] 1.2"),
    );
    let handoff = p.ledger(&[
        "state",
        "set",
        "--change",
        name,
        "--role",
        "implementation",
        "--outcome",
        "tasks done",
        "--next",
        "validation",
    ]);
    assert!(
        handoff.status.success(),
        "{}",
        String::from_utf8_lossy(&handoff.stderr)
    );
    let validate = [
        "validate",
        "record",
        "--change",
        name,
        "--verdict",
        "PASS",
        "--source",
        "review 7",
        "--root",
        "src",
        "--gate",
        "test",
        "--gate",
        "lint",
    ];
    let pass = p.ledger(&validate);
    assert!(
        pass.status.success(),
        "{}",
        String::from_utf8_lossy(&pass.stderr)
    );

    // A restart: one call says what is left.
    let (report, code) = p.ledger_json(&["check", "--json"]);
    assert_eq!(
        (code, work_kinds(&report)),
        (1, vec!["archive".to_owned()]),
        "{report:#}"
    );

    // Afternoon: a fix after the verdict. Everything bound to src/ sees it.
    p.write("src/login.rs", "/// Signs in.\npub fn login() {}\n");
    let (report, code) = p.ledger_json(&["check", "--json"]);
    assert_eq!(code, 1);
    let kinds = work_kinds(&report);
    assert!(
        kinds.contains(&"pass-changed".to_owned()) && kinds.contains(&"gate-stale".to_owned()),
        "{report:#}"
    );
    let stale = p.ledger(&["gate", "check", "--all"]);
    assert_eq!(stale.status.code(), Some(1));
    assert!(stdout_any(&stale).contains("2 of 2 declared gate(s) stale: lint, test"));
    let (fallen, code) = p.ledger_json(&["verdict", "check", "--name", "pr-7", "--json"]);
    assert_eq!((code, fallen["stands"].as_bool()), (1, Some(false)));
    let changed: Vec<&str> = fallen["comparison"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["new"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        changed,
        ["src/login.rs"],
        "the report is not a change: {fallen:#}"
    );

    // The fix is not re-audited: an explicit downgrade, bound to the state now.
    let (lowered, code) = p.ledger_json(&[
        "verdict",
        "downgrade",
        "--name",
        "pr-7",
        "--to",
        "PASS-WITH-RISKS",
        "--reason",
        "doc comment added after the audit",
        "--expect",
        verdict["record"].as_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(lowered["downgrade"]["from"], "PASS");
    assert_eq!(
        p.ledger(&["verdict", "check", "--name", "pr-7"])
            .status
            .code(),
        Some(0)
    );
    let log = stdout(&p.ledger(&["verdict", "log", "--name", "pr-7"]));
    assert!(
        log.starts_with(&format!(
            "{} downgraded PASS-WITH-RISKS",
            lowered["written_at"].as_str().unwrap()
        )),
        "{log}"
    );

    // The gates run again (none is fresh), the PASS is given again.
    let rerun = p.ledger(&["gate", "run", "--all"]);
    assert_eq!(rerun.status.code(), Some(0));
    assert_eq!(ran(&runs), ["lint", "test", "lint", "test"]);
    let pass = p.ledger(&validate);
    assert!(
        pass.status.success(),
        "{}",
        String::from_utf8_lossy(&pass.stderr)
    );
    let (report, _) = p.ledger_json(&["check", "--json"]);
    assert_eq!(work_kinds(&report), ["archive"], "{report:#}");

    // Evening: the archive; nothing is left to do.
    p.openspec(&["archive", name, "--yes"]);
    let done = p.ledger(&["check"]);
    assert_eq!(done.status.code(), Some(0), "{}", stdout_any(&done));
    assert!(stdout(&done).ends_with("nothing to do\n"));
}

/// Stdout whatever the exit status.
fn stdout_any(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}
