"""Verdicts of audits (docs/verdicts.md) through the Python door: recorded on
any scope, standing until a fix, re-audited or downgraded explicitly; the same
documents as `ledger verdict ... --json`."""

from __future__ import annotations

from pathlib import Path

import pytest

import ledger
from conftest import Cli, conforms, write


def audited(tmp_path: Path) -> Path:
    """A directory outside Git: a plan and its sources."""
    w = tmp_path / "audit"
    write(w, "plan.md", "# Plan\n")
    write(w, "src/a.txt", "a\n")
    return w


def test_a_verdict_stands_until_a_fix_then_is_downgraded(tmp_path: Path) -> None:
    w = audited(tmp_path)
    ws = ledger.Workspace(w)
    recorded = ws.verdict_record(
        "plan-7",
        verdict="PASS",
        source="summary-7",
        findings=["minor: wording"],
        reports=["reports/summary-7.md"],
    )
    conforms(recorded, ledger.VerdictSummary)
    assert (recorded["event"], recorded["verdict"], recorded["findings"]) == ("recorded", "PASS", ["minor: wording"])
    reasons = {e["path"]: e["reason"] for e in recorded["scope"]["exclusions"]}
    assert reasons["reports/summary-7.md"].startswith("the verdict's own report")

    write(w, "reports/summary-7.md", "PASS\n")
    check = ws.verdict_check("plan-7")
    conforms(check, ledger.VerdictCheck)
    assert check["stands"] is True
    assert check["latest"] is not None and check["latest"]["record"] == recorded["record"]

    write(w, "src/a.txt", "fixed\n")
    fallen = ws.verdict_check("plan-7")
    assert fallen["stands"] is False
    assert fallen["comparison"] is not None
    assert [c["new"]["path"] for c in fallen["comparison"]["changes"]] == ["src/a.txt"]

    lowered = ws.verdict_downgrade("plan-7", to="FAIL", reason="fixed after the verdict")
    conforms(lowered, ledger.VerdictSummary)
    assert lowered["downgrade"] == {"from": "PASS", "reason": "fixed after the verdict", "audited": recorded["fingerprint"]}
    now = ws.verdict_check("plan-7")
    assert now["stands"] is True and now["latest"] is not None and now["latest"]["verdict"] == "FAIL"
    assert [r["event"] for r in ws.verdict_log("plan-7")] == ["downgraded", "recorded"]


def test_a_scope_and_a_re_audit(tmp_path: Path) -> None:
    w = audited(tmp_path)
    ws = ledger.Workspace(w)
    first = ws.verdict_record("pr-1", verdict="FAIL", source="s1", scope={"roots": ["src"]})
    assert first["entries"] == 1
    write(w, "plan.md", "# Plan, outside the scope\n")
    assert ws.verdict_check("pr-1")["stands"] is True
    write(w, "src/a.txt", "fixed\n")
    second = ws.verdict_record("pr-1", verdict="PASS", source="s2", scope={"roots": ["src"]})
    assert second["fingerprint"] != first["fingerprint"]
    assert [r["record"] for r in ws.verdict_log("pr-1")] == [second["record"], first["record"]]


def test_refusals(tmp_path: Path) -> None:
    ws = ledger.Workspace(audited(tmp_path))
    never = ws.verdict_check("nope")
    assert (never["stands"], never["latest"], never["comparison"]) == (False, None, None)
    assert ws.verdict_log("nope") == []
    with pytest.raises(ledger.InvalidArgumentError, match="a downgrade lowers a recorded verdict"):
        ws.verdict_downgrade("nope", to="FAIL", reason="r")
    ws.verdict_record("v", verdict="FAIL", source="s")
    with pytest.raises(ledger.InvalidArgumentError, match="never by a downgrade"):
        ws.verdict_downgrade("v", to="PASS", reason="r")
    with pytest.raises(ledger.InvalidArgumentError, match="FAIL already"):
        ws.verdict_downgrade("v", to="FAIL", reason="r")
    with pytest.raises(ledger.BadRefNameError):
        ws.verdict_record("../v", verdict="PASS", source="s")


def test_the_door_and_the_cli_give_the_same_documents(tmp_path: Path, cli: Cli) -> None:
    w = audited(tmp_path)
    ws = ledger.Workspace(w)
    cli.ok("verdict", "record", "--name", "r", "--verdict", "PASS", "--source", "s", "--workspace", str(w), "--finding", "f")
    assert cli.json("verdict", "log", "--name", "r", "--workspace", str(w), "--json") == ws.verdict_log("r")
    assert cli.json("verdict", "check", "--name", "r", "--workspace", str(w), "--json") == ws.verdict_check("r")


def test_writes_name_the_record_they_started_from(tmp_path: Path) -> None:
    w = audited(tmp_path)
    ws = ledger.Workspace(w)
    first = ws.verdict_record("plan-8", verdict="FAIL", source="audit-1", expected="no-record")
    assert ws.verdict_check("plan-8")["unproven"] is None
    with pytest.raises(ledger.LedgerError) as blind:
        ws.verdict_record("plan-8", verdict="PASS", source="audit-2", expected="no-record")
    assert blind.value.code == "pointer-conflict"
    second = ws.verdict_record("plan-8", verdict="PASS", source="audit-2", expected=first["record"])
    with pytest.raises(ledger.LedgerError) as stale:
        ws.verdict_downgrade("plan-8", to="FAIL", reason="fixed", expected=first["record"])
    assert stale.value.code == "pointer-conflict"
    lowered = ws.verdict_downgrade("plan-8", to="FAIL", reason="fixed", expected=second["record"])
    assert [r["record"] for r in ws.verdict_log("plan-8")] == [lowered["record"], second["record"], first["record"]]
