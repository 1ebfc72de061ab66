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
from conftest import CHANGE, REPO_ROOT, Cli, write

ARTIFACTS = ("proposal", "specs", "design", "tasks")
ARCHIVE = "openspec/changes/archive/2026-12-01-add-auth"
DELTA = "## ADDED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n"
# What `openspec archive` writes for a new capability from DELTA.
SYNCED = (
    "# auth Specification\n\n## Purpose\nTBD - created by archiving change add-auth. Update Purpose after archive.\n\n"
    "## Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n"
)


def approved(workspace: Path) -> tuple[ledger.Store, ledger.ChangeSet]:
    store, change = ledger.Store(workspace), ledger.ChangeSet(workspace, CHANGE)
    for artifact in ARTIFACTS:
        ledger.approve(store, change, artifact, "review 1")
    return store, change


def run_gate(workspace: Path, store: ledger.Store) -> None:
    scope = ledger.Scope(workspace, roots=["src"])
    spec = ledger.GateSpec("test", ["cat", "src/app.py"], scope=scope)
    ledger.run_gate(store, spec)


def test_advance_state_patches_only_the_named_fields(workspace: Path, cli: Cli) -> None:
    store, change = approved(workspace)
    first, envelope = ledger.advance_state(store, change, role="implementation", areas=["py"], next="validation")
    assert len(envelope.bindings) == 4
    assert envelope.tasks_remaining == ["1.1", "1.2"]
    tasks = workspace / "openspec/changes/add-auth/tasks.md"
    tasks.write_text(tasks.read_text().replace("- [ ] 1.1", "- [x] 1.1"))
    second, envelope = ledger.advance_state(store, change, checks=[("pytest", "PASS")], expected=first)
    assert (envelope.role, envelope.tasks_completed, envelope.checks) == ("implementation", ["1.1"], [("pytest", "PASS")])
    with pytest.raises(ledger.PointerConflictError) as info:
        ledger.advance_state(store, change, outcome="x", expected=first)
    assert first in str(info.value) and second in str(info.value)
    _, given = ledger.advance_state(store, change, completed=["1.1", "1.2"])
    assert (given.tasks_completed, given.tasks_remaining) == (["1.1", "1.2"], [])
    log = ledger.state_log(store, CHANGE)
    assert len(log) == 4 + 3
    assert log[2].changes[0] == ("role", "(none) -> implementation")
    shown = cli.json("state", "log", "--change", CHANGE, "--json", "--workspace", str(workspace))
    assert [e["record"] for e in shown] == [e.record for e in log]
    assert [[(c["field"], c["summary"]) for c in e["changes"]] for e in shown] == [e.changes for e in log]


def test_validation_and_finalization(workspace: Path, cli: Cli) -> None:
    write(workspace, "openspec/changes/add-auth/specs/auth/spec.md", DELTA)
    store, change = approved(workspace)
    with pytest.raises(ledger.ValidationRefusedError, match="gate test is stale"):
        ledger.validate_record(store, change, "PASS", "review 2", roots=["src"], gates=["test"])
    run_gate(workspace, store)
    record, envelope = ledger.validate_record(store, change, "PASS", "review 2", roots=["src"], gates=["test"])
    assert envelope.validation is not None
    assert (envelope.validation.verdict, envelope.validation.capabilities) == ("PASS", ["auth"])
    assert envelope.validation.gates[0][0] == "test"
    check = ledger.validate_check(store, change)
    assert check.stands and check.record == record and check.gates[0].fresh
    out = cli.run("validate", "check", "--change", CHANGE, "--json", "--workspace", str(workspace))
    assert out.returncode == 0 and out.stdout == check.to_json()

    shutil.move(str(workspace / "openspec/changes/add-auth"), str(workspace / ARCHIVE))
    write(workspace, "openspec/specs/auth/spec.md", SYNCED)
    write(workspace, "docs/registry.md", "add-auth\n")
    done = ledger.finalize_check(store, change, expect=["docs/registry.md"])
    assert done.clean and done.archive_move == ("openspec/changes/add-auth", ARCHIVE)
    assert len(done.moved) == 5
    assert [(c.change, c.path) for c in done.spec_sync] == [("added", "openspec/specs/auth/spec.md")]
    assert [c.path for c in done.registry] == ["docs/registry.md"]
    args = ("finalize", "check", "--change", CHANGE, "--expect", "docs/registry.md", "--json")
    assert cli.ok(*args, "--workspace", str(workspace)) == done.to_json()
    assert (done.spec_mismatches, done.sync_unverified) == ([], [])
    # Unrelated text where the sync belongs: a new change naming the headers.
    write(workspace, "openspec/specs/auth/spec.md", "# auth\n\nanything else\n")
    replaced = ledger.finalize_check(store, change, expect=["docs/registry.md"])
    assert not replaced.clean
    assert [c.path for c in replaced.new_changes] == ["openspec/specs/auth/spec.md"]
    assert replaced.spec_mismatches == [
        ("auth", "openspec/specs/auth/spec.md", ["### Requirement: Login", "(outside the requirement blocks)"])
    ]
    out = cli.run("finalize", "check", "--change", CHANGE, "--expect", "docs/registry.md", "--workspace", str(workspace))
    assert out.returncode == 1 and "spec sync differs from the approved deltas (1):" in out.stdout
    write(workspace, "openspec/specs/auth/spec.md", SYNCED)
    write(workspace, "src/app.py", "print('changed')\n")
    blocked = ledger.finalize_check(store, change, expect=["docs/registry.md"])
    assert not blocked.clean
    assert [(c.change, c.path) for c in blocked.new_changes] == [("content-changed", "src/app.py")]


def test_examples_recover_runs_the_recovery_protocol(workspace: Path) -> None:
    store, change = approved(workspace)
    run_gate(workspace, store)
    record, _ = ledger.advance_state(store, change, role="implementation", blockers=["API key"], next="validation")
    out = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples/recover.py"), str(workspace)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.splitlines() == [
        f"change add-auth (state record {record})",
        "  approval proposal: approved",
        "  approval specs: approved",
        "  approval design: approved",
        "  approval tasks: approved",
        "  all approvals stand: True",
        "  role implementation, outcome -",
        "  tasks done [], left ['1.1', '1.2']",
        "  blocker: API key",
        "  next outcome: validation",
        "gate test: fresh",
    ]
    assert json.loads(ledger.current_state(store, CHANGE)[1].to_json())["next_outcome"] == "validation"
