"""What a PASS must hold and what a write was based on, from Python
(docs/lifecycle.md, docs/approvals.md): ``no_delivery=``, exclusions under any
spelling, phase records at every check, ``gate_prerequisites=``, and
``reviewed=`` / ``expected=`` on every write."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import ledger
from conftest import CHANGE, Cli, write

DIR = "openspec/changes/add-auth"
ARTIFACTS = ("proposal", "specs", "design", "tasks")


def approved(workspace: Path, prerequisites: dict[str, ledger.Observe] | None = None) -> ledger.Workspace:
    write(workspace, f"{DIR}/.openspec.yaml", "schema: spec-driven\n")
    write(workspace, "openspec/specs/auth/spec.md", "# auth\n")
    ws = ledger.Workspace(workspace)
    for artifact in ARTIFACTS:
        ws.approve(CHANGE, artifact, source="review 1")
    ws.run_gate("test", argv=["cat", "src/app.py"], scope={"roots": ["src"]}, prerequisites=prerequisites or {})
    return ws


def head(ws: ledger.Workspace) -> str | None:
    return ws.current_state(CHANGE)["record"]


def test_a_pass_names_its_delivery_or_records_why_there_is_none(workspace: Path, cli: Cli) -> None:
    ws = approved(workspace)
    before = head(ws)
    with pytest.raises(ledger.NoDeliveryError, match="delivery"):
        ws.record_validation(CHANGE, verdict="PASS", source="r", gates=["test"])
    assert head(ws) == before
    with pytest.raises(ledger.InvalidArgumentError):
        ws.record_validation(CHANGE, verdict="PASS", source="r", gates=["test"], roots=["src"], no_delivery="none")
    written = ws.record_validation(CHANGE, verdict="PASS", source="r", gates=["test"], no_delivery="a planning-only change")
    validation = written["state"]["validation"]
    assert validation is not None and validation["no_delivery"] == "a planning-only change"
    check = ws.check_validation(CHANGE)
    assert check["stands"] and check["no_delivery"] == "a planning-only change"
    shown = cli.json("validate", "check", "--change", CHANGE, "--json", "--workspace", str(workspace))
    assert shown["no_delivery"] == "a planning-only change" and shown == check


@pytest.mark.parametrize(
    ("exclude", "phase_records", "error"),
    [
        (["openspec/specs/auth/spec.md"], None, ledger.InvalidArgumentError),
        (["./openspec/specs/auth/"], None, ledger.InvalidArgumentError),
        (["OpenSpec/specs/auth/spec.md"], None, ledger.InvalidArgumentError),
        (None, [f"{DIR}/.openspec.yaml"], ledger.InvalidArgumentError),
        (None, [f"./{DIR}/design.md"], ledger.InvalidArgumentError),
        (None, [f"{DIR}/specs/auth/spec.md/"], ledger.InvalidArgumentError),
        (["openspec//specs/auth/spec.md"], None, ledger.InvalidPathError),
        (["src/../openspec/specs/auth/spec.md"], None, ledger.OutsideWorkspaceError),
    ],
)
def test_nothing_the_pass_must_hold_is_excluded_under_any_spelling(
    workspace: Path, exclude: list[str] | None, phase_records: list[str] | None, error: type[ledger.LedgerError]
) -> None:
    ws = approved(workspace)
    with pytest.raises(error):
        ws.record_validation(
            CHANGE, verdict="PASS", source="r", roots=["src"], gates=["test"],
            exclude=exclude or [], phase_records=phase_records or [],
        )
    assert ws.current_state(CHANGE)["state"]["validation"] is None


def test_a_phase_record_is_one_regular_file_when_recorded_and_at_every_check(workspace: Path) -> None:
    ws = approved(workspace)
    record = ".agents/phases/add-auth.md"
    args: dict[str, Any] = {"roots": ["src"], "gates": ["test"], "phase_records": [record]}
    with pytest.raises(ledger.InvalidArgumentError, match="missing"):
        ws.record_validation(CHANGE, verdict="PASS", source="r", **args)
    write(workspace, record, "validated\n")
    ws.record_validation(CHANGE, verdict="PASS", source="r", **args)
    assert ws.check_validation(CHANGE)["stands"]
    (workspace / record).unlink()
    write(workspace, f"{record}/smuggled.py", "print('not validated')\n")
    check = ws.check_validation(CHANGE)
    assert not check["stands"]
    [standing] = check["phase_records"]
    assert standing == {"path": record, "kind": "directory", "inside": [f"{record}/smuggled.py"]}
    done = ws.finalize_check(CHANGE)
    assert not done["clean"]
    assert [(c["change"], c["new"]["path"]) for c in done["new_changes"]] == [("added", f"{record}/smuggled.py")]
    assert done["phase_records"][0]["kind"] == "directory"
    shutil.rmtree(workspace / record)
    assert ws.finalize_check(CHANGE)["phase_records"][0]["kind"] == "missing"


def test_a_validation_observes_its_gates_prerequisites(workspace: Path) -> None:
    ws = approved(workspace, {"toolchain": {"literal": "3.12"}})
    with pytest.raises(ledger.ValidationRefusedError, match="toolchain"):
        ws.record_validation(CHANGE, verdict="PASS", source="r", roots=["src"], gates=["test"])
    with pytest.raises(ledger.InvalidArgumentError, match="tset"):
        ws.record_validation(
            CHANGE, verdict="PASS", source="r", roots=["src"], gates=["test"], gate_prerequisites={"tset": {}}
        )
    observed: dict[str, dict[str, ledger.Observe]] = {"test": {"toolchain": {"literal": "3.12"}}}
    ws.record_validation(CHANGE, verdict="PASS", source="r", roots=["src"], gates=["test"], gate_prerequisites=observed)
    assert not ws.check_validation(CHANGE)["stands"]
    assert ws.check_validation(CHANGE, gate_prerequisites=observed)["stands"]
    by_command: dict[str, dict[str, ledger.Observe]] = {"test": {"toolchain": {"command": "echo 3.12"}}}
    assert ws.check_validation(CHANGE, gate_prerequisites=by_command)["stands"]


def test_writes_record_nothing_when_what_was_reviewed_moved_or_another_writer_came_first(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    reviewed = ws.fingerprint(paths=[f"{DIR}/proposal.md"])
    write(workspace, f"{DIR}/proposal.md", "# Why\nEdited after the review.\n")
    with pytest.raises(ledger.FingerprintMovedError, match=f"{DIR}/proposal.md") as info:
        ws.approve(CHANGE, "proposal", source="r", reviewed=reviewed, expected="no-record")
    assert info.value.code == "fingerprint-moved" and reviewed in str(info.value)
    assert head(ws) is None
    now = ws.fingerprint(paths=[f"{DIR}/proposal.md"])
    ws.approve(CHANGE, "proposal", source="r", reviewed=now, expected="no-record")
    first = head(ws)
    assert first is not None
    with pytest.raises(ledger.PointerConflictError):
        ws.approve(CHANGE, "proposal", source="r", reviewed=now, expected="no-record")
    second = ws.advance_state(CHANGE, role="implementation", expected=first)["record"]
    # Every write verb, started from the first record: another writer came first.
    with pytest.raises(ledger.PointerConflictError):
        ws.approve(CHANGE, "proposal", source="r", expected=first)
    with pytest.raises(ledger.PointerConflictError):
        ws.advance_state(CHANGE, role="x", expected=first)
    with pytest.raises(ledger.PointerConflictError):
        ws.record_validation(CHANGE, verdict="FAIL", source="r", expected=first)
    with pytest.raises(ledger.PointerConflictError):
        ws.retire(CHANGE, reason="abandoned", expected=first)
    assert head(ws) == second
    ws.retire(CHANGE, reason="abandoned", expected=second)
    with pytest.raises(ledger.BadFingerprintError):
        ws.approve(CHANGE, "proposal", source="r", reviewed="sha256:nope")


def test_a_pass_excludes_as_every_scope_does_with_a_reason(workspace: Path) -> None:
    """`exclude` of record_validation takes what every scope's `exclude`
    takes (issue 43: one spelling across verbs): a path, or {path, reason}."""
    (workspace / "src" / "gen").mkdir()
    (workspace / "src" / "gen" / "out.py").write_text("x = 1\n")
    ws = approved(workspace)
    written = ws.record_validation(
        CHANGE, verdict="PASS", source="r", roots=["src"], gates=["test"],
        exclude=[{"path": "src/gen", "reason": "generated by make gen"}],
    )
    validation = written["state"]["validation"]
    assert validation is not None
    exclusions = validation["inventory"]["scope"]["exclusions"]
    assert {"path": "src/gen", "reason": "generated by make gen"} in exclusions, exclusions
