"""Approvals of an OpenSpec change, the cascade, the state envelope and the store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Optional

import pytest

import ledger
from conftest import CHANGE, all_approved, states, write


def binding_of(envelope: ledger.StateEnvelope, artifact: str) -> Optional[ledger.Binding]:
    return next((b for b in envelope["bindings"] if b["artifact"] == artifact), None)


def test_change_scopes(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    d = f"openspec/changes/{CHANGE}"
    assert ws.status(CHANGE)["location"] == {"state": "active", "directory": d}
    assert ledger.DEFAULT_CHANGES_ROOT == "openspec/changes"
    assert [a["id"] for a in ws.change_graph(CHANGE)["artifacts"]] == ["proposal", "specs", "design", "tasks"]
    design = ws.change_inventory(CHANGE, "design")
    assert [e["path"] for e in design["entries"]] == [f"{d}/design.md", f"{d}/diagrams/flow.svg"]
    tasks = ws.change_scope(CHANGE, "tasks")
    assert tasks["normalize"] == [f"{d}/tasks.md"] and tasks["purpose"] == f"approval: tasks of change {CHANGE}"
    specs = ws.change_inventory(CHANGE, "specs")
    assert [e["path"] for e in specs["entries"]] == [f"{d}/specs/auth/spec.md"]


def test_approve_and_the_cascade(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    assert states(ws.status(CHANGE)) == dict.fromkeys(["proposal", "specs", "design", "tasks"], "unbound")
    assert ws.status(CHANGE)["state_record"] is None
    for artifact in ["proposal", "specs", "design", "tasks"]:
        binding = ws.approve(CHANGE, artifact, source=f"msg {artifact}")
        assert binding["artifact"] == artifact and binding["source"] == f"msg {artifact}"
        assert binding["fingerprint"] == ws.change_inventory(CHANGE, artifact)["fingerprint"]
    status = ws.status(CHANGE)
    assert all_approved(status) and status["state_record"] == ws.head(f"changes/{CHANGE}")
    tasks_binding = status["artifacts"][3]["binding"]
    assert tasks_binding is not None
    assert set(tasks_binding["upstream"]) == {"proposal", "specs", "design"}

    # Ticking a task box is progress, not a change of the approved set.
    d = workspace / "openspec/changes" / CHANGE
    write(d, "tasks.md", "- [x] 1.1 [core] Add login\n- [ ] 1.2 [py] Bind it\n")
    assert all_approved(ws.status(CHANGE))

    # The design's linked material changes: design falls, and tasks with it.
    write(d, "diagrams/flow.svg", "<svg>v2</svg>\n")
    status = ws.status(CHANGE)
    assert states(status) == {
        "proposal": "approved", "specs": "approved", "design": "changed", "tasks": "reset"
    }
    assert status["artifacts"][3]["reset_by"] == ["design"]
    assert status["artifacts"][2]["approved"] != status["artifacts"][2]["current"]

    # A missing material blocks the set, with the coded reason.
    (d / "diagrams/flow.svg").unlink()
    blocked = ws.status(CHANGE)["artifacts"][2]
    assert blocked["state"] == "blocked" and blocked["current"] is None
    assert blocked["blocked"] is not None and blocked["blocked"].startswith("error[missing-material]")


def test_state_envelope_and_store(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    ref = f"changes/{CHANGE}"
    assert ws.current_state(CHANGE)["record"] is None
    assert ws.head(ref) is None and ws.refs() == [] and ws.store_check()["clean"]
    ws.approve(CHANGE, "proposal", source="msg 1")
    ws.approve(CHANGE, "proposal", source="msg 2")
    current = ws.current_state(CHANGE)
    record, envelope = current["record"], current["state"]
    assert record is not None and record == ws.head(ref)
    assert envelope["change"] == CHANGE and len(envelope["bindings"]) == 1
    binding = binding_of(envelope, "proposal")
    assert binding is not None and binding["source"] == "msg 2"
    assert binding_of(envelope, "design") is None and envelope["validation"] is None
    assert json.loads(json.dumps(envelope))["bindings"][0]["source"] == "msg 2"
    history = ws.history(ref)
    assert len(history) == 2 and history[0] == record
    assert ws.refs() == [{"name": ref, "id": record}]
    stored = ws.stored_record(record)
    assert stored["kind"] == "state" and stored["previous"] == history[1]
    assert stored["body"]["bindings"][0]["artifact"] == "proposal"
    report = ws.store_check()
    assert report["records"] == 2 and report["refs"] == [{"name": ref, "id": record}]
    assert report["orphans"] == report["temp_files"] == [] and report["corrupt"] == report["dangling"] == []
    # The store's directory is never part of an inventory.
    assert not any(e["path"].startswith(".ledger") for e in ws.inventory()["entries"])


def test_a_custom_schema(workspace: Path, tmp_path: Path) -> None:
    schema = tmp_path / "schema.yaml"
    schema.write_text(
        "artifacts:\n"
        "  - {id: brief, generates: proposal.md}\n"
        "  - {id: plan, generates: tasks.md, requires: [brief]}\n"
        "apply:\n  tracks: tasks.md\n"
    )
    graph = ledger.artifact_graph(schema=str(schema))
    # The same text read from the same source is the same graph, schema included.
    assert graph == ledger.artifact_graph(yaml=schema.read_text(), source=str(schema))
    assert "schema" in graph and graph["schema"].get("path") == str(schema) and "name" not in graph["schema"]
    assert [a["id"] for a in graph["artifacts"]] == ["brief", "plan"] and graph["tracks"] == "tasks.md"
    assert ledger.tracked(graph) == ledger.artifact(graph, "plan") and "task_rule" not in graph
    assert ledger.upstream(graph, "plan") == ["brief"] and ledger.downstream(graph, "brief") == ["plan"]
    assert ledger.artifact(graph, "plan")["requires"] == ["brief"]
    built = ledger.artifact_graph(
        artifacts=[
            {"id": "plan", "generates": "tasks.md", "requires": ["brief"]},
            {"id": "brief", "generates": "proposal.md"},
        ],
        tracks="tasks.md",
    )
    # Built in code: the same artifacts, but no schema it was read from.
    assert (built["artifacts"], built["tracks"], built.get("schema")) == (graph["artifacts"], graph["tracks"], None)
    assert built != graph
    ws = ledger.Workspace(workspace)
    ws.approve(CHANGE, "brief", source="msg", graph=graph)
    assert states(ws.status(CHANGE, graph=graph)) == {"brief": "approved", "plan": "unbound"}


def test_other_changes_root(tmp_path: Path) -> None:
    write(tmp_path, "changes/c1/proposal.md", "# Why\n")
    ws = ledger.Workspace(tmp_path)
    assert ws.status("c1", changes_root="changes")["location"] == {"state": "active", "directory": "changes/c1"}
    inv = ws.change_inventory("c1", "proposal", changes_root="changes")
    assert [e["path"] for e in inv["entries"]] == ["changes/c1/proposal.md"]


def test_exact_answers_of_the_cascade(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    d = workspace / "openspec/changes" / CHANGE
    with pytest.raises(ledger.UnknownChangeError):
        ws.approve("add-lgoin", "proposal", source="m")
    with pytest.raises(ledger.UnknownChangeError):
        ws.status("add-lgoin")
    assert ws.refs() == []

    # No spec files: an empty set, approved only as absent on purpose.
    shutil.rmtree(d / "specs")
    assert ws.change_inventory(CHANGE, "specs")["entries"] == []
    with pytest.raises(ledger.AbsentArtifactError):
        ws.approve(CHANGE, "specs", source="m")
    (d / "diagrams" / "flow.svg").unlink()
    ws.approve(CHANGE, "proposal", source="m")
    ws.approve(CHANGE, "specs", source="m", absent=True)
    with pytest.raises(ledger.UpstreamBlockedError) as blocked:
        ws.approve(CHANGE, "tasks", source="m")
    assert "design" in str(blocked.value)
    write(d, "diagrams/flow.svg", "<svg/>\n")
    for artifact in ["design", "tasks"]:
        ws.approve(CHANGE, artifact, source="m")
    write(workspace, "src/other.py", "unrelated\n")
    assert all_approved(ws.status(CHANGE))

    # status names the files that changed.
    write(d, "diagrams/flow.svg", "<svg>v2</svg>\n")
    design = ws.status(CHANGE)["artifacts"][2]
    assert design["state"] == "changed"
    assert [(c["change"], c["new"]["path"]) for c in design["changes"] or []] == [
        ("content-changed", f"openspec/changes/{CHANGE}/diagrams/flow.svg")
    ]
    write(d, "diagrams/flow.svg", "<svg/>\n")

    # Archived: found by name, reported as archived.
    archive = workspace / "openspec/changes/archive"
    archive.mkdir()
    d.rename(archive / f"2026-12-01-{CHANGE}")
    status = ws.status(CHANGE)
    assert status["location"] == {
        "state": "archived", "directory": f"openspec/changes/archive/2026-12-01-{CHANGE}"
    }
    assert set(states(status).values()) == {"archived"} and all_approved(status)

    # Gone, then retired: a new record, the history kept.
    shutil.rmtree(archive)
    status = ws.status(CHANGE)
    assert status["location"] == {"state": "missing"} and set(states(status).values()) == {"gone"}
    before = len(ws.history(f"changes/{CHANGE}"))
    record = ws.retire(CHANGE, reason="abandoned")
    assert ws.head(f"changes/{CHANGE}") == record
    assert len(ws.history(f"changes/{CHANGE}")) == before + 1
    retired = ws.status(CHANGE)["retired"]
    assert retired is not None and retired["reason"] == "abandoned"


def test_a_design_s_inline_html_links_are_materials(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    d = workspace / "openspec/changes" / CHANGE
    write(d, "design.md", '# Design\n<img src="mocks/login.png" alt="login">\n')
    write(d, "mocks/login.png", "png\n")
    rel = f"openspec/changes/{CHANGE}"
    assert ws.change_scope(CHANGE, "design")["paths"] == [f"{rel}/design.md", f"{rel}/mocks/login.png"]
    (d / "mocks/login.png").unlink()
    with pytest.raises(ledger.MissingMaterialError, match="mocks/login.png"):
        ws.change_inventory(CHANGE, "design")
    write(d, "design.md", '<base href="https://example.com/">\n')
    with pytest.raises(ledger.AmbiguousMaterialError, match="base href"):
        ws.change_inventory(CHANGE, "design")


def test_a_change_is_named_in_its_workspace(workspace: Path, tmp_path: Path) -> None:
    """A change is a name opened in the workspace that holds it: another
    workspace does not have it, whatever it was approved in."""
    ws = ledger.Workspace(workspace)
    ws.approve(CHANGE, "proposal", source="m")
    other = ledger.Workspace(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(ledger.UnknownChangeError):
        other.status(CHANGE)
    # Nothing recorded there and no such change: a mistyped name, not an empty state.
    with pytest.raises(ledger.UnknownChangeError):
        other.current_state(CHANGE)
    with pytest.raises(ledger.UnknownChangeError):
        other.state_log(CHANGE)


def test_parallel_approvals_from_threads_all_land(workspace: Path) -> None:
    """An agent's parallel tool calls: four approvals of four artifacts from
    four threads, together with two gate runs, all land, and the store is left
    clean (docs/approvals.md, Parallel writes)."""
    import threading

    ws = ledger.Workspace(workspace)
    artifacts = ["proposal", "specs", "design", "tasks"]
    for round in range(3):
        barrier = threading.Barrier(len(artifacts) + 2)
        errors: list[BaseException] = []

        def approve(artifact: str) -> None:
            barrier.wait()
            try:
                ws.approve(CHANGE, artifact, source=f"round {round}")
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        def gate(name: str) -> None:
            barrier.wait()
            try:
                ws.run_gate(name, argv=["true"], scope={"roots": ["openspec"]})
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=approve, args=(a,)) for a in artifacts]
        threads += [threading.Thread(target=gate, args=(g,)) for g in ["unit", "lint"]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert all_approved(ws.status(CHANGE))
        assert ws.store_check()["clean"]


def test_nothing_recorded_is_no_record_and_none_is_refused(workspace: Path) -> None:
    """`expected=None` is the head as read now, `"no-record"` that nothing was
    recorded; `"none"`, which reads as the first, is refused before any write."""
    ws = ledger.Workspace(workspace)
    with pytest.raises(ledger.LedgerError) as info:
        ws.approve(CHANGE, "proposal", source="msg 1", expected="none")  # type: ignore[arg-type]
    assert info.value.code == "invalid-argument" and "no-record" in str(info.value)
    assert ws.store_check()["clean"] and ws.current_state(CHANGE)["record"] is None
    ws.approve(CHANGE, "proposal", source="msg 1", expected="no-record")
    ws.approve(CHANGE, "design", source="msg 2", expected=None)


def test_a_conflict_is_decided_and_gone_from_the_checks(workspace: Path) -> None:
    """A write whose basis really changed is refused and stays visible as an
    orphan; a recorded decision clears it from store_check and check."""
    ws = ledger.Workspace(workspace)
    ws.approve(CHANGE, "proposal", source="msg 1")
    with pytest.raises(ledger.LedgerError) as info:
        ws.approve(CHANGE, "design", source="msg 2", expected="no-record")
    assert info.value.code == "pointer-conflict"
    [orphan] = ws.store_check()["orphans"]
    assert orphan["kind"] == "state" and orphan["follows"] is None
    assert any(w["kind"] == "store" for w in ws.check()["work"])
    decision = ws.decide_orphan(orphan["id"], "discard", "approved again on the new head")
    assert decision["choice"] == "discard" and decision["kept_as"] is None
    assert ws.store_check()["clean"]
    assert all(w["kind"] != "store" for w in ws.check()["work"])


def test_specs_are_approved_against_their_baselines(workspace: Path) -> None:
    """A moved baseline makes `specs` changed and resets `tasks`; approving
    again binds the baseline as it is now."""
    ws = ledger.Workspace(workspace)
    baseline = "openspec/specs/auth/spec.md"
    write(workspace, baseline, "# auth\n## Requirements\n")
    for artifact in ["proposal", "specs", "design", "tasks"]:
        binding = ws.approve(CHANGE, artifact, source="review")
    specs = binding_of(ws.current_state(CHANGE)["state"], "specs")
    assert specs is not None and specs["baselines"] is not None
    assert [e["path"] for e in specs["baselines"]["entries"]] == [baseline]
    assert all_approved(ws.status(CHANGE))

    write(workspace, baseline, "# auth\n## Requirements\n### Requirement: moved\n")
    status = ws.status(CHANGE)
    assert states(status) == {"proposal": "approved", "specs": "changed", "design": "approved", "tasks": "reset"}
    assert status["artifacts"][1]["baselines_moved"] == [baseline]
    assert [c["new"]["path"] for c in status["artifacts"][1]["changes"] or []] == [baseline]
    ws.approve(CHANGE, "specs", source="review 2")
    assert all_approved(ws.status(CHANGE))
