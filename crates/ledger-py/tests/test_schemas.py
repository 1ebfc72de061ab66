"""OpenSpec schemas (docs/approvals.md, Schemas): by name, from the change's
`.openspec.yaml` and the project's `config.yaml`, `skip_specs`, the tracked
artifact, and the schema recorded with every binding."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

import ledger
from conftest import all_approved, write

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
def root(tmp_path: Path) -> Path:
    write(tmp_path, "openspec/schemas/rapid/schema.yaml", RAPID)
    write(tmp_path, f"{D}/proposal.md", "# Why\n")
    write(tmp_path, f"{D}/todo/a.md", "- [ ] 1.1 [core] A\n")
    write(tmp_path, f"{D}/todo/b.md", "- [ ] 2.1 [core] B\n")
    return tmp_path


def metadata(root: Path, text: str) -> None:
    write(root, f"{D}/.openspec.yaml", text)


def ids(ws: ledger.Workspace, **change: Any) -> list[str]:
    return [a["id"] for a in ws.change_graph(NAME, **change)["artifacts"]]


def states(status: ledger.ApprovalStatus) -> list[str]:
    return [a["state"] for a in status["artifacts"]]


def reasons(status: ledger.ApprovalStatus) -> list[tuple[str, str]]:
    return [(c["artifact"], c["reason"]) for c in status["schema_changed"]]


def approve_all(ws: ledger.Workspace, **change: Any) -> None:
    for artifact in ids(ws, **change):
        ws.approve(NAME, artifact, source="msg", **change)


def test_a_schema_by_name_in_the_project(root: Path) -> None:
    ws = ledger.Workspace(root)
    graph = ws.change_graph(NAME, schema="rapid")
    assert [a["id"] for a in graph["artifacts"]] == ["proposal", "plan"]
    schema = graph["schema"]
    assert schema == {
        "name": "rapid",
        "path": "openspec/schemas/rapid/schema.yaml",
        "sha256": "sha256:" + hashlib.sha256(RAPID.encode()).hexdigest(),
    }
    # apply.tracks equals plan's generates: both of plan's files are normalized.
    assert graph["tracks"] == "todo/*.md"
    assert ledger.tracked(graph) == {"id": "plan", "generates": "todo/*.md", "requires": ["proposal"]}
    scope = ws.change_scope(NAME, "plan", schema="rapid")
    assert scope["normalize"] == [f"{D}/todo/a.md", f"{D}/todo/b.md"] and scope["paths"] == []
    # A tracked glob is hashed, but not read as one Tasks file.
    with pytest.raises(ledger.InvalidArgumentError, match="glob"):
        ws.change_tasks(NAME, schema="rapid")

    # A built-in name; a path (inside the workspace: recorded workspace-relative);
    # a name found nowhere.
    builtin = ws.change_graph(NAME, schema=ledger.DEFAULT_SCHEMA)["schema"]
    assert builtin["name"] == "spec-driven" and "path" not in builtin
    assert builtin == ledger.artifact_graph()["schema"]
    path = str(root / "openspec/schemas/rapid/schema.yaml")
    by_path = ws.change_graph(NAME, schema=path)
    assert "name" not in by_path["schema"] and by_path["schema"]["path"] == "openspec/schemas/rapid/schema.yaml"
    assert by_path["artifacts"] == graph["artifacts"]
    assert by_path["schema"]["sha256"] == schema["sha256"]
    assert by_path["schema"] != schema, "known by a path, not by its name: another schema"
    with pytest.raises(ledger.UnknownSchemaError, match="rapdi"):
        ws.change_graph(NAME, schema="rapdi")
    with pytest.raises(ledger.InvalidArgumentError):
        ws.change_graph(NAME, schema="rapid", graph=ledger.artifact_graph())
    # A graph built in code has no schema.
    assert "schema" not in ledger.artifact_graph(artifacts=[{"id": "a", "generates": "a.md"}])


def test_the_change_and_the_project_declare_the_schema(root: Path) -> None:
    ws = ledger.Workspace(root)
    assert ids(ws) == SPEC_DRIVEN
    write(root, "openspec/config.yaml", "schema: rapid\n")
    assert ids(ws) == ["proposal", "plan"]
    # The change's own .openspec.yaml wins over the project default.
    metadata(root, "schema: spec-driven\ncreated: 2026-12-01\n")
    assert ids(ws) == SPEC_DRIVEN
    # An explicit schema wins over both.
    assert ids(ws, schema="rapid") == ["proposal", "plan"]
    metadata(root, "schema: lean\n")
    with pytest.raises(ledger.UnknownSchemaError, match=r"\.openspec\.yaml"):
        ws.change_graph(NAME)
    for bad in ["schema: ../../x\n", "created: 2026-12-01\n", "schema: rapid\nskip_specs: maybe\n"]:
        metadata(root, bad)
        with pytest.raises(ledger.BadOpenspecConfigError) as info:
            ws.change_graph(NAME)
        assert info.value.path == f"{D}/.openspec.yaml", bad


def test_the_schema_or_the_project_names_the_task_rule(root: Path) -> None:
    ws = ledger.Workspace(root)
    write(root, f"{D}/tasks.md", "- [x] 1.1 Do one thing\n- [ ] 1.2 Do another\n")
    assert ws.change_tasks(NAME)["rule"] == "task-checkbox-v1"
    write(root, "openspec/config.yaml", "schema: spec-driven\nledger:\n  task_rule: openspec-checkbox\n")
    tasks = ws.change_tasks(NAME)
    assert tasks["rule"] == "openspec-checkbox" and "task_rule" not in ws.change_graph(NAME)
    assert [(t["id"], t["done"]) for t in tasks["tasks"]] == [("1.1", True), ("1.2", False)]
    # The caller's rule wins.
    assert ws.change_tasks(NAME, task_rule="task-checkbox-v1")["total"] == 0
    # A schema that names the rule; a graph built with one.
    lean = (
        "artifacts:\n  - {id: proposal, generates: proposal.md}\n"
        "  - {id: tasks, generates: tasks.md, requires: [proposal]}\n"
        "ledger:\n  task_rule: openspec-checkbox\n"
    )
    graph = ledger.artifact_graph(yaml=lean, source="lean.yaml")
    assert graph["task_rule"] == "openspec-checkbox" and graph["tracks"] is None
    assert ledger.tracked(graph) == {"id": "tasks", "generates": "tasks.md", "requires": ["proposal"]}
    write(root, "openspec/config.yaml", "schema: spec-driven\n")
    assert ws.change_tasks(NAME, graph=graph)["rule"] == "openspec-checkbox"
    built = ledger.artifact_graph(artifacts=graph["artifacts"], task_rule="openspec-checkbox")
    assert built["task_rule"] == "openspec-checkbox" and built["artifacts"] == graph["artifacts"]
    assert "task_rule" not in ledger.artifact_graph(artifacts=graph["artifacts"])
    with pytest.raises(ledger.InvalidArgumentError):
        ledger.artifact_graph(artifacts=graph["artifacts"], task_rule="v2")  # type: ignore[arg-type]
    # An unknown rule in config.yaml names the file.
    write(root, "openspec/config.yaml", "ledger:\n  task_rule: v9\n")
    with pytest.raises(ledger.BadOpenspecConfigError) as info:
        ws.change_graph(NAME)
    assert info.value.path is not None and info.value.path.startswith("openspec/config.y")


def test_a_change_that_skips_specs_needs_no_spec_approval(root: Path) -> None:
    ws = ledger.Workspace(root)
    metadata(root, "schema: spec-driven\nskip_specs: true\n")
    write(root, f"{D}/design.md", "# How\n")
    write(root, f"{D}/tasks.md", "- [ ] 1.1 [core] A\n")
    for artifact in ["proposal", "design", "tasks"]:
        ws.approve(NAME, artifact, source="msg")
    status = ws.status(NAME)
    assert states(status) == ["approved", "skipped", "approved", "approved"]
    assert all_approved(status)
    # A spec file appears after all: specs needs a decision, tasks stood on none.
    write(root, f"{D}/specs/auth/spec.md", "## ADDED Requirements\n")
    status = ws.status(NAME)
    assert states(status) == ["approved", "unbound", "approved", "reset"]
    assert status["artifacts"][3]["reset_by"] == ["specs"] and not all_approved(status)


def test_status_reports_bindings_made_with_another_schema(root: Path) -> None:
    ws = ledger.Workspace(root)
    metadata(root, "schema: rapid\ncreated: 2026-12-01\n")
    approve_all(ws)
    envelope = ws.current_state(NAME)["state"]
    for binding in envelope["bindings"]:
        assert binding["schema"] is not None and binding["schema"]["name"] == "rapid"
        assert binding["schema"]["sha256"] == "sha256:" + hashlib.sha256(RAPID.encode()).hexdigest()
    status = ws.status(NAME)
    assert all_approved(status) and status["schema_changed"] == []
    assert status["schema"] is not None and status["schema"]["name"] == "rapid"

    # The change now declares another schema: status reads the recorded graph,
    # and says the change was redeclared.
    metadata(root, "schema: spec-driven\n")
    status = ws.status(NAME)
    assert [a["artifact"] for a in status["artifacts"]] == ["proposal", "plan"]
    assert reasons(status) == [("proposal", "redeclared"), ("plan", "redeclared")]
    first = status["schema_changed"][0]
    assert first["declared"] == "spec-driven" and first["recorded"] is not None
    assert first["recorded"]["name"] == "rapid" and not all_approved(status)
    # Naming a schema evaluates with it: the bindings were made with another.
    status = ws.status(NAME, schema="spec-driven")
    assert [a["artifact"] for a in status["artifacts"]] == SPEC_DRIVEN
    assert reasons(status) == [("proposal", "other-schema"), ("plan", "other-schema")]
    assert "declared" not in status["schema_changed"][0]
    assert all_approved(ws.status(NAME, schema="rapid"))

    # The schema file's bytes change: the same graph, other bytes.
    metadata(root, "schema: rapid\n")
    write(root, "openspec/schemas/rapid/schema.yaml", RAPID.replace("version: 1", "version: 1\ndescription: faster"))
    status = ws.status(NAME)
    assert reasons(status) == [("proposal", "content-changed"), ("plan", "content-changed")]
    assert states(status) == ["approved", "approved"] and not all_approved(status)
    assert status["schema_changed"][0] == {
        "artifact": "proposal",
        "reason": "content-changed",
        "recorded": first["recorded"],
    }
    # Approving again records the new bytes.
    approve_all(ws)
    assert all_approved(ws.status(NAME))
