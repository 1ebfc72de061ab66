"""Approvals of an OpenSpec change, the cascade, the state envelope and the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ledger
from conftest import CHANGE, write


def states(status: ledger.ApprovalStatus) -> dict[str, str]:
    return {a.artifact: a.state for a in status.artifacts}


def test_change_set_scopes(workspace: Path) -> None:
    change = ledger.ChangeSet(workspace, CHANGE)
    d = f"openspec/changes/{CHANGE}"
    assert change.directory() == d and change.changes_root == "openspec/changes"
    assert [a.id for a in change.graph.artifacts] == ["proposal", "specs", "design", "tasks"]
    design = change.inventory("design")
    assert [e.path for e in design.entries] == [f"{d}/design.md", f"{d}/diagrams/flow.svg"]
    tasks = change.scope("tasks")
    assert tasks.normalize == [f"{d}/tasks.md"] and tasks.purpose == f"approval: tasks of change {CHANGE}"
    specs = change.inventory("specs")
    assert [e.path for e in specs.entries] == [f"{d}/specs/auth/spec.md"]


def test_approve_and_the_cascade(workspace: Path) -> None:
    store = ledger.Store(workspace)
    change = ledger.ChangeSet(workspace, CHANGE)
    assert states(ledger.status(store, change)) == dict.fromkeys(
        ["proposal", "specs", "design", "tasks"], "unbound"
    )
    assert ledger.status(store, change).state_record is None
    for artifact in ["proposal", "specs", "design", "tasks"]:
        binding = ledger.approve(store, change, artifact, f"msg {artifact}")
        assert binding.artifact == artifact and binding.source == f"msg {artifact}"
        assert binding.fingerprint == change.inventory(artifact).fingerprint
    status = ledger.status(store, change)
    assert status.all_approved() and status.state_record == store.head(f"changes/{CHANGE}")
    tasks_binding = status.artifacts[3].binding
    assert tasks_binding is not None
    assert set(tasks_binding.upstream) == {"proposal", "specs", "design"}

    # Ticking a task box is progress, not a change of the approved set.
    d = workspace / "openspec/changes" / CHANGE
    write(d, "tasks.md", "- [x] 1.1 [core] Add login\n- [ ] 1.2 [py] Bind it\n")
    assert ledger.status(store, change).all_approved()

    # The design's linked material changes: design falls, and tasks with it.
    write(d, "diagrams/flow.svg", "<svg>v2</svg>\n")
    status = ledger.status(store, change)
    assert states(status) == {
        "proposal": "approved", "specs": "approved", "design": "changed", "tasks": "reset"
    }
    assert status.artifacts[3].reset_by == ["design"]
    assert status.artifacts[2].approved != status.artifacts[2].current

    # A missing material blocks the set, with the coded reason.
    (d / "diagrams/flow.svg").unlink()
    blocked = ledger.status(store, change).artifacts[2]
    assert blocked.state == "blocked" and blocked.current is None
    assert blocked.blocked is not None and blocked.blocked.startswith("error[missing-material]")


def test_state_envelope_and_store(workspace: Path) -> None:
    store = ledger.Store(workspace)
    change = ledger.ChangeSet(workspace, CHANGE)
    ref = f"changes/{CHANGE}"
    assert ledger.current_state(store, CHANGE)[0] is None
    assert store.head(ref) is None and store.refs() == [] and store.check().is_clean()
    ledger.approve(store, change, "proposal", "msg 1")
    ledger.approve(store, change, "proposal", "msg 2")
    record, envelope = ledger.current_state(store, CHANGE)
    assert record == store.head(ref)
    assert envelope.change == CHANGE and len(envelope.bindings) == 1
    binding = envelope.binding("proposal")
    assert binding is not None and binding.source == "msg 2"
    assert envelope.binding("design") is None and envelope.validation is None
    assert json.loads(envelope.to_json())["bindings"][0]["source"] == "msg 2"
    history = store.history(ref)
    assert len(history) == 2 and history[0] == record
    assert store.refs() == [(ref, record)]
    stored = store.read_record(record)
    assert stored["kind"] == "state" and stored["previous"] == history[1]
    assert stored["body"]["bindings"][0]["artifact"] == "proposal"
    report = store.check()
    assert report.records == 2 and report.refs == [(ref, record)]
    assert report.orphans == report.temp_files == [] and report.corrupt == report.dangling == []
    # The store's directory is never part of an inventory.
    assert not any(e.path.startswith(".ledger") for e in ledger.inventory(workspace).entries)


def test_a_custom_schema(workspace: Path, tmp_path: Path) -> None:
    schema = tmp_path / "schema.yaml"
    schema.write_text(
        "artifacts:\n"
        "  - {id: brief, generates: proposal.md}\n"
        "  - {id: plan, generates: tasks.md, requires: [brief]}\n"
        "apply:\n  tracks: tasks.md\n"
    )
    graph = ledger.ArtifactGraph.read(schema)
    # The same text read from the same source is the same graph, schema included.
    assert graph == ledger.ArtifactGraph.from_schema_yaml(schema.read_text(), str(schema))
    assert graph.schema is not None and graph.schema.path == str(schema) and graph.schema.name is None
    assert [a.id for a in graph.artifacts] == ["brief", "plan"] and graph.tracks == "tasks.md"
    assert graph.tracked == graph.artifact("plan") and graph.task_rule is None
    assert graph.upstream("plan") == ["brief"] and graph.downstream("brief") == ["plan"]
    assert graph.artifact("plan").requires == ["brief"]
    built = ledger.ArtifactGraph(
        [ledger.Artifact("plan", "tasks.md", ["brief"]), ledger.Artifact("brief", "proposal.md")],
        tracks="tasks.md",
    )
    # Built in code: the same artifacts, but no schema it was read from.
    assert (built.artifacts, built.tracks, built.schema) == (graph.artifacts, graph.tracks, None)
    assert built != graph
    store = ledger.Store(workspace)
    change = ledger.ChangeSet(workspace, CHANGE, graph=graph)
    ledger.approve(store, change, "brief", "msg")
    assert states(ledger.status(store, change)) == {"brief": "approved", "plan": "unbound"}


def test_other_changes_root(tmp_path: Path) -> None:
    write(tmp_path, "changes/c1/proposal.md", "# Why\n")
    change = ledger.ChangeSet(tmp_path, "c1", changes_root="changes")
    assert change.directory() == "changes/c1"
    assert [e.path for e in change.inventory("proposal").entries] == ["changes/c1/proposal.md"]


def test_exact_answers_of_the_cascade(workspace: Path) -> None:
    store = ledger.Store(workspace)
    d = workspace / "openspec/changes" / CHANGE
    with pytest.raises(ledger.UnknownChangeError):
        ledger.approve(store, ledger.ChangeSet(workspace, "add-lgoin"), "proposal", "m")
    with pytest.raises(ledger.UnknownChangeError):
        ledger.status(store, ledger.ChangeSet(workspace, "add-lgoin"))
    assert store.refs() == []

    # No spec files: an empty set, approved only as absent on purpose.
    import shutil

    shutil.rmtree(d / "specs")
    change = ledger.ChangeSet(workspace, CHANGE)
    assert change.inventory("specs").entries == []
    with pytest.raises(ledger.AbsentArtifactError):
        ledger.approve(store, change, "specs", "m")
    (d / "diagrams" / "flow.svg").unlink()
    ledger.approve(store, change, "proposal", "m")
    ledger.approve(store, change, "specs", "m", absent=True)
    with pytest.raises(ledger.UpstreamBlockedError) as blocked:
        ledger.approve(store, change, "tasks", "m")
    assert "design" in str(blocked.value)
    write(d, "diagrams/flow.svg", "<svg/>\n")
    for artifact in ["design", "tasks"]:
        ledger.approve(store, change, artifact, "m")
    write(workspace, "src/other.py", "unrelated\n")
    assert ledger.status(store, change).all_approved()

    # status names the files that changed.
    write(d, "diagrams/flow.svg", "<svg>v2</svg>\n")
    design = ledger.status(store, change).artifacts[2]
    assert design.state == "changed"
    assert [(c.change, c.path) for c in design.changes or []] == [
        ("content-changed", f"openspec/changes/{CHANGE}/diagrams/flow.svg")
    ]
    write(d, "diagrams/flow.svg", "<svg/>\n")

    # Archived: found by name, reported as archived.
    archive = workspace / "openspec/changes/archive"
    archive.mkdir()
    d.rename(archive / f"2026-12-01-{CHANGE}")
    status = ledger.status(store, ledger.ChangeSet(workspace, CHANGE))
    assert status.location == "archived"
    assert status.directory == f"openspec/changes/archive/2026-12-01-{CHANGE}"
    assert set(states(status).values()) == {"archived"} and status.all_approved()

    # Gone, then retired: a new record, the history kept.
    shutil.rmtree(archive)
    status = ledger.status(store, ledger.ChangeSet(workspace, CHANGE))
    assert status.location == "missing" and set(states(status).values()) == {"gone"}
    before = len(store.history(f"changes/{CHANGE}"))
    record = ledger.retire(store, CHANGE, "abandoned")
    assert store.head(f"changes/{CHANGE}") == record
    assert len(store.history(f"changes/{CHANGE}")) == before + 1
    retired = ledger.status(store, ledger.ChangeSet(workspace, CHANGE)).retired
    assert retired is not None and retired["reason"] == "abandoned"


def test_a_design_s_inline_html_links_are_materials(workspace: Path) -> None:
    d = workspace / "openspec/changes" / CHANGE
    write(d, "design.md", '# Design\n<img src="mocks/login.png" alt="login">\n')
    write(d, "mocks/login.png", "png\n")
    change = ledger.ChangeSet(workspace, CHANGE)
    rel = f"openspec/changes/{CHANGE}"
    assert change.scope("design").paths == [f"{rel}/design.md", f"{rel}/mocks/login.png"]
    (d / "mocks/login.png").unlink()
    with pytest.raises(ledger.MissingMaterialError, match="mocks/login.png"):
        change.inventory("design")
    write(d, "design.md", '<base href="https://example.com/">\n')
    with pytest.raises(ledger.AmbiguousMaterialError, match="base href"):
        change.inventory("design")
