"""Gates declared once in ledger.toml: listed, run and checked as declared, run all
in dependency order; the CLI reuses what Python ran, and a check runs nothing the file says."""

from __future__ import annotations

from pathlib import Path

import pytest

import ledger
from conftest import Cli, write

DECLARED = """
[gates.lint]
command = ["sh", "-c", "echo lint >> '{runs}'; echo linting"]
roots = ["src"]
env = ["MODE=ci"]
env-cmd = {{ marker = "touch '{marker}'; echo m-1" }}

[gates.test]
command = ["sh", "-c", "echo test >> '{runs}'; test -f src/app.py"]
roots = ["src"]
exclude = [{{ path = "src/fixtures", reason = "data, not inputs" }}]
needs = ["lint"]
timeout = "2m"
"""


@pytest.fixture
def declared(workspace: Path, tmp_path: Path) -> tuple[ledger.Workspace, Path, Path]:
    runs, marker = tmp_path / "runs", tmp_path / "marker"
    runs.write_text("")
    write(workspace, "ledger.toml", DECLARED.format(runs=runs, marker=marker))
    # What the test gate's exclusion holds (one that holds nothing is refused).
    write(workspace, "src/fixtures/sample.json", "{}\n")
    return ledger.Workspace(workspace), runs, marker


def test_declared_gates_are_listed_in_dependency_order(declared: tuple[ledger.Workspace, Path, Path]) -> None:
    ws, _, _ = declared
    gates = ws.declared_gates()
    assert [g["name"] for g in gates] == ["lint", "test"]
    test = gates[1]
    assert test["needs"] == ["lint"]
    assert test["timeout_ms"] == 120_000
    assert test["exclude"] == [{"path": "src/fixtures", "reason": "data, not inputs"}]
    assert gates[0]["env"] == ["MODE=ci"]


def test_no_file_declares_nothing(tmp_path: Path) -> None:
    assert ledger.Workspace(tmp_path).declared_gates() == []
    with pytest.raises(ledger.InvalidArgumentError):
        ledger.Workspace(tmp_path).run_declared_gates()


def test_run_check_and_run_all(declared: tuple[ledger.Workspace, Path, Path], cli: Cli) -> None:
    ws, runs, marker = declared
    ran = ws.run_declared_gate("lint", echo="off")
    assert (ran["reused"], ran["exit_code"]) == (False, 0)
    assert ran["evidence"]["prerequisites"] == {"MODE": "ci", "marker": "m-1"}
    assert marker.exists(), "a run observes the declared command"
    marker.unlink()
    check = ws.check_declared_gate("lint")
    assert [r["reason"] for r in check["reasons"]] == ["prerequisite-unverified"]
    assert not marker.exists(), "a check ran a command read from ledger.toml"
    assert ws.check_declared_gate("lint", prerequisites={"marker": {"literal": "m-1"}})["fresh"]
    # One spec, every door: the CLI reuses the evidence Python recorded.
    out = cli.run("gate", "run", "lint", cwd=Path(ws.path))
    assert out.returncode == 0 and "reused, not run" in out.stderr, out.stderr
    assert runs.read_text().split() == ["lint"]
    all_runs = ws.run_declared_gates(echo="off")
    assert [(r["gate"], r["status"]) for r in all_runs["runs"]] == [("lint", "reused"), ("test", "passed")]
    assert all_runs["exit_code"] == 0
    assert runs.read_text().split() == ["lint", "test"]
    marker.unlink()  # the runs observed it again
    checked = ws.check_declared_gates(prerequisites={"marker": {"literal": "m-1"}})
    assert [(f["gate"], f["fresh"]) for f in checked] == [("lint", True), ("test", True)]
    assert [f["fresh"] for f in ws.check_declared_gates()] == [False, True]
    assert not marker.exists(), "a check ran a command read from ledger.toml"
    with pytest.raises(ledger.InvalidArgumentError, match="declared: lint, test"):
        ws.run_declared_gate("nope")
