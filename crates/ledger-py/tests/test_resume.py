"""Resuming from Python (docs/lifecycle.md, Resuming in one call):
`Workspace.check()` is `ledger check --json` and `Workspace.changes()` is
`ledger changes --json`, the same documents."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ledger
from conftest import CHANGE, REPO_ROOT, Cli, write


def kinds(report: ledger.Resume) -> list[str]:
    return [work["kind"] for work in report["changes"][0]["work"]]


def test_check_lists_the_work_of_each_active_change_as_the_cli_does(workspace: Path, cli: Cli) -> None:
    ws = ledger.Workspace(workspace)
    report = ws.check()
    assert not report["nothing_to_do"]
    assert [c["change"] for c in report["changes"]] == [CHANGE]
    assert kinds(report) == ["approval"] * 4 + ["tasks-left", "not-validated"]
    first = report["changes"][0]["work"][0]
    assert (first["subject"], first["message"]) == ("proposal", "artifact proposal is not approved: it needs an explicit decision")
    out = cli.run("check", "--json", "--workspace", str(workspace))
    assert out.returncode == 1, out.stderr
    assert json.loads(out.stdout)["changes"] == report["changes"]

    for artifact in ("proposal", "specs", "design", "tasks"):
        ws.approve(CHANGE, artifact, source="review 1")
    tasks = workspace / "openspec/changes/add-auth/tasks.md"
    tasks.write_text(tasks.read_text().replace("- [ ]", "- [x]"))
    ws.run_gate("test", argv=["cat", "src/app.py"], scope={"roots": ["src"]})
    ws.record_validation(CHANGE, verdict="PASS", source="review 2", roots=["src"], gates=["test"])
    report = ws.check(change=CHANGE)
    assert kinds(report) == ["archive"]
    validation = report["changes"][0]["validation"]
    assert validation is not None and validation["stands"] and validation["gates"][0]["fresh"]

    write(workspace, "src/app.py", "print('fixed')\n")
    assert kinds(ws.check()) == ["pass-changed", "gate-stale"]
    with pytest.raises(ledger.UnknownChangeError):
        ws.check(change="nope")
    # Prerequisites nothing at this stage relies on are noted, never refused.
    notes = ws.check(gate_prerequisites={"lint": {"x": {"literal": "1"}}})["notes"]
    assert [(n["kind"], n["subject"]) for n in notes] == [("unused-prerequisites", "lint")]


def test_changes_lists_active_and_archived_changes_as_the_cli_does(workspace: Path, cli: Cli) -> None:
    ws = ledger.Workspace(workspace)
    write(workspace, "openspec/changes/archive/2026-01-01-old/proposal.md", "# Old\n")
    listed = ws.changes()
    assert [(c["change"], c["location"]["state"]) for c in listed] == [(CHANGE, "active"), ("old", "archived")]
    assert listed[0]["tasks"] == {"done": 0, "total": 2}
    assert (listed[0]["approved"], listed[0]["artifacts"], listed[0]["verdict"]) == (0, 4, None)
    assert cli.json("changes", "--json", "--workspace", str(workspace)) == listed
    shutil.rmtree(workspace / "openspec/changes/archive")
    assert [c["change"] for c in ws.changes()] == [CHANGE]


DELTA = "## ADDED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n"
# What `openspec archive` writes for a new capability from DELTA.
SYNCED = (
    "# auth Specification\n\n## Purpose\nTBD - created by archiving change add-auth. Update Purpose after archive.\n\n"
    "## Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n"
)
# The README's kind of gate: a literal and a command prerequisite.
DECLARED = '[gates.test]\ncommand = ["cat", "src/app.py"]\nroots = ["src"]\nenv = ["MODE=ci"]\nenv-cmd = { tool = "echo v1" }\n'
TOOL: ledger.Observe = {"command": "echo v1"}


def test_one_check_call_resumes_every_stage_from_proposal_to_finalization(workspace: Path, cli: Cli) -> None:
    write(workspace, "openspec/changes/add-auth/specs/auth/spec.md", DELTA)
    write(workspace, "ledger.toml", DECLARED)
    ws = ledger.Workspace(workspace)
    args = ("check", "--json", "--gate-env-cmd", "unit:tool=echo v1", "--allow-env-cmd", "--workspace", str(workspace))

    def resume(stage: str, nothing_to_do: bool) -> ledger.Resume:
        """The one call, the same at every stage, and the CLI's answer to it."""
        report = ws.check(gate_prerequisites={"unit": {"tool": TOOL}}, allow_env_cmd=True)
        assert report["nothing_to_do"] is nothing_to_do, (stage, report["work"])
        named = ws.check(change=CHANGE, gate_prerequisites={"unit": {"tool": TOOL}}, allow_env_cmd=True)
        assert named["nothing_to_do"] is nothing_to_do, (stage, named["work"])
        out = cli.run(*args)
        assert out.returncode == (0 if nothing_to_do else 1), (stage, out.stderr)
        assert json.loads(out.stdout)["work"] == report["work"], stage
        return report

    report = resume("proposal", False)
    assert [n["subject"] for n in report["notes"] if n["kind"] == "unused-prerequisites"] == ["unit"]
    assert "declared-gate-stale" in [w["kind"] for w in report["work"]]
    assert report["work"][0]["change"] == CHANGE
    for artifact in ("proposal", "specs", "design", "tasks"):
        ws.approve(CHANGE, artifact, source="review 1")
    ws.advance_state(CHANGE, next="validation")
    resume("approved", False)
    tasks = workspace / "openspec/changes/add-auth/tasks.md"
    tasks.write_text(tasks.read_text().replace("- [ ]", "- [x]"))
    resume("tasks done", False)
    ws.run_declared_gate("test")
    ws.run_gate("unit", argv=["cat", "src/app.py"], scope={"roots": ["src"]}, prerequisites={"tool": TOOL})
    assert resume("gates run", False)["declared_gates"][0]["fresh"]
    observed: dict[str, dict[str, ledger.Observe]] = {"test": {"MODE": {"literal": "ci"}, "tool": TOOL}, "unit": {"tool": TOOL}}
    ws.record_validation(CHANGE, verdict="PASS", source="r", roots=["src"], gates=["test", "unit"], gate_prerequisites=observed)
    report = resume("validated", False)
    assert [w["kind"] for w in report["work"]] == ["archive"]
    assert report["notes"] == []
    shutil.move(str(workspace / "openspec/changes/add-auth"), str(workspace / "openspec/changes/archive/2026-12-01-add-auth"))
    write(workspace, "openspec/specs/auth/spec.md", SYNCED)
    assert ws.finalize_check(CHANGE)["clean"]
    resume("finalized", True)
    assert ws.check(change=CHANGE, allow_env_cmd=True)["changes"][0]["next"] is None
    assert ws.changes()[0]["next_outcome"] is None
    # examples/recover.py, as written, at the end of a finished change.
    out = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples/recover.py"), "--allow-env-cmd", str(workspace)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["no active change", "declared gate test: fresh", "nothing to do"]
