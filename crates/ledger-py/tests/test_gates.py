"""Gate evidence: run, reuse while it is true, and every reason it goes stale."""

from __future__ import annotations

import json
from pathlib import Path

import ledger
from conftest import write


def spec_for(ws: Path, argv: list[str] | None = None, **prerequisites: ledger.Observe) -> ledger.GateSpec:
    return ledger.GateSpec(
        "test",
        argv or ["sh", "-c", "echo checked; exit 0"],
        ledger.Scope(ws, roots=["src"]),
        prerequisites=prerequisites,
    )


def test_run_then_reuse_then_stale(workspace: Path) -> None:
    store = ledger.Store(workspace)
    spec = spec_for(workspace, tool=ledger.Observe.literal("1.0"))
    assert ledger.latest_evidence(store, "test") is None
    first = ledger.check_gate(store, spec)
    assert not first.fresh and [r.reason for r in first.reasons] == ["no-evidence"]

    ran = ledger.run_gate(store, spec)
    assert not ran.reused and ran.exit_code == 0 and ran.record is not None
    evidence = ran.evidence
    assert evidence is not None and evidence.passed and evidence.result == "checked"
    assert evidence.prerequisites == {"tool": "1.0"} and evidence.not_reusable is None
    assert evidence.fingerprint == ledger.fingerprint(workspace, roots=["src"])
    assert evidence.spec.argv == spec.argv and evidence.spec.cwd == "."
    latest = ledger.latest_evidence(store, "test")
    assert latest is not None and latest[0] == ran.record and latest[1] == evidence

    again = ledger.run_gate(store, spec)
    assert again.reused and again.evidence is None and again.freshness.fresh
    assert again.freshness.record == ran.record and again.exit_code == 0

    # Every failing condition is reported, not only the first.
    write(workspace, "src/app.py", "print('changed')\n")
    changed = spec_for(workspace, ["sh", "-c", "echo other"], tool=ledger.Observe.literal("2.0"))
    stale = ledger.check_gate(store, changed)
    assert not stale.fresh
    assert sorted(r.reason for r in stale.reasons) == [
        "command-differs", "inputs-changed", "prerequisite-changed"
    ]
    inputs = next(r for r in stale.reasons if r.reason == "inputs-changed")
    assert inputs.comparison is not None
    assert [c.path for c in inputs.comparison.changes] == ["src/app.py"]
    assert "prerequisite tool changed: 1.0 -> 2.0" in [str(r) for r in stale.reasons]
    assert json.loads(stale.to_json())["gate"] == "test"


def test_a_failing_gate_is_recorded_and_never_reused(workspace: Path) -> None:
    store = ledger.Store(workspace)
    spec = spec_for(workspace, ["sh", "-c", "echo broken >&2; exit 3"])
    ran = ledger.run_gate(store, spec, echo="off")
    assert ran.exit_code == 3 and ran.evidence is not None and not ran.evidence.passed
    assert ran.evidence.result == "broken"
    check = ledger.check_gate(store, spec)
    assert [r.reason for r in check.reasons] == ["failed"]
    assert not ledger.run_gate(store, spec).reused


def test_a_scope_that_differs_is_not_the_same_gate(workspace: Path) -> None:
    store = ledger.Store(workspace)
    ledger.run_gate(store, spec_for(workspace))
    partial = ledger.GateSpec("test", spec_for(workspace).argv, ledger.Scope(workspace, roots=["src/app.py"]))
    assert [r.reason for r in ledger.check_gate(store, partial).reasons] == ["scope-differs"]


def test_observe(monkeypatch: object) -> None:
    import os

    os.environ["LEDGER_PY_TEST_VAR"] = "set"
    try:
        assert ledger.Observe.environment("LEDGER_PY_TEST_VAR").observe() == "set"
    finally:
        del os.environ["LEDGER_PY_TEST_VAR"]
    assert ledger.Observe.environment("LEDGER_PY_TEST_VAR").observe() == ""
    cmd = ledger.Observe.command("echo '  v1.2  '")
    assert cmd.kind == "command" and cmd.text == "echo '  v1.2  '" and cmd.observe("v") == "v1.2"
    assert ledger.Observe.literal("x") == ledger.Observe.literal("x")
    spec = ledger.GateSpec("g", ["true"], ledger.Scope("."), prerequisites={"a": ledger.Observe.literal("1")})
    assert spec.observe() == {"a": "1"} and spec.prerequisites["a"].kind == "literal"


def test_arguments_take_any_iterable_or_mapping(workspace: Path) -> None:
    from types import MappingProxyType

    spec = ledger.GateSpec(
        "g", (a for a in ["sh", "-c", "true"]), ledger.Scope(workspace),
        prerequisites=MappingProxyType({"v": ledger.Observe.literal("1")}),
    )
    assert spec.argv == ["sh", "-c", "true"] and spec.observe() == {"v": "1"}
    import pytest

    with pytest.raises(TypeError):
        ledger.GateSpec("g", "true", ledger.Scope(workspace))  # a str is not an argv
    graph = ledger.ArtifactGraph(iter([ledger.Artifact("a", "a.md", requires=iter([]))]))
    assert [a.id for a in graph.artifacts] == ["a"]
    text = ledger.inventory(workspace).to_json(meta=MappingProxyType({"k": "v"}), command=iter(["x"]))
    assert json.loads(text)["observed"] == {"command": ["x"], "meta": {"k": "v"}}
