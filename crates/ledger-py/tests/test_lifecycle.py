"""The change lifecycle (docs/lifecycle.md) from Python: the handoff, a
validation PASS, the finalization check, and examples/recover.py, with the
same documents the CLI prints with --json."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ledger
from conftest import CHANGE, REPO_ROOT, Cli, git, write

ARTIFACTS = ("proposal", "specs", "design", "tasks")
ARCHIVE = "openspec/changes/archive/2026-12-01-add-auth"
DELTA = "## ADDED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n"
# What `openspec archive` writes for a new capability from DELTA.
SYNCED = (
    "# auth Specification\n\n## Purpose\nTBD - created by archiving change add-auth. Update Purpose after archive.\n\n"
    "## Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n"
)


def approved(workspace: Path) -> ledger.Workspace:
    ws = ledger.Workspace(workspace)
    for artifact in ARTIFACTS:
        ws.approve(CHANGE, artifact, source="review 1")
    return ws


def run_gate(ws: ledger.Workspace) -> None:
    ws.run_gate("test", argv=["cat", "src/app.py"], scope={"roots": ["src"]})


def test_advance_state_patches_only_the_named_fields(workspace: Path, cli: Cli) -> None:
    ws = approved(workspace)
    written = ws.advance_state(CHANGE, role="implementation", areas=["py"], next="validation")
    first, envelope = written["record"], written["state"]
    assert first is not None
    assert len(envelope["bindings"]) == 4
    assert envelope["tasks_remaining"] == ["1.1", "1.2"]
    tasks = workspace / "openspec/changes/add-auth/tasks.md"
    tasks.write_text(tasks.read_text().replace("- [ ] 1.1", "- [x] 1.1"))
    written = ws.advance_state(CHANGE, checks=[{"name": "pytest", "result": "PASS"}], expected=first)
    second, envelope = written["record"], written["state"]
    assert second is not None
    assert (envelope["role"], envelope["tasks_completed"], envelope["checks"]) == (
        "implementation", ["1.1"], [{"name": "pytest", "result": "PASS"}]
    )
    with pytest.raises(ledger.PointerConflictError) as info:
        ws.advance_state(CHANGE, outcome="x", expected=first)
    assert first in str(info.value) and second in str(info.value)
    # The Tasks file is the record: 1.2 is open there, so saying it is done needs a reason.
    with pytest.raises(ledger.InvalidArgumentError) as refused:
        ws.advance_state(CHANGE, completed=["1.1", "1.2"])
    assert "1.2 is given as done but is open" in str(refused.value)
    given = ws.advance_state(CHANGE, completed=["1.1", "1.2"], tasks_reason="1.2 shipped elsewhere")["state"]
    assert (given["tasks_completed"], given["tasks_remaining"]) == (["1.1", "1.2"], [])
    assert {"name": "task-ids", "result": "given, not read from the Tasks file: 1.2 shipped elsewhere"} in given["checks"]
    log = ws.state_log(CHANGE)
    assert len(log) == 4 + 3
    assert log[2]["changes"][0] == {"field": "role", "summary": "(none) -> implementation"}
    shown = cli.json("state", "log", "--change", CHANGE, "--json", "--workspace", str(workspace))
    assert shown == log


def test_validation_and_finalization(workspace: Path, cli: Cli) -> None:
    write(workspace, "openspec/changes/add-auth/specs/auth/spec.md", DELTA)
    ws = approved(workspace)
    with pytest.raises(ledger.ValidationRefusedError, match="gate test is stale"):
        ws.record_validation(CHANGE, verdict="PASS", source="review 2", roots=["src"], gates=["test"])
    run_gate(ws)
    written = ws.record_validation(CHANGE, verdict="PASS", source="review 2", roots=["src"], gates=["test"])
    record, validation = written["record"], written["state"]["validation"]
    assert validation is not None
    assert (validation["verdict"], validation["capabilities"]) == ("PASS", ["auth"])
    assert validation["gates"][0]["gate"] == "test"
    # The commit HEAD named, and whether the PASS inventory was that commit's.
    head = validation["head"]
    assert head is not None and head["commit"] == git(workspace, "rev-parse", "HEAD").strip()
    assert head["clean"] is False  # the delta spec written above is not committed
    check = ws.check_validation(CHANGE)
    assert check["stands"] and check["record"] == record and check["gates"][0]["fresh"]
    out = cli.run("validate", "check", "--change", CHANGE, "--json", "--workspace", str(workspace))
    assert out.returncode == 0 and json.loads(out.stdout) == check

    shutil.move(str(workspace / "openspec/changes/add-auth"), str(workspace / ARCHIVE))
    write(workspace, "openspec/specs/auth/spec.md", SYNCED)
    write(workspace, "docs/registry.md", "add-auth\n")
    done = ws.finalize_check(CHANGE, expect=["docs/registry.md"])
    assert done["clean"] and done["archive_move"] is not None
    assert (done["archive_move"]["from"], done["archive_move"]["to"]) == ("openspec/changes/add-auth", ARCHIVE)
    assert len(done["archive_move"]["files"]) == 5
    assert [(c["change"], c["new"]["path"]) for c in done["spec_sync"]] == [("added", "openspec/specs/auth/spec.md")]
    assert [c["new"]["path"] for c in done["registry"]] == ["docs/registry.md"]
    args = ("finalize", "check", "--change", CHANGE, "--expect", "docs/registry.md", "--json")
    assert json.loads(cli.ok(*args, "--workspace", str(workspace))) == done
    assert (done["spec_mismatches"], done["sync_unverified"]) == ([], [])
    # Unrelated text where the sync belongs: a new change naming the headers.
    write(workspace, "openspec/specs/auth/spec.md", "# auth\n\nanything else\n")
    replaced = ws.finalize_check(CHANGE, expect=["docs/registry.md"])
    assert not replaced["clean"]
    assert [c["new"]["path"] for c in replaced["new_changes"]] == ["openspec/specs/auth/spec.md"]
    assert replaced["spec_mismatches"] == [
        {
            "capability": "auth",
            "path": "openspec/specs/auth/spec.md",
            "headers": ["### Requirement: Login", "(outside the requirement blocks)"],
        }
    ]
    out = cli.run("finalize", "check", "--change", CHANGE, "--expect", "docs/registry.md", "--workspace", str(workspace))
    assert out.returncode == 1 and "spec sync differs from the approved deltas (1):" in out.stdout
    write(workspace, "openspec/specs/auth/spec.md", SYNCED)
    write(workspace, "src/app.py", "print('changed')\n")
    blocked = ws.finalize_check(CHANGE, expect=["docs/registry.md"])
    assert not blocked["clean"]
    assert [(c["change"], c["new"]["path"]) for c in blocked["new_changes"]] == [("content-changed", "src/app.py")]


def test_examples_recover_runs_the_recovery_protocol(workspace: Path) -> None:
    ws = approved(workspace)
    run_gate(ws)
    record = ws.advance_state(CHANGE, role="implementation", blockers=["API key"], next="validation")["record"]
    out = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples/recover.py"), str(workspace)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1, f"work to do: {out.stderr}"
    assert out.stdout.splitlines() == [
        f"change add-auth (active, state record {record})",
        "  approval proposal: approved",
        "  approval specs: approved",
        "  approval design: approved",
        "  approval tasks: approved",
        "  role implementation, outcome -",
        "  tasks 0 of 2 done",
        "  blocker: API key",
        "  next: validation",
        "work tasks-left (add-auth): 2 of 2 tasks left in openspec/changes/add-auth/tasks.md: 1.1, 1.2",
        "work blocker (add-auth): blocked: API key",
        "work not-validated (add-auth): no verdict is recorded: record a validation when the change is done",
        "work to do",
    ]
    assert ws.current_state(CHANGE)["state"]["next_outcome"] == "validation"
