"""OpenSpec schemas (docs/approvals.md, Schemas): by name, from the change's
`.openspec.yaml` and the project's `config.yaml`, `skip_specs`, the tracked
artifact, and the schema recorded with every binding."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import ledger
from conftest import write

NAME = "add-thing"
D = f"openspec/changes/{NAME}"
SPEC_DRIVEN = ["proposal", "specs", "design", "tasks"]
# proposal → plan, where plan generates `todo/*.md` and is tracked.
RAPID = (
    "name: rapid\nversion: 1\nartifacts:\n"
    "  - id: proposal\n    generates: proposal.md\n    requires: []\n"
    "  - id: plan\n    generates: todo/*.md\n    requires: [proposal]\n"
    "apply:\n  requires: [plan]\n  tracks: todo/*.md\n"
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    write(tmp_path, "openspec/schemas/rapid/schema.yaml", RAPID)
    write(tmp_path, f"{D}/proposal.md", "# Why\n")
    write(tmp_path, f"{D}/todo/a.md", "- [ ] 1.1 [core] A\n")
    write(tmp_path, f"{D}/todo/b.md", "- [ ] 2.1 [core] B\n")
    return tmp_path


def metadata(ws: Path, text: str) -> None:
    write(ws, f"{D}/.openspec.yaml", text)


def ids(change: ledger.ChangeSet) -> list[str]:
    return [a.id for a in change.graph.artifacts]


def states(status: ledger.ApprovalStatus) -> list[str]:
    return [a.state for a in status.artifacts]


def reasons(status: ledger.ApprovalStatus) -> list[tuple[str, str]]:
    return [(c.artifact, c.reason) for c in status.schema_changed]


def approve_all(ws: Path, **kwargs: str) -> None:
    change = ledger.ChangeSet(ws, NAME, **kwargs)  # type: ignore[arg-type]
    for artifact in ids(change):
        ledger.approve(ledger.Store(ws), change, artifact, "msg")


def test_a_schema_by_name_in_the_project(ws: Path) -> None:
    change = ledger.ChangeSet(ws, NAME, schema="rapid")
    assert ids(change) == ["proposal", "plan"]
    schema = change.graph.schema
    assert schema is not None
    assert (schema.name, schema.path, schema.label) == (
        "rapid", "openspec/schemas/rapid/schema.yaml", "rapid"
    )
    assert schema.sha256 == "sha256:" + hashlib.sha256(RAPID.encode()).hexdigest()
    assert json.loads(schema.to_json()) == {"name": schema.name, "path": schema.path, "sha256": schema.sha256}
    # apply.tracks equals plan's generates: both of plan's files are normalized.
    assert change.graph.tracks == "todo/*.md"
    assert change.graph.tracked == ledger.Artifact("plan", "todo/*.md", ["proposal"])
    scope = change.scope("plan")
    assert scope.normalize == [f"{D}/todo/a.md", f"{D}/todo/b.md"] and scope.paths == []
    # A tracked glob is hashed, but not read as one Tasks file.
    with pytest.raises(ledger.InvalidArgumentError, match="glob"):
        change.tasks()

    # A built-in name; a path (inside the workspace: recorded workspace-relative);
    # a name found nowhere.
    builtin = ledger.ChangeSet(ws, NAME, schema=ledger.DEFAULT_SCHEMA).graph.schema
    assert builtin is not None and (builtin.name, builtin.path) == ("spec-driven", None)
    assert builtin == ledger.ArtifactGraph.spec_driven().schema
    path = str(ws / "openspec/schemas/rapid/schema.yaml")
    by_path = ledger.ChangeSet(ws, NAME, schema=path).graph
    assert by_path.schema is not None
    assert (by_path.schema.name, by_path.schema.path) == (None, "openspec/schemas/rapid/schema.yaml")
    assert by_path.artifacts == change.graph.artifacts
    assert by_path.schema.sha256 == schema.sha256
    assert not by_path.schema.same_schema(schema)
    with pytest.raises(ledger.UnknownSchemaError, match="--schema"):
        ledger.ChangeSet(ws, NAME, schema="rapdi")
    with pytest.raises(ledger.InvalidArgumentError):
        ledger.ChangeSet(ws, NAME, schema="rapid", graph=ledger.ArtifactGraph.spec_driven())
    # A graph built in code has no schema.
    assert ledger.ArtifactGraph([ledger.Artifact("a", "a.md")]).schema is None


def test_the_change_and_the_project_declare_the_schema(ws: Path) -> None:
    assert ids(ledger.ChangeSet(ws, NAME)) == SPEC_DRIVEN
    write(ws, "openspec/config.yaml", "schema: rapid\n")
    assert ids(ledger.ChangeSet(ws, NAME)) == ["proposal", "plan"]
    # The change's own .openspec.yaml wins over the project default.
    metadata(ws, "schema: spec-driven\ncreated: 2026-12-01\n")
    assert ids(ledger.ChangeSet(ws, NAME)) == SPEC_DRIVEN
    # An explicit schema wins over both.
    assert ids(ledger.ChangeSet(ws, NAME, schema="rapid")) == ["proposal", "plan"]
    metadata(ws, "schema: lean\n")
    with pytest.raises(ledger.UnknownSchemaError, match=r"\.openspec\.yaml"):
        ledger.ChangeSet(ws, NAME)
    for bad in ["schema: ../../x\n", "created: 2026-12-01\n", "schema: rapid\nskip_specs: maybe\n"]:
        metadata(ws, bad)
        with pytest.raises(ledger.BadOpenspecConfigError) as info:
            ledger.ChangeSet(ws, NAME)
        assert info.value.path == f"{D}/.openspec.yaml", bad


def test_the_schema_or_the_project_names_the_task_rule(ws: Path) -> None:
    write(ws, f"{D}/tasks.md", "- [x] 1.1 Do one thing\n- [ ] 1.2 Do another\n")
    assert ledger.ChangeSet(ws, NAME).task_rule == "task-checkbox-v1"
    write(ws, "openspec/config.yaml", "schema: spec-driven\nledger:\n  task_rule: openspec-checkbox\n")
    change = ledger.ChangeSet(ws, NAME)
    assert change.task_rule == "openspec-checkbox" and change.graph.task_rule is None
    assert change.tasks().completed_ids() == ["1.1"] and change.tasks().remaining_ids() == ["1.2"]
    # The caller's rule wins.
    assert ledger.ChangeSet(ws, NAME, task_rule="task-checkbox-v1").tasks().total == 0
    # A schema that names the rule; a graph built with one.
    lean = (
        "artifacts:\n  - {id: proposal, generates: proposal.md}\n"
        "  - {id: tasks, generates: tasks.md, requires: [proposal]}\n"
        "ledger:\n  task_rule: openspec-checkbox\n"
    )
    graph = ledger.ArtifactGraph.from_schema_yaml(lean, "lean.yaml")
    assert graph.task_rule == "openspec-checkbox" and graph.tracks is None
    assert graph.tracked == ledger.Artifact("tasks", "tasks.md", ["proposal"])
    write(ws, "openspec/config.yaml", "schema: spec-driven\n")
    assert ledger.ChangeSet(ws, NAME, graph=graph).task_rule == "openspec-checkbox"
    built = ledger.ArtifactGraph(graph.artifacts, task_rule="openspec-checkbox")
    assert built.task_rule == "openspec-checkbox" and built.artifacts == graph.artifacts
    assert ledger.ArtifactGraph(graph.artifacts).task_rule is None
    with pytest.raises(ledger.InvalidArgumentError):
        ledger.ArtifactGraph(graph.artifacts, task_rule="v2")  # type: ignore[arg-type]
    # An unknown rule in config.yaml names the file.
    write(ws, "openspec/config.yaml", "ledger:\n  task_rule: v9\n")
    with pytest.raises(ledger.BadOpenspecConfigError) as info:
        ledger.ChangeSet(ws, NAME)
    assert info.value.path is not None and info.value.path.startswith("openspec/config.y")


def test_a_change_that_skips_specs_needs_no_spec_approval(ws: Path) -> None:
    metadata(ws, "schema: spec-driven\nskip_specs: true\n")
    write(ws, f"{D}/design.md", "# How\n")
    write(ws, f"{D}/tasks.md", "- [ ] 1.1 [core] A\n")
    change, store = ledger.ChangeSet(ws, NAME), ledger.Store(ws)
    for artifact in ["proposal", "design", "tasks"]:
        ledger.approve(store, change, artifact, "msg")
    status = ledger.status(store, change)
    assert states(status) == ["approved", "skipped", "approved", "approved"]
    assert status.all_approved()
    # A spec file appears after all: specs needs a decision, tasks stood on none.
    write(ws, f"{D}/specs/auth/spec.md", "## ADDED Requirements\n")
    status = ledger.status(store, change)
    assert states(status) == ["approved", "unbound", "approved", "reset"]
    assert status.artifacts[3].reset_by == ["specs"] and not status.all_approved()


def test_status_reports_bindings_made_with_another_schema(ws: Path) -> None:
    metadata(ws, "schema: rapid\ncreated: 2026-12-01\n")
    approve_all(ws)
    store = ledger.Store(ws)
    _, envelope = ledger.current_state(store, NAME)
    for binding in envelope.bindings:
        assert binding.schema is not None and binding.schema.name == "rapid"
        assert binding.schema.sha256 == "sha256:" + hashlib.sha256(RAPID.encode()).hexdigest()
        assert json.loads(binding.to_json())["schema"]["name"] == "rapid"
    status = ledger.status(store, ledger.ChangeSet(ws, NAME))
    assert status.all_approved() and status.schema_changed == []
    assert status.schema is not None and status.schema.name == "rapid"

    # The change now declares another schema: status reads the recorded graph,
    # and says the change was redeclared.
    metadata(ws, "schema: spec-driven\n")
    status = ledger.status(store, ledger.ChangeSet(ws, NAME))
    assert [a.artifact for a in status.artifacts] == ["proposal", "plan"]
    assert reasons(status) == [("proposal", "redeclared"), ("plan", "redeclared")]
    first = status.schema_changed[0]
    assert first.declared == "spec-driven" and first.recorded is not None
    assert first.recorded.name == "rapid" and not status.all_approved()
    assert repr(first) == "SchemaChange(artifact='proposal', reason='redeclared')"
    # Naming a schema evaluates with it: the bindings were made with another.
    status = ledger.status(store, ledger.ChangeSet(ws, NAME, schema="spec-driven"))
    assert [a.artifact for a in status.artifacts] == SPEC_DRIVEN
    assert reasons(status) == [("proposal", "other-schema"), ("plan", "other-schema")]
    assert status.schema_changed[0].declared is None
    assert ledger.status(store, ledger.ChangeSet(ws, NAME, schema="rapid")).all_approved()

    # The schema file's bytes change: the same graph, other bytes.
    metadata(ws, "schema: rapid\n")
    write(ws, "openspec/schemas/rapid/schema.yaml", RAPID.replace("version: 1", "version: 1\ndescription: faster"))
    status = ledger.status(store, ledger.ChangeSet(ws, NAME))
    assert reasons(status) == [("proposal", "content-changed"), ("plan", "content-changed")]
    assert states(status) == ["approved", "approved"] and not status.all_approved()
    assert json.loads(status.to_json())["schema_changed"][0] == {
        "artifact": "proposal",
        "reason": "content-changed",
        "recorded": json.loads(first.recorded.to_json()),
    }
    # Approving again records the new bytes.
    approve_all(ws)
    assert ledger.status(store, ledger.ChangeSet(ws, NAME)).all_approved()
