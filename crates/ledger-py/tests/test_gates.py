"""Gate evidence: run, reuse while it is true, and every reason it goes stale."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import ledger
from conftest import Cli, write


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
    assert "prerequisite tool changed: '1.0' -> '2.0'" in [str(r) for r in stale.reasons]
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
    assert ledger.Observe.environment("LEDGER_PY_TEST_VAR").observe() is None
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


def test_a_cwd_below_the_workspace_is_one_directory_however_written(workspace: Path, cli: Cli) -> None:
    store = ledger.Store(workspace)
    argv = ["sh", "-c", "ls app.py"]
    spec = ledger.GateSpec("test", argv, ledger.Scope(workspace), cwd="src/")
    assert spec.cwd == "src"
    ran = ledger.run_gate(store, spec)
    assert ran.evidence is not None and ran.evidence.result == "app.py"
    assert ran.evidence.spec.cwd == "src"
    for same in ["src/", "./src", "src"]:
        again = ledger.GateSpec("test", argv, ledger.Scope(workspace), cwd=same)
        assert ledger.check_gate(store, again).fresh, same
        assert ledger.run_gate(store, again).reused, same
    # The CLI, run from there, finds the same evidence fresh.
    out = cli.run("gate", "check", "--name", "test", "--json", "--", *argv, cwd=workspace / "src")
    assert out.returncode == 0 and json.loads(out.stdout)["fresh"], out.stdout + out.stderr
    elsewhere = ledger.GateSpec("test", argv, ledger.Scope(workspace), cwd=".")
    assert [r.reason for r in ledger.check_gate(store, elsewhere).reasons] == ["command-differs"]


def test_an_invalid_spec_cannot_be_built(workspace: Path) -> None:
    scope = ledger.Scope(workspace)
    with pytest.raises(ledger.OutsideWorkspaceError):
        ledger.GateSpec("test", ["true"], scope, cwd="../elsewhere")
    with pytest.raises(ledger.OutsideWorkspaceError):
        ledger.GateSpec("test", ["true"], scope, cwd="/tmp")
    with pytest.raises(ledger.InvalidArgumentError):
        ledger.GateSpec("test", [], scope)
    with pytest.raises(ledger.InvalidArgumentError):
        ledger.GateSpec("test", ["true"], scope, prerequisites={"": ledger.Observe.literal("1")})
    with pytest.raises(ledger.InvalidArgumentError):
        ledger.GateSpec("test", ["true"], scope, prerequisites={"v": ledger.Observe.environment("A=B")})
    with pytest.raises(ledger.BadRefNameError):
        ledger.GateSpec("../x", ["true"], scope)
    # Text that is not valid Unicode is refused, not replaced.
    with pytest.raises(ledger.NonUtf8ValueError):
        ledger.GateSpec("test", ["echo", "\udcff"], scope)
    with pytest.raises(ledger.NonUtf8ValueError):
        ledger.GateSpec("test", ["true"], scope, cwd="sub\udcff")
    with pytest.raises(TypeError):
        ledger.GateSpec("test", ["true", 1], scope)  # type: ignore[list-item]


@pytest.fixture
def flags() -> Iterator[str]:
    """An environment variable name, unset before and after the test."""
    name = "LEDGER_PY_TEST_FLAGS"
    os.environ.pop(name, None)
    yield name
    os.environ.pop(name, None)


def test_an_unset_variable_differs_from_an_empty_one(workspace: Path, flags: str) -> None:
    store = ledger.Store(workspace)
    spec = spec_for(workspace, flags=ledger.Observe.environment(flags))
    assert spec.observe() == {"flags": None}
    ran = ledger.run_gate(store, spec)
    assert ran.evidence is not None and ran.evidence.prerequisites == {"flags": None}
    assert json.loads(ran.evidence.to_json())["prerequisites"] == {"flags": None}
    assert ledger.run_gate(store, spec).reused
    os.environ[flags] = ""
    stale = ledger.check_gate(store, spec)
    assert [r.reason for r in stale.reasons] == ["prerequisite-changed"]
    assert json.loads(stale.reasons[0].to_json()) == {
        "reason": "prerequisite-changed", "name": "flags", "recorded": None, "now": ""
    }
    assert str(stale.reasons[0]) == "prerequisite flags changed: (unset) -> ''"
    again = ledger.run_gate(store, spec)
    assert not again.reused and again.evidence is not None
    assert again.evidence.prerequisites == {"flags": ""}


def test_a_value_that_is_not_utf8_is_refused(workspace: Path, flags: str) -> None:
    store = ledger.Store(workspace)
    os.environb[flags.encode()] = b"-O\xff"
    spec = spec_for(workspace, flags=ledger.Observe.environment(flags))
    with pytest.raises(ledger.NonUtf8ValueError) as info:
        ledger.run_gate(store, spec)
    assert f"prerequisite flags (environment variable {flags})" in str(info.value)
    assert "-O\\377" in str(info.value)
    # Read through os.environ, the same bytes arrive as a lone surrogate.
    assert os.environ[flags] == "-O\udcff"
    with pytest.raises(ledger.NonUtf8ValueError) as info:
        ledger.Observe.literal(os.environ[flags])
    assert "-O\\377" in str(info.value)
    # Two outputs that would both have decoded to U+FFFD.
    for output in ["printf '\\377'", "printf '\\376'"]:
        with pytest.raises(ledger.NonUtf8ValueError):
            ledger.Observe.command(output).observe("tool")
    assert ledger.latest_evidence(store, "test") is None, "nothing was recorded"


def rewrite_head(store_dir: Path, gate: str, edit: Callable[[dict[str, Any]], None]) -> str:
    """Replaces the head of a gate's log by an edited copy: a consistent record
    (its bytes hash to its name) that lies."""
    store = ledger.Store(store_dir.parent)
    latest = ledger.latest_evidence(store, gate)
    assert latest is not None
    record = store.read_record(latest[0])
    edit(record["body"])
    record["previous"] = latest[0]
    data = (json.dumps(record, indent=2) + "\n").encode()
    lie = hashlib.sha256(data).hexdigest()
    (store_dir / "records" / f"{lie}.json").write_bytes(data)
    (store_dir / "refs" / "gates" / gate).write_text(lie + "\n")
    return lie


def test_evidence_whose_entries_do_not_give_its_fingerprint_is_refused(workspace: Path) -> None:
    store = ledger.Store(workspace)
    spec = spec_for(workspace)
    ledger.run_gate(store, spec)
    write(workspace, "src/app.py", "print('changed after the run')\n")
    now = ledger.fingerprint(workspace, roots=["src"])

    def claim_now(body: dict[str, Any]) -> None:
        body["inventory"]["fingerprint"] = now

    lie = rewrite_head(workspace / ".ledger", "test", claim_now)
    for call in (ledger.check_gate, ledger.run_gate):
        with pytest.raises(ledger.MalformedRecordError) as info:
            call(store, spec)
        assert f"{lie}.json" in str(info.value) and "not its recorded fingerprint" in str(info.value)


def test_a_check_never_runs_a_recorded_prerequisite_command(workspace: Path, tmp_path: Path) -> None:
    store = ledger.Store(workspace)
    marker = tmp_path / "observed"
    observe = ledger.Observe.command(f"touch '{marker}'; echo tool 1.0")
    assert not ledger.run_gate(store, spec_for(workspace, tool=observe)).reused
    marker.unlink()
    # Left out, the prerequisite cannot be observed: reported, not trusted.
    check = ledger.check_recorded_gate(workspace, "test")
    assert not check.fresh and [r.reason for r in check.reasons] == ["prerequisite-unverified"]
    assert json.loads(check.reasons[0].to_json()) == {
        "reason": "prerequisite-unverified", "name": "tool", "recorded": "tool 1.0"
    }
    assert not marker.exists(), "a recorded command ran"
    # Given now, it is observed; so are a command and a scope given now.
    now = {"tool": ledger.Observe.literal("tool 1.0")}
    assert ledger.check_recorded_gate(workspace, "test", prerequisites=now).fresh
    argv = spec_for(workspace).argv
    scope = ledger.Scope(workspace, roots=["src"])
    assert ledger.check_recorded_gate(workspace, "test", scope=scope, argv=argv, prerequisites=now).fresh
    other = ledger.check_recorded_gate(workspace, "test", argv=["make"], prerequisites=now)
    assert [r.reason for r in other.reasons] == ["command-differs"]
    assert [r.reason for r in ledger.check_recorded_gate(workspace, "never").reasons] == ["no-evidence"]


def test_a_recorded_workspace_is_a_mismatch_never_a_place_to_hash(workspace: Path, tmp_path: Path) -> None:
    store = ledger.Store(workspace)
    spec = spec_for(workspace)
    ledger.run_gate(store, spec)

    def elsewhere(body: dict[str, Any]) -> None:
        body["spec"]["scope"]["workspace"] = str(tmp_path)
        body["inventory"]["scope"]["workspace"] = str(tmp_path)

    rewrite_head(workspace / ".ledger", "test", elsewhere)
    # Hashing the parent would meet this FIFO.
    os.mkfifo(tmp_path / "fifo")
    for check in (ledger.check_gate(store, spec), ledger.check_recorded_gate(workspace, "test")):
        assert [r.reason for r in check.reasons] == ["scope-differs"]
        assert "it ran in " in str(check.reasons[0])
    # A scope outside the caller's workspace is refused.
    with pytest.raises(ledger.OutsideWorkspaceError):
        ledger.check_recorded_gate(workspace, "test", scope=ledger.Scope(tmp_path))


def test_a_timeout_stops_the_gate_and_is_never_reused(workspace: Path) -> None:
    import time

    store = ledger.Store(workspace)
    spec = spec_for(workspace, ["sh", "-c", "sleep 30"])
    start = time.monotonic()
    ran = ledger.run_gate(store, spec, timeout=0.3)
    assert time.monotonic() - start < 10
    assert ran.exit_code == 124 and ran.evidence is not None
    assert ran.evidence.signal == 15 and ran.evidence.exit_status is None
    assert ran.evidence.stopped == "timeout" and not ran.evidence.passed
    assert (ran.evidence.not_reusable or "").startswith("timed out after 300ms")
    reasons = [r.reason for r in ledger.check_gate(store, spec).reasons]
    assert reasons == ["failed", "not-reusable"]
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ledger.InvalidArgumentError):
            ledger.run_gate(store, spec, timeout=bad)


def test_a_gate_killed_by_signal_n_exits_128_plus_n(workspace: Path) -> None:
    store = ledger.Store(workspace)
    ran = ledger.run_gate(store, spec_for(workspace, ["sh", "-c", "kill -USR1 $$"]))
    assert ran.exit_code == 128 + 10 and ran.evidence is not None and ran.evidence.signal == 10


def test_ctrl_c_stops_the_gate_records_it_and_is_raised(workspace: Path, tmp_path: Path) -> None:
    import signal
    import threading

    store = ledger.Store(workspace)
    pid_file = tmp_path / "gate-pid"
    spec = spec_for(workspace, ["sh", "-c", f"echo $$ > '{pid_file}'; sleep 30"])

    def interrupt() -> None:
        for _ in range(500):
            if pid_file.exists() and pid_file.read_text().endswith("\n"):
                break
            threading.Event().wait(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    # A shell starts a background job with SIGINT ignored, and Python then leaves
    # it so: Ctrl-C must be Python's own for this test, wherever it runs.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt).start()
        with pytest.raises(KeyboardInterrupt):
            ledger.run_gate(store, spec, timeout=60)
    finally:
        signal.signal(signal.SIGINT, previous)
    latest = ledger.latest_evidence(store, "test")
    assert latest is not None and not latest[1].passed and latest[1].stopped == "interrupt"
    assert (latest[1].not_reusable or "").startswith("interrupted by the caller")
    gate = pid_file.read_text().strip()
    assert not Path(f"/proc/{gate}").exists() or "Z" in Path(f"/proc/{gate}/stat").read_text().split(")")[-1][:3]


def test_a_failing_run_keeps_its_whole_output(workspace: Path) -> None:
    store = ledger.Store(workspace)
    script = "exec >&2; i=0; while [ $i -lt 200 ]; do echo line $i; i=$((i+1)); done; printf 'raw \\377\\n'; exit 3"
    spec = spec_for(workspace, ["sh", "-c", script])
    assert ledger.gate_output(store, "test") is None
    ran = ledger.run_gate(store, spec, echo="off")
    expected = b"".join(b"line %d\n" % i for i in range(200)) + b"raw \xff\n"
    evidence = ran.evidence
    assert ran.exit_code == 3 and evidence is not None
    assert evidence.output_bytes == len(expected) and evidence.output_truncated is None
    assert evidence.read_output(store) == expected
    assert ledger.gate_output(store, "test") == expected
    # The CLI's `gate show` prints the same bytes.
    body = json.loads(evidence.to_json())
    assert body["output"]["digest"] == "sha256:" + hashlib.sha256(expected).hexdigest()


def test_an_output_past_the_bound_keeps_its_start_and_end(workspace: Path) -> None:
    store = ledger.Store(workspace)
    ran = ledger.run_gate(store, spec_for(workspace, ["sh", "-c", "seq 1 400000; exit 1"]), echo="off")
    everything = b"".join(b"%d\n" % i for i in range(1, 400001))
    head, tail = 256 * 1024, 768 * 1024
    assert ran.evidence is not None
    assert ran.evidence.output_truncated == (head, len(everything) - head - tail)
    assert ran.evidence.read_output(store) == everything[:head] + everything[-tail:]


def test_what_the_command_leaves_in_its_group_is_stopped(workspace: Path, tmp_path: Path) -> None:
    import time

    pid_file = tmp_path / "pid"
    store = ledger.Store(workspace)
    spec = spec_for(workspace, ["sh", "-c", f"sleep 30 & echo $! > '{pid_file}'; exit 0"])
    start = time.monotonic()
    ran = ledger.run_gate(store, spec, echo="off", timeout=1)
    assert time.monotonic() - start < 20
    assert ran.exit_code == 0 and ran.evidence is not None and ran.evidence.left_in_group
    pid = pid_file.read_text().strip()
    stat = Path(f"/proc/{pid}/stat")
    assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_a_gate_s_inputs_are_never_normalized(workspace: Path) -> None:
    write(workspace, "src/tasks.md", "- [ ] 1.1 do it\n")
    scope = ledger.Scope(workspace, roots=["src"], tasks=["src/tasks.md"])
    with pytest.raises(ledger.InvalidArgumentError, match="raw bytes"):
        ledger.GateSpec("test", ["true"], scope)
