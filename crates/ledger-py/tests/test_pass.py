"""What a PASS must hold and what a write was based on, from Python
(docs/lifecycle.md, docs/approvals.md): ``no_delivery=``, exclusions under any
spelling, phase records at every check, ``gate_prerequisites=``, and
``reviewed=`` / ``expected=`` on every write."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ledger
from conftest import CHANGE, Cli, write

DIR = "openspec/changes/add-auth"
ARTIFACTS = ("proposal", "specs", "design", "tasks")


def approved(workspace: Path, prerequisites: dict[str, ledger.Observe] | None = None) -> tuple[ledger.Store, ledger.ChangeSet]:
    write(workspace, f"{DIR}/.openspec.yaml", "schema: spec-driven\n")
    write(workspace, "openspec/specs/auth/spec.md", "# auth\n")
    store, change = ledger.Store(workspace), ledger.ChangeSet(workspace, CHANGE)
    for artifact in ARTIFACTS:
        ledger.approve(store, change, artifact, "review 1")
    scope = ledger.Scope(workspace, roots=["src"])
    spec = ledger.GateSpec("test", ["cat", "src/app.py"], scope=scope, prerequisites=prerequisites)
    ledger.run_gate(store, spec)
    return store, change


def head(store: ledger.Store) -> str | None:
    return ledger.current_state(store, CHANGE)[0]


def test_a_pass_names_its_delivery_or_records_why_there_is_none(workspace: Path, cli: Cli) -> None:
    store, change = approved(workspace)
    before = head(store)
    with pytest.raises(ledger.NoDeliveryError, match="--no-delivery"):
        ledger.validate_record(store, change, "PASS", "r", gates=["test"])
    assert head(store) == before
    with pytest.raises(ledger.InvalidArgumentError):
        ledger.validate_record(store, change, "PASS", "r", gates=["test"], roots=["src"], no_delivery="none")
    _, envelope = ledger.validate_record(store, change, "PASS", "r", gates=["test"], no_delivery="a planning-only change")
    assert envelope.validation is not None and envelope.validation.no_delivery == "a planning-only change"
    check = ledger.validate_check(store, change)
    assert check.stands and check.no_delivery == "a planning-only change"
    shown = cli.json("validate", "check", "--change", CHANGE, "--json", "--workspace", str(workspace))
    assert shown["no_delivery"] == "a planning-only change"


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
    store, change = approved(workspace)
    with pytest.raises(error):
        ledger.validate_record(
            store, change, "PASS", "r", roots=["src"], gates=["test"], exclude=exclude, phase_records=phase_records
        )
    assert ledger.current_state(store, CHANGE)[1].validation is None


def test_a_phase_record_is_one_regular_file_when_recorded_and_at_every_check(workspace: Path) -> None:
    store, change = approved(workspace)
    record = ".agents/phases/add-auth.md"
    args = {"roots": ["src"], "gates": ["test"], "phase_records": [record]}
    with pytest.raises(ledger.InvalidArgumentError, match="missing"):
        ledger.validate_record(store, change, "PASS", "r", **args)  # type: ignore[arg-type]
    write(workspace, record, "validated\n")
    ledger.validate_record(store, change, "PASS", "r", **args)  # type: ignore[arg-type]
    assert ledger.validate_check(store, change).stands
    (workspace / record).unlink()
    write(workspace, f"{record}/smuggled.py", "print('not validated')\n")
    check = ledger.validate_check(store, change)
    assert not check.stands
    [standing] = check.phase_records
    assert (standing.path, standing.kind, standing.inside, standing.stands) == (
        record,
        "directory",
        [f"{record}/smuggled.py"],
        False,
    )
    done = ledger.finalize_check(store, change)
    assert not done.clean
    assert [(c.change, c.path) for c in done.new_changes] == [("added", f"{record}/smuggled.py")]
    assert done.phase_records[0].kind == "directory"
    shutil.rmtree(workspace / record)
    assert ledger.finalize_check(store, change).phase_records[0].kind == "missing"


def test_a_validation_observes_its_gates_prerequisites(workspace: Path) -> None:
    store, change = approved(workspace, {"toolchain": ledger.Observe.literal("3.12")})
    with pytest.raises(ledger.ValidationRefusedError, match="toolchain"):
        ledger.validate_record(store, change, "PASS", "r", roots=["src"], gates=["test"])
    with pytest.raises(ledger.InvalidArgumentError, match="tset"):
        ledger.validate_record(store, change, "PASS", "r", roots=["src"], gates=["test"], gate_prerequisites={"tset": {}})
    observed = {"test": {"toolchain": ledger.Observe.literal("3.12")}}
    ledger.validate_record(store, change, "PASS", "r", roots=["src"], gates=["test"], gate_prerequisites=observed)
    assert not ledger.validate_check(store, change).stands
    assert ledger.validate_check(store, change, gate_prerequisites=observed).stands
    by_command = {"test": {"toolchain": ledger.Observe.command("echo 3.12")}}
    assert ledger.validate_check(store, change, gate_prerequisites=by_command).stands


def test_writes_record_nothing_when_what_was_reviewed_moved_or_another_writer_came_first(workspace: Path) -> None:
    store, change = ledger.Store(workspace), ledger.ChangeSet(workspace, CHANGE)
    reviewed = ledger.fingerprint(workspace, paths=[f"{DIR}/proposal.md"])
    write(workspace, f"{DIR}/proposal.md", "# Why\nEdited after the review.\n")
    with pytest.raises(ledger.FingerprintMovedError, match=f"{DIR}/proposal.md") as info:
        ledger.approve(store, change, "proposal", "r", reviewed=reviewed, expected="none")
    assert info.value.code == "fingerprint-moved" and reviewed in str(info.value)
    assert head(store) is None
    now = ledger.fingerprint(workspace, paths=[f"{DIR}/proposal.md"])
    ledger.approve(store, change, "proposal", "r", reviewed=now, expected="none")
    first = head(store)
    assert first is not None
    with pytest.raises(ledger.PointerConflictError):
        ledger.approve(store, change, "proposal", "r", reviewed=now, expected="none")
    second, _ = ledger.advance_state(store, change, role="implementation", expected=first)
    # Every write verb, started from the first record: another writer came first.
    with pytest.raises(ledger.PointerConflictError):
        ledger.approve(store, change, "proposal", "r", expected=first)
    with pytest.raises(ledger.PointerConflictError):
        ledger.advance_state(store, change, role="x", expected=first)
    with pytest.raises(ledger.PointerConflictError):
        ledger.validate_record(store, change, "FAIL", "r", expected=first)
    with pytest.raises(ledger.PointerConflictError):
        ledger.retire(store, CHANGE, "abandoned", expected=first)
    assert head(store) == second
    ledger.retire(store, CHANGE, "abandoned", expected=second)
    with pytest.raises(ledger.BadFingerprintError):
        ledger.approve(store, change, "proposal", "r", reviewed="sha256:nope")
