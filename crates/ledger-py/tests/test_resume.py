"""Resuming from Python (docs/lifecycle.md, Resuming in one call):
`Workspace.check()` is `ledger check --json` and `Workspace.changes()` is
`ledger changes --json`, the same documents."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import ledger
from conftest import CHANGE, Cli, write


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
    with pytest.raises(ledger.InvalidArgumentError, match="lint"):
        ws.check(gate_prerequisites={"lint": {"x": {"literal": "1"}}})


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
