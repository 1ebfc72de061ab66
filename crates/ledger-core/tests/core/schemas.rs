//! Schemas as OpenSpec resolves them (docs/approvals.md, Schemas): by name, from the
//! change's `.openspec.yaml` and the project's `config.yaml`, `skip_specs`,
//! `apply.tracks`, and the schema recorded with every binding.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use camino::Utf8Path;
use ledger_core::{
    approval::{
        Absence, ApprovalState, ApprovalStatus, Binding, SchemaChangeReason, StateEnvelope,
        approve, evaluate, status,
    },
    openspec::{ArtifactGraph, ChangeSet, DEFAULT_CHANGES_ROOT, SchemaChoice},
    records::Store,
};

const CHANGE: &str = "openspec/changes/add-thing";

/// proposal → plan, where plan generates `todo/*.md` and is tracked.
const RAPID: &str = "name: rapid\nversion: 1\nartifacts:\n  - id: proposal\n    generates: proposal.md\n    requires: []\n  - id: plan\n    generates: todo/*.md\n    requires: [proposal]\napply:\n  requires: [plan]\n  tracks: todo/*.md\n";

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let project = Project {
            dir: tempfile::tempdir().unwrap(),
        };
        project.write("openspec/schemas/rapid/schema.yaml", RAPID);
        project.write(&format!("{CHANGE}/proposal.md"), "# Why\n");
        project.write(&format!("{CHANGE}/todo/a.md"), "- [ ] 1.1 [core] A\n");
        project.write(&format!("{CHANGE}/todo/b.md"), "- [ ] 2.1 [core] B\n");
        project
    }

    fn ws(&self) -> &Utf8Path {
        Utf8Path::from_path(self.dir.path()).unwrap()
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn metadata(&self, text: &str) {
        self.write(&format!("{CHANGE}/.openspec.yaml"), text);
    }

    fn open(&self, schema: Option<&str>) -> ChangeSet {
        ChangeSet::open(self.ws(), "add-thing", DEFAULT_CHANGES_ROOT, schema).unwrap()
    }

    fn store(&self) -> Store {
        Store::open(ledger_testkit::utf8(self.dir.path())).unwrap()
    }

    fn approve_all(&self, schema: Option<&str>) {
        let change = self.open(schema);
        for a in change.graph().artifacts() {
            approve(&self.store(), &change, &a.id, "msg", Absence::Refuse).unwrap();
        }
    }

    fn status(&self, schema: Option<&str>) -> ApprovalStatus {
        status(&self.store(), &self.open(schema)).unwrap()
    }
}

fn ids(graph: &ArtifactGraph) -> Vec<&str> {
    graph.artifacts().iter().map(|a| a.id.as_str()).collect()
}

fn states(status: &ApprovalStatus) -> Vec<(&str, ApprovalState)> {
    let rows = status.artifacts.iter();
    rows.map(|a| (a.artifact.as_str(), a.state)).collect()
}

fn reasons(status: &ApprovalStatus) -> Vec<(&str, &str)> {
    let changed = status.schema_changed.iter();
    changed
        .map(|c| (c.artifact.as_str(), c.reason.code()))
        .collect()
}

#[test]
fn a_name_resolves_in_the_project_and_its_tracked_artifact_is_normalized() {
    let p = Project::new();
    let change = p.open(Some("rapid"));
    assert_eq!(ids(change.graph()), ["proposal", "plan"]);
    let schema = change.graph().schema().unwrap();
    assert_eq!(schema.name.as_deref(), Some("rapid"));
    assert_eq!(
        schema.path.as_deref(),
        Some("openspec/schemas/rapid/schema.yaml")
    );
    assert_eq!(*change.schema_choice(), SchemaChoice::Given);
    // apply.tracks equals plan's generates: both of plan's files are normalized.
    let scope = change.scope("plan").unwrap();
    let normalized: Vec<&str> = scope.tasks_paths().map(|p| p.as_str()).collect();
    assert_eq!(
        normalized,
        [format!("{CHANGE}/todo/a.md"), format!("{CHANGE}/todo/b.md")]
    );
    assert!(scope.paths().is_empty());
    // A built-in name, and one that is nowhere.
    assert_eq!(
        ids(p.open(Some("spec-driven")).graph()),
        ["proposal", "specs", "design", "tasks"]
    );
    let err =
        ChangeSet::open(p.ws(), "add-thing", DEFAULT_CHANGES_ROOT, Some("rapdi")).unwrap_err();
    assert_eq!(err.code(), "unknown-schema");
    let text = err.to_string();
    assert!(
        text.contains("(named by the caller)") && text.contains("name its schema file instead"),
        "{err}"
    );
    // A path is read as given.
    let path = p.ws().join("openspec/schemas/rapid/schema.yaml");
    let by_path = p.open(Some(path.as_str()));
    assert_eq!(by_path.graph().schema().unwrap().name, None);
    assert_eq!(by_path.graph().artifacts(), change.graph().artifacts());
}

#[test]
fn without_a_schema_the_change_and_the_project_declare_it() {
    let p = Project::new();
    // Nothing names one: spec-driven.
    let change = p.open(None);
    assert_eq!(*change.schema_choice(), SchemaChoice::Default);
    assert_eq!(
        ids(change.graph()),
        ["proposal", "specs", "design", "tasks"]
    );
    // The project default.
    p.write("openspec/config.yaml", "schema: rapid\n");
    let change = p.open(None);
    assert_eq!(ids(change.graph()), ["proposal", "plan"]);
    assert_eq!(
        *change.schema_choice(),
        SchemaChoice::Declared {
            name: "rapid".into(),
            file: "openspec/config.yaml".into()
        }
    );
    // The change's own .openspec.yaml wins over the project default.
    p.metadata("schema: spec-driven\ncreated: 2026-12-01\n");
    let change = p.open(None);
    assert_eq!(
        ids(change.graph()),
        ["proposal", "specs", "design", "tasks"]
    );
    assert_eq!(
        *change.schema_choice(),
        SchemaChoice::Declared {
            name: "spec-driven".into(),
            file: format!("{CHANGE}/.openspec.yaml")
        }
    );
    // A name that climbs out is refused, naming the file.
    p.metadata("schema: ../../x\n");
    let err = ChangeSet::open(p.ws(), "add-thing", DEFAULT_CHANGES_ROOT, None).unwrap_err();
    assert_eq!(err.code(), "bad-openspec-config");
    assert!(err.to_string().contains(".openspec.yaml"), "{err}");
    // An unknown name names the file that declared it.
    p.metadata("schema: lean\n");
    let err = ChangeSet::open(p.ws(), "add-thing", DEFAULT_CHANGES_ROOT, None).unwrap_err();
    assert_eq!(err.code(), "unknown-schema");
    assert!(err.to_string().contains(".openspec.yaml"), "{err}");
}

#[test]
fn a_change_that_skips_specs_needs_no_spec_approval() {
    let p = Project::new();
    p.metadata("schema: spec-driven\nskip_specs: true\n");
    p.write(&format!("{CHANGE}/design.md"), "# How\n");
    p.write(&format!("{CHANGE}/tasks.md"), "- [ ] 1.1 [core] A\n");
    let change = p.open(None);
    let store = p.store();
    for a in ["proposal", "design", "tasks"] {
        approve(&store, &change, a, "msg", Absence::Refuse).unwrap();
    }
    let s = p.status(None);
    assert_eq!(
        states(&s),
        [
            ("proposal", ApprovalState::Approved),
            ("specs", ApprovalState::Skipped),
            ("design", ApprovalState::Approved),
            ("tasks", ApprovalState::Approved)
        ]
    );
    assert!(s.all_approved(), "{s:?}");
    // A spec file appears after all: specs needs a decision, tasks stood on none.
    p.write(
        &format!("{CHANGE}/specs/auth/spec.md"),
        "## ADDED Requirements\n",
    );
    let s = p.status(None);
    assert_eq!(s.artifacts[1].state, ApprovalState::Unbound);
    assert_eq!(s.artifacts[3].state, ApprovalState::Reset);
    assert_eq!(s.artifacts[3].reset_by, ["specs"]);
    // Without the marker, an empty specs set is unbound.
    p.metadata("schema: spec-driven\n");
    std::fs::remove_dir_all(p.dir.path().join(CHANGE).join("specs")).unwrap();
    assert_eq!(p.status(None).artifacts[1].state, ApprovalState::Unbound);
}

#[test]
fn status_uses_the_schema_recorded_with_the_bindings() {
    let p = Project::new();
    p.metadata("schema: rapid\ncreated: 2026-12-01\n");
    p.approve_all(None);
    let envelope = ledger_core::approval::current_state(&p.store(), "add-thing")
        .unwrap()
        .1;
    for b in &envelope.bindings {
        let schema = b.schema.as_ref().unwrap();
        assert_eq!(schema.name.as_deref(), Some("rapid"));
        assert!(schema.sha256.unwrap().to_string().starts_with("sha256:"));
    }
    let s = p.status(None);
    assert!(s.all_approved(), "{s:?}");
    assert_eq!(s.schema.as_ref().unwrap().name.as_deref(), Some("rapid"));

    // Ticking a tracked file's box is progress.
    p.write(&format!("{CHANGE}/todo/a.md"), "- [x] 1.1 [core] A\n");
    assert!(p.status(None).all_approved());

    // The change now declares another schema: status still reads the recorded
    // graph, and says the change was redeclared.
    p.metadata("schema: spec-driven\n");
    let s = p.status(None);
    assert_eq!(ids_of(&s), ["proposal", "plan"]);
    assert_eq!(
        reasons(&s),
        [("proposal", "redeclared"), ("plan", "redeclared")]
    );
    assert!(!s.all_approved());
    assert_eq!(
        s.schema_changed[0].reason,
        SchemaChangeReason::Redeclared {
            declared: "spec-driven".into()
        }
    );
    // Naming the schema explicitly evaluates with it: the bindings were made with another.
    let s = p.status(Some("spec-driven"));
    assert_eq!(ids_of(&s), ["proposal", "specs", "design", "tasks"]);
    assert_eq!(
        reasons(&s),
        [("proposal", "other-schema"), ("plan", "other-schema")]
    );
    let s = p.status(Some("rapid"));
    assert!(s.all_approved(), "{s:?}");

    // The schema file itself changes: same graph, other bytes; status says so.
    p.metadata("schema: rapid\n");
    p.write(
        "openspec/schemas/rapid/schema.yaml",
        &RAPID.replace("version: 1", "version: 1\ndescription: faster"),
    );
    let s = p.status(None);
    assert_eq!(
        reasons(&s),
        [("proposal", "content-changed"), ("plan", "content-changed")]
    );
    assert!(
        s.artifacts
            .iter()
            .all(|a| a.state == ApprovalState::Approved)
    );
    // Re-approving records the new bytes.
    p.approve_all(None);
    assert!(p.status(None).all_approved());
}

fn ids_of(status: &ApprovalStatus) -> Vec<&str> {
    status
        .artifacts
        .iter()
        .map(|a| a.artifact.as_str())
        .collect()
}

#[test]
fn approvals_without_a_recorded_schema_read_as_spec_driven() {
    let p = Project::new();
    p.write(&format!("{CHANGE}/tasks.md"), "- [ ] 1.1 [core] A\n");
    let change = p.open(None);
    let mut envelope = StateEnvelope::new("add-thing");
    let proposal = change.inventory("proposal").unwrap();
    envelope.bind(Binding {
        change: "add-thing".into(),
        artifact: "proposal".into(),
        fingerprint: proposal.fingerprint,
        source: "s".into(),
        observed_at: "t".into(),
        upstream: Default::default(),
        inventory: None,
        schema: None,
        baselines: None,
    });
    let s = evaluate(&change, &envelope);
    assert!(s.schema_changed.is_empty(), "{s:?}");
    assert_eq!(s.artifacts[0].state, ApprovalState::Approved);
    // Evaluated with another schema, the old binding was made with another one.
    let s = evaluate(&p.open(Some("rapid")), &envelope);
    assert_eq!(reasons(&s), [("proposal", "other-schema")]);
    assert_eq!(s.schema_changed[0].recorded, None);
}

#[test]
fn glob_sets_skip_dot_files_as_openspec_does() {
    let p = Project::new();
    p.write(&format!("{CHANGE}/specs/auth/spec.md"), "## ADDED\n");
    p.write(&format!("{CHANGE}/specs/auth/notes.md"), "notes\n");
    p.write(&format!("{CHANGE}/specs/.drafts/x.md"), "draft\n");
    p.write(&format!("{CHANGE}/specs/auth/.wip.md"), "draft\n");
    p.write(&format!("{CHANGE}/specs/auth/readme.txt"), "not markdown\n");
    let scope = p.open(None).scope("specs").unwrap();
    let paths: Vec<&str> = scope.paths().iter().map(|p| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            format!("{CHANGE}/specs/auth/notes.md"),
            format!("{CHANGE}/specs/auth/spec.md")
        ]
    );
}

#[test]
fn the_tracked_artifact_gives_the_rule_its_files_and_the_task_ids() {
    let p = Project::new();
    // A schema that tracks `checklist.md` (OpenSpec's rule: the artifact whose
    // generates equals apply.tracks), with OpenSpec's own task lines.
    let lean = "name: lean\nversion: 1\nartifacts:\n  - {id: proposal, generates: proposal.md}\n  - {id: checklist, generates: checklist.md, requires: [proposal]}\napply:\n  requires: [checklist]\n  tracks: checklist.md\n";
    p.write("openspec/schemas/lean/schema.yaml", lean);
    p.write(
        &format!("{CHANGE}/checklist.md"),
        "- [x] 1.1 Do one thing\n- [ ] 1.2 Do another\n",
    );
    p.metadata("schema: lean\n");
    let change = p.open(None);
    assert_eq!(change.graph().tracked().unwrap().id, "checklist");
    let tasks = change.tasks().unwrap();
    assert_eq!(tasks.path.as_str(), format!("{CHANGE}/checklist.md"));
    // The default rule (task-checkbox-v1) knows no OpenSpec line; the project
    // names OpenSpec's rule in config.yaml, and the ids come from the file.
    assert_eq!(tasks.tasks.total, 0);
    p.write(
        "openspec/config.yaml",
        "schema: spec-driven\nledger:\n  task_rule: openspec-checkbox\n",
    );
    let change = p.open(None);
    assert_eq!(
        change.task_rule(),
        ledger_core::tasks::TaskRule::OpenspecCheckbox
    );
    let tasks = change.tasks().unwrap();
    assert_eq!(tasks.tasks.completed_ids(), ["1.1"]);
    assert_eq!(tasks.tasks.remaining_ids(), ["1.2"]);
    // Ticking a box under the chosen rule is progress.
    let store = p.store();
    approve(&store, &change, "proposal", "m", Absence::Refuse).unwrap();
    approve(&store, &change, "checklist", "m", Absence::Refuse).unwrap();
    p.write(
        &format!("{CHANGE}/checklist.md"),
        "- [x] 1.1 Do one thing\n- [X] 1.2 Do another\n",
    );
    assert!(p.status(None).all_approved());
    assert_eq!(
        p.open(None).tasks().unwrap().tasks.remaining_ids(),
        Vec::<&str>::new()
    );
}

/// A project's own `spec-driven` in which tasks stands on the proposal alone.
const LOOSE_SPEC_DRIVEN: &str = "name: spec-driven\nversion: 1\nartifacts:\n  - id: proposal\n    generates: proposal.md\n    requires: []\n  - id: design\n    generates: design.md\n    requires: [proposal]\n  - id: tasks\n    generates: tasks.md\n    requires: [proposal]\napply:\n  requires: [tasks]\n  tracks: tasks.md\n";

#[test]
fn a_projects_own_spec_driven_is_the_default_and_another_schema_than_the_built_in() {
    let p = Project::new();
    p.write(&format!("{CHANGE}/design.md"), "# Design\n");
    p.write(&format!("{CHANGE}/tasks.md"), "- [ ] 1.1 [core] A\n");
    p.write(&format!("{CHANGE}/specs/a/spec.md"), "# A\n");
    p.approve_all(None);
    assert!(p.status(None).all_approved());
    // The project now has its own spec-driven: nothing names a schema, so it is
    // the default (as OpenSpec resolves it), and the approvals were made with
    // another schema, so they no longer stand unreported.
    p.write(
        "openspec/schemas/spec-driven/schema.yaml",
        LOOSE_SPEC_DRIVEN,
    );
    let change = p.open(None);
    assert_eq!(ids(change.graph()), ["proposal", "design", "tasks"]);
    assert_eq!(
        change.graph().schema().unwrap().path.as_deref(),
        Some("openspec/schemas/spec-driven/schema.yaml")
    );
    let now = p.status(None);
    assert!(!now.all_approved());
    assert!(
        reasons(&now).iter().all(|(_, r)| *r == "other-schema"),
        "{:?}",
        reasons(&now)
    );
    // Design is re-approved after an edit: tasks, approved on the old design,
    // is reset even though this graph no longer links the two.
    p.write(&format!("{CHANGE}/design.md"), "# Design, edited\n");
    approve(&p.store(), &change, "design", "msg", Absence::Refuse).unwrap();
    let tasks = p.status(None);
    let row = tasks
        .artifacts
        .iter()
        .find(|a| a.artifact == "tasks")
        .unwrap();
    assert_eq!(row.state, ApprovalState::Reset, "{row:?}");
    assert_eq!(row.reset_by, ["design"]);
}

#[test]
fn a_tracked_design_keeps_its_linked_materials() {
    let p = Project::new();
    let schema = "name: design-first\nversion: 1\nartifacts:\n  - id: proposal\n    generates: proposal.md\n    requires: []\n  - id: design\n    generates: design.md\n    requires: [proposal]\napply:\n  requires: [design]\n  tracks: design.md\n";
    p.write("openspec/schemas/design-first/schema.yaml", schema);
    p.write(
        &format!("{CHANGE}/design.md"),
        "# Design\n\n![flow](flow.txt)\n- [ ] 1.1 [core] A\n",
    );
    p.write(&format!("{CHANGE}/flow.txt"), "a -> b\n");
    let change = p.open(Some("design-first"));
    let scope = change.scope("design").unwrap();
    let paths: Vec<&str> = scope.paths().iter().map(|p| p.as_str()).collect();
    assert_eq!(paths, [format!("{CHANGE}/flow.txt")]);
    p.approve_all(Some("design-first"));
    assert!(p.status(Some("design-first")).all_approved());
    p.write(&format!("{CHANGE}/flow.txt"), "a -> c\n");
    let now = p.status(Some("design-first"));
    let row = now
        .artifacts
        .iter()
        .find(|a| a.artifact == "design")
        .unwrap();
    assert_eq!(row.state, ApprovalState::Changed, "{row:?}");
}

#[test]
fn a_schema_given_by_path_is_recorded_where_a_later_status_finds_it() {
    let p = Project::new();
    // Inside the workspace: recorded workspace-relative, so it is found again
    // from any directory.
    let inside = p.ws().join("openspec/schemas/rapid/schema.yaml");
    let change = p.open(Some(inside.as_str()));
    let recorded = change.graph().schema().unwrap().clone();
    assert_eq!(
        recorded.path.as_deref(),
        Some("openspec/schemas/rapid/schema.yaml")
    );
    assert_eq!(recorded.name, None);
    let again = change.with_recorded_schema(&recorded).unwrap();
    assert_eq!(again.graph().artifacts(), change.graph().artifacts());
    // Outside: recorded by its absolute path, and never read on a record's word.
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("schema.yaml");
    std::fs::write(&outside, RAPID).unwrap();
    let change = p.open(Some(outside.to_str().unwrap()));
    let recorded = change.graph().schema().unwrap().clone();
    assert_eq!(recorded.path.as_deref(), outside.to_str());
    let err = change.with_recorded_schema(&recorded).unwrap_err();
    assert_eq!(err.code(), "invalid-argument");
    assert!(
        err.to_string().contains("name that schema file again"),
        "{err}"
    );
}
