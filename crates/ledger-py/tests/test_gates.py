"""Gate evidence: run, reuse while it is true, and every reason it goes stale."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import ledger
from conftest import Cli, git, write


def spec_for(argv: list[str] | None = None, **prerequisites: ledger.Observe) -> dict[str, Any]:
    """The options of the gate `test` over `src`, as check_gate and run_gate take them."""
    return {
        "argv": argv or ["sh", "-c", "echo checked; exit 0"],
        "scope": {"roots": ["src"]},
        "prerequisites": prerequisites,
    }


def reasons(freshness: ledger.Freshness) -> list[str]:
    return [r["reason"] for r in freshness["reasons"]]


def passed(evidence: ledger.Evidence) -> bool:
    """docs/gates.md: a run passes when it exited 0 and ledger did not stop it."""
    return evidence["exit_status"] == 0 and "stopped" not in evidence


def test_run_then_reuse_then_stale(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    spec = spec_for(tool={"literal": "1.0"})
    assert ws.latest_evidence("test") is None
    first = ws.check_gate("test", **spec)
    assert not first["fresh"] and reasons(first) == ["no-evidence"]

    ran = ws.run_gate("test", **spec)
    assert not ran["reused"] and ran["exit_code"] == 0 and ran["record"] is not None
    evidence = ran["evidence"]
    assert evidence is not None and passed(evidence) and evidence["result"] == "checked"
    assert evidence["prerequisites"] == {"tool": "1.0"} and evidence["not_reusable"] is None
    assert evidence["inventory"]["fingerprint"] == ws.fingerprint(roots=["src"])
    assert evidence["spec"]["argv"] == spec["argv"] and evidence["spec"]["cwd"] == "."
    assert evidence["spec"]["prerequisites"] == {"tool": {"literal": "1.0"}}
    assert ws.latest_evidence("test") == {"record": ran["record"], "evidence": evidence}

    again = ws.run_gate("test", **spec)
    # A reused run carries the evidence it reused, and its record.
    assert again["reused"] and again["evidence"] == evidence and again["freshness"]["fresh"]
    assert again["record"] == ran["record"]
    assert again["freshness"]["record"] == ran["record"] and again["exit_code"] == 0

    # Every failing condition is reported, not only the first.
    write(workspace, "src/app.py", "print('changed')\n")
    changed = spec_for(["sh", "-c", "echo other"], tool={"literal": "2.0"})
    stale = ws.check_gate("test", **changed)
    assert not stale["fresh"]
    assert sorted(reasons(stale)) == ["command-differs", "inputs-changed", "prerequisite-changed"]
    inputs = next(r for r in stale["reasons"] if r["reason"] == "inputs-changed")
    assert [c["new"]["path"] for c in inputs["comparison"]["changes"]] == ["src/app.py"]
    assert {"reason": "prerequisite-changed", "name": "tool", "recorded": "1.0", "now": "2.0"} in stale["reasons"]
    assert stale["gate"] == "test"


def test_a_failing_gate_is_recorded_and_never_reused(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    spec = spec_for(["sh", "-c", "echo broken >&2; exit 3"])
    ran = ws.run_gate("test", **spec, echo="off")
    assert ran["exit_code"] == 3 and ran["evidence"] is not None and not passed(ran["evidence"])
    assert ran["evidence"]["result"] == "broken"
    assert reasons(ws.check_gate("test", **spec)) == ["failed"]
    assert not ws.run_gate("test", **spec)["reused"]


def test_a_scope_that_differs_is_not_the_same_gate(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    ws.run_gate("test", **spec_for())
    partial = dict(spec_for(), scope={"roots": ["src/app.py"]})
    assert reasons(ws.check_gate("test", **partial)) == ["scope-differs"]


def test_observe() -> None:
    os.environ["LEDGER_PY_TEST_VAR"] = "set"
    try:
        assert ledger.observe({"v": {"environment": "LEDGER_PY_TEST_VAR"}}) == {"v": "set"}
    finally:
        del os.environ["LEDGER_PY_TEST_VAR"]
    assert ledger.observe({"v": {"environment": "LEDGER_PY_TEST_VAR"}}) == {"v": None}
    assert ledger.observe({"v": {"command": "echo '  v1.2  '"}}) == {"v": "v1.2"}
    assert ledger.observe({"a": {"literal": "1"}, "b": {"literal": "2"}}) == {"a": "1", "b": "2"}
    with pytest.raises(ledger.InvalidArgumentError):
        ledger.observe({"a": {"literal": "1", "command": "true"}})  # type: ignore[typeddict-unknown-key]


def test_a_tuple_is_a_list_and_a_str_is_not(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    ran = ws.run_gate("g", argv=("sh", "-c", "true"), prerequisites={"v": {"literal": "1"}})  # type: ignore[arg-type]
    assert ran["evidence"] is not None and ran["evidence"]["spec"]["argv"] == ["sh", "-c", "true"]
    assert ran["evidence"]["prerequisites"] == {"v": "1"}
    with pytest.raises(ledger.InvalidArgumentError, match="argv"):
        ws.check_gate("g", argv="true")  # type: ignore[arg-type]  # a str is not an argv
    graph = ledger.artifact_graph(artifacts=[{"id": "a", "generates": "a.md", "requires": []}])
    assert [a["id"] for a in graph["artifacts"]] == ["a"]
    text = ledger.inventory_record(ws.inventory(), meta={"k": "v"}, command=("x",))  # type: ignore[arg-type]
    assert json.loads(text)["observed"] == {"command": ["x"], "meta": {"k": "v"}}


def test_a_cwd_below_the_workspace_is_one_directory_however_written(workspace: Path, cli: Cli) -> None:
    ws = ledger.Workspace(workspace)
    argv = ["sh", "-c", "ls app.py"]
    ran = ws.run_gate("test", argv=argv, cwd="src/")
    assert ran["evidence"] is not None and ran["evidence"]["result"] == "app.py"
    assert ran["evidence"]["spec"]["cwd"] == "src"
    for same in ["src/", "./src", "src"]:
        assert ws.check_gate("test", argv=argv, cwd=same)["fresh"], same
        assert ws.run_gate("test", argv=argv, cwd=same)["reused"], same
    # The CLI, run from there, finds the same evidence fresh.
    out = cli.run("gate", "check", "--name", "test", "--json", "--", *argv, cwd=workspace / "src")
    assert out.returncode == 0 and json.loads(out.stdout)["fresh"], out.stdout + out.stderr
    assert reasons(ws.check_gate("test", argv=argv, cwd=".")) == ["command-differs"]


def test_an_invalid_spec_is_refused(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    with pytest.raises(ledger.OutsideWorkspaceError):
        ws.check_gate("test", argv=["true"], cwd="../elsewhere")
    with pytest.raises(ledger.OutsideWorkspaceError):
        ws.check_gate("test", argv=["true"], cwd="/tmp")
    with pytest.raises(ledger.InvalidArgumentError):
        ws.check_gate("test", argv=[])
    with pytest.raises(ledger.InvalidArgumentError):
        ws.check_gate("test", argv=["true"], prerequisites={"": {"literal": "1"}})
    with pytest.raises(ledger.InvalidArgumentError):
        ws.check_gate("test", argv=["true"], prerequisites={"v": {"environment": "A=B"}})
    with pytest.raises(ledger.BadRefNameError):
        ws.check_gate("../x", argv=["true"])
    # Text that is not valid Unicode is refused, not replaced.
    with pytest.raises(ledger.NonUtf8ValueError):
        ws.check_gate("test", argv=["echo", "\udcff"])
    with pytest.raises(ledger.NonUtf8ValueError):
        ws.check_gate("test", argv=["true"], cwd="sub\udcff")
    with pytest.raises(ledger.InvalidArgumentError, match="argv"):
        ws.check_gate("test", argv=["true", 1])  # type: ignore[list-item]
    assert ws.latest_evidence("test") is None, "nothing was recorded"


@pytest.fixture
def flags() -> Iterator[str]:
    """An environment variable name, unset before and after the test."""
    name = "LEDGER_PY_TEST_FLAGS"
    os.environ.pop(name, None)
    yield name
    os.environ.pop(name, None)


def test_an_unset_variable_differs_from_an_empty_one(workspace: Path, flags: str) -> None:
    ws = ledger.Workspace(workspace)
    spec = spec_for(flags={"environment": flags})
    assert ledger.observe(spec["prerequisites"]) == {"flags": None}
    ran = ws.run_gate("test", **spec)
    assert ran["evidence"] is not None and ran["evidence"]["prerequisites"] == {"flags": None}
    assert ws.run_gate("test", **spec)["reused"]
    os.environ[flags] = ""
    stale = ws.check_gate("test", **spec)
    assert reasons(stale) == ["prerequisite-changed"]
    assert stale["reasons"][0] == {"reason": "prerequisite-changed", "name": "flags", "recorded": None, "now": ""}
    again = ws.run_gate("test", **spec)
    assert not again["reused"] and again["evidence"] is not None
    assert again["evidence"]["prerequisites"] == {"flags": ""}


def test_a_value_that_is_not_utf8_is_refused(workspace: Path, flags: str) -> None:
    ws = ledger.Workspace(workspace)
    os.environb[flags.encode()] = b"-O\xff"
    spec = spec_for(flags={"environment": flags})
    with pytest.raises(ledger.NonUtf8ValueError) as info:
        ws.run_gate("test", **spec)
    assert f"prerequisite flags (environment variable {flags})" in str(info.value)
    assert "-O\\377" in str(info.value)
    # Read through os.environ, the same bytes arrive as a lone surrogate.
    assert os.environ[flags] == "-O\udcff"
    with pytest.raises(ledger.NonUtf8ValueError) as info:
        ledger.observe({"flags": {"literal": os.environ[flags]}})
    assert "-O\\377" in str(info.value)
    # Two outputs that would both have decoded to U+FFFD.
    for output in ["printf '\\377'", "printf '\\376'"]:
        with pytest.raises(ledger.NonUtf8ValueError):
            ledger.observe({"tool": {"command": output}})
    assert ws.latest_evidence("test") is None, "nothing was recorded"


def rewrite_head(ws: ledger.Workspace, checkout: Path, gate: str, edit: Callable[[dict[str, Any]], None]) -> str:
    """Replaces the head of a gate's log by an edited copy: a consistent record
    (its bytes hash to its name) that lies, written where the checkout's store
    keeps its own records and committed on its ref as ledger would
    (docs/sharing.md: a commit whose tree holds `record.json`)."""
    latest = ws.latest_evidence(gate)
    assert latest is not None
    record: dict[str, Any] = dict(ws.stored_record(latest["record"]))
    edit(record["body"])
    record["previous"] = latest["record"]
    data = (json.dumps(record, indent=2) + "\n").encode()
    lie = hashlib.sha256(data).hexdigest()
    (checkout / ".git/ledger/records" / f"{lie}.json").write_bytes(data)
    ref = f"refs/ledger/heads/gates/{gate}"
    blob_file = checkout / ".git/forged-record"
    blob_file.write_bytes(data)
    blob = git(checkout, "hash-object", "-w", str(blob_file)).strip()
    tree = subprocess.run(
        ["git", "-C", str(checkout), "mktree"], input=f"100644 blob {blob}\trecord.json\n",
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    commit = git(checkout, "commit-tree", tree, "-p", ref, "-m", "forged").strip()
    git(checkout, "update-ref", ref, commit)
    return lie


def test_evidence_whose_entries_do_not_give_its_fingerprint_is_refused(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    spec = spec_for()
    ws.run_gate("test", **spec)
    write(workspace, "src/app.py", "print('changed after the run')\n")
    now = ws.fingerprint(roots=["src"])

    def claim_now(body: dict[str, Any]) -> None:
        body["inventory"]["fingerprint"] = now

    lie = rewrite_head(ws, workspace, "test", claim_now)
    for call in (ws.check_gate, ws.run_gate):
        with pytest.raises(ledger.MalformedRecordError) as info:
            call("test", **spec)
        assert f"{lie}.json" in str(info.value) and "not its recorded fingerprint" in str(info.value)


def test_a_check_never_runs_a_recorded_prerequisite_command(workspace: Path, tmp_path: Path) -> None:
    ws = ledger.Workspace(workspace)
    marker = tmp_path / "observed"
    observe: ledger.Observe = {"command": f"touch '{marker}'; echo tool 1.0"}
    assert not ws.run_gate("test", **spec_for(tool=observe))["reused"]
    marker.unlink()
    # Left out, the prerequisite cannot be observed: reported, not trusted.
    check = ws.check_recorded_gate("test")
    assert not check["fresh"] and reasons(check) == ["prerequisite-unverified"]
    assert check["reasons"][0] == {"reason": "prerequisite-unverified", "name": "tool", "recorded": "tool 1.0"}
    assert not marker.exists(), "a recorded command ran"
    # Given now, it is observed; so are a command and a scope given now.
    now: dict[str, ledger.Observe] = {"tool": {"literal": "tool 1.0"}}
    assert ws.check_recorded_gate("test", prerequisites=now)["fresh"]
    argv = spec_for()["argv"]
    assert ws.check_recorded_gate("test", scope={"roots": ["src"]}, argv=argv, prerequisites=now)["fresh"]
    other = ws.check_recorded_gate("test", argv=["make"], prerequisites=now)
    assert reasons(other) == ["command-differs"]
    assert reasons(ws.check_recorded_gate("never")) == ["no-evidence"]


def test_a_recorded_workspace_is_a_mismatch_never_a_place_to_hash(workspace: Path, tmp_path: Path) -> None:
    ws = ledger.Workspace(workspace)
    spec = spec_for()
    ws.run_gate("test", **spec)

    def elsewhere(body: dict[str, Any]) -> None:
        body["spec"]["scope"]["workspace"] = str(tmp_path)
        body["inventory"]["scope"]["workspace"] = str(tmp_path)

    rewrite_head(ws, workspace, "test", elsewhere)
    # Hashing the parent would meet this FIFO.
    os.mkfifo(tmp_path / "fifo")
    for check in (ws.check_gate("test", **spec), ws.check_recorded_gate("test")):
        assert reasons(check) == ["scope-differs"]
        differs = check["reasons"][0]
        assert differs["recorded"]["workspace"] == str(tmp_path)
        assert differs["requested"]["workspace"] == os.path.realpath(workspace)
    # A scope reaching outside the caller's workspace is refused.
    with pytest.raises(ledger.OutsideWorkspaceError):
        ws.check_recorded_gate("test", scope={"roots": ["../elsewhere"]})


def test_a_timeout_stops_the_gate_and_is_never_reused(workspace: Path) -> None:
    import time

    ws = ledger.Workspace(workspace)
    spec = spec_for(["sh", "-c", "sleep 30"])
    start = time.monotonic()
    ran = ws.run_gate("test", **spec, timeout_ms=300)
    assert time.monotonic() - start < 10
    evidence = ran["evidence"]
    assert ran["exit_code"] == 124 and evidence is not None
    assert evidence["signal"] == 15 and evidence["exit_status"] is None
    assert evidence["stopped"] == {"by": "timeout", "after_ms": 300} and not passed(evidence)
    assert (evidence["not_reusable"] or "").startswith("timed out after 300ms")
    assert reasons(ws.check_gate("test", **spec)) == ["failed", "not-reusable"]
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ledger.InvalidArgumentError):
            ws.run_gate("test", **spec, timeout_ms=bad)


def test_a_gate_killed_by_signal_n_exits_128_plus_n(workspace: Path) -> None:
    ran = ledger.Workspace(workspace).run_gate("test", **spec_for(["sh", "-c", "kill -USR1 $$"]))
    assert ran["exit_code"] == 128 + 10 and ran["evidence"] is not None and ran["evidence"]["signal"] == 10


def test_ctrl_c_stops_the_gate_records_it_and_is_raised(workspace: Path, tmp_path: Path) -> None:
    import signal
    import threading

    ws = ledger.Workspace(workspace)
    pid_file = tmp_path / "gate-pid"
    spec = spec_for(["sh", "-c", f"echo $$ > '{pid_file}'; sleep 30"])

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
            ws.run_gate("test", **spec, timeout_ms=60_000)
    finally:
        signal.signal(signal.SIGINT, previous)
    latest = ws.latest_evidence("test")
    assert latest is not None and not passed(latest["evidence"])
    assert latest["evidence"].get("stopped") == {"by": "interrupt"}
    assert (latest["evidence"]["not_reusable"] or "").startswith("interrupted by the caller")
    gate = pid_file.read_text().strip()
    assert not Path(f"/proc/{gate}").exists() or "Z" in Path(f"/proc/{gate}/stat").read_text().split(")")[-1][:3]


def gone_or_zombie(pid: str) -> bool:
    """Whether process `pid` has ended (a zombie not reaped yet has ended too)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_cancel_token_stops_a_running_gate_from_another_thread(workspace: Path, tmp_path: Path) -> None:
    import threading
    import time

    ws = ledger.Workspace(workspace)
    marker, counter = tmp_path / "sleeper-pid", tmp_path / "runs"
    # The marker holds the pid of a process in the gate's process group, written
    # whole (renamed into place) once the gate has started.
    script = f"echo run >> '{counter}'; sleep 30 & echo $! > '{marker}.tmp'; mv '{marker}.tmp' '{marker}'; wait"
    spec = spec_for(["sh", "-c", script])

    # A token cancelled before the call: nothing runs, nothing is recorded.
    token = ledger.Cancel()
    token.cancel()
    assert token.cancelled
    with pytest.raises(ledger.CancelledError) as refused:
        ws.run_gate("slow", **spec, cancel=token)
    assert refused.value.code == "cancelled" and isinstance(refused.value, ledger.LedgerError)
    assert not counter.exists(), "a cancelled call ran the command"
    assert ws.latest_evidence("slow") is None

    # Cancelled from another thread once the command has started.
    token = ledger.Cancel()
    assert not token.cancelled

    def cancel_when_started() -> None:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        token.cancel()

    canceller = threading.Thread(target=cancel_when_started)
    canceller.start()
    start = time.monotonic()
    try:
        with pytest.raises(ledger.CancelledError) as stopped:
            ws.run_gate("slow", **spec, cancel=token)
    finally:
        canceller.join()
    assert time.monotonic() - start < 25, "the gate was not stopped"
    assert counter.read_text() == "run\n"
    assert gone_or_zombie(marker.read_text().strip()), "the gate's process group outlived the cancel"
    latest = ws.latest_evidence("slow")
    assert latest is not None and latest["record"] in str(stopped.value)
    assert latest["evidence"].get("stopped") == {"by": "interrupt"} and not passed(latest["evidence"])
    assert not ws.check_gate("slow", **spec)["fresh"]

    # Only a ledger.Cancel is a token.
    with pytest.raises(ledger.InvalidArgumentError):
        ws.run_gate("slow", **spec, cancel=True)  # type: ignore[arg-type]


def test_a_cancel_token_stops_a_run_of_every_declared_gate(workspace: Path, tmp_path: Path) -> None:
    import threading
    import time

    ws = ledger.Workspace(workspace)
    marker, runs = tmp_path / "started", tmp_path / "runs"
    # By name, a-slow comes first; b-after needs nothing, so only the cancel
    # keeps it from starting.
    write(
        workspace,
        "ledger.toml",
        f"""[gates.a-slow]
command = ["sh", "-c", "echo slow >> '{runs}'; touch '{marker}'; sleep 30"]
roots = ["src"]

[gates.b-after]
command = ["sh", "-c", "echo after >> '{runs}'"]
roots = ["src"]
""",
    )
    token = ledger.Cancel()
    token.cancel()
    for run in (lambda: ws.run_declared_gates(cancel=token), lambda: ws.run_declared_gate("a-slow", cancel=token)):
        with pytest.raises(ledger.CancelledError):
            run()
    assert not runs.exists(), "a cancelled call ran a declared gate"

    token = ledger.Cancel()

    def cancel_when_started() -> None:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        token.cancel()

    canceller = threading.Thread(target=cancel_when_started)
    canceller.start()
    try:
        with pytest.raises(ledger.CancelledError):
            ws.run_declared_gates(cancel=token)
    finally:
        canceller.join()
    assert runs.read_text() == "slow\n", "a gate started after the cancel"
    assert not ws.check_declared_gate("a-slow")["fresh"]


def test_a_failing_run_keeps_its_whole_output(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    script = "exec >&2; i=0; while [ $i -lt 200 ]; do echo line $i; i=$((i+1)); done; printf 'raw \\377\\n'; exit 3"
    spec = spec_for(["sh", "-c", script])
    assert ws.gate_output("test") is None
    ran = ws.run_gate("test", **spec, echo="off")
    expected = b"".join(b"line %d\n" % i for i in range(200)) + b"raw \xff\n"
    evidence = ran["evidence"]
    assert ran["exit_code"] == 3 and evidence is not None and ran["record"] is not None
    output = evidence["output"]
    assert output["total_bytes"] == len(expected) and "truncated" not in output
    assert ws.evidence_output(ran["record"]) == expected
    assert ws.gate_output("test") == expected
    # The record names the kept bytes by their digest (what `gate show` prints).
    assert output["digest"] == "sha256:" + hashlib.sha256(expected).hexdigest()


def kept_within(everything: bytes, bound: int) -> tuple[bytes, int, int, int, int]:
    """What ledger keeps of `everything` within `bound` bytes, worked out here:
    the first quarter, the elision line, the last three quarters; and the
    dropped bytes head..end with the (1-based) lines they lie on."""
    head = bound // 4
    end = len(everything) - (bound - head)
    first, last = everything[:head].count(b"\n") + 1, everything[: end - 1].count(b"\n") + 1
    lead = b"" if everything[:head].endswith(b"\n") else b"\n"
    marker = (
        f"[ledger: output elided: bytes {head}..{end} (lines {first} to {last}) of {len(everything)} bytes dropped; "
        "the start and the end are kept]\n"
    ).encode()
    return everything[:head] + lead + marker + everything[end:], head, end, first, last


def test_an_output_past_the_bound_keeps_its_start_and_end(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    ran = ws.run_gate("test", **spec_for(["sh", "-c", "seq 1 400000; exit 1"]), echo="off")
    everything = b"".join(b"%d\n" % i for i in range(1, 400001))
    kept, head, end, first, last = kept_within(everything, 1024 * 1024)
    assert ran["evidence"] is not None and ran["record"] is not None
    output = ran["evidence"]["output"]
    assert output["bound_bytes"] == 1024 * 1024
    assert output["truncated"] == {
        "head_bytes": head,
        "dropped_bytes": end - head,
        "dropped_from_line": first,
        "dropped_to_line": last,
        "marker_bytes": len(kept) - 1024 * 1024,
    }
    assert ws.evidence_output(ran["record"]) == kept


def test_keep_output_bytes_sets_the_bound_and_the_kept_output_names_what_was_dropped(workspace: Path) -> None:
    ws = ledger.Workspace(workspace)
    spec = spec_for(["sh", "-c", "seq 1 1000; exit 1"])
    ran = ws.run_gate("test", **spec, echo="off", keep_output_bytes=1024)
    everything = b"".join(b"%d\n" % i for i in range(1, 1001))
    kept, head, end, first, last = kept_within(everything, 1024)
    assert (head, end, first, last) == (256, 3125, 89, 809)
    assert ran["evidence"] is not None
    output = ran["evidence"]["output"]
    assert output["bound_bytes"] == 1024 and output["total_bytes"] == len(everything)
    truncated = output.get("truncated")
    assert truncated is not None
    assert (truncated["dropped_from_line"], truncated["dropped_to_line"]) == (89, 809)
    assert ws.gate_output("test") == kept
    assert b"\n8\n[ledger: output elided: bytes 256..3125 (lines 89 to 809) of 3893 bytes dropped;" in kept
    whole = ws.run_gate("test", **spec, echo="off", keep_output_bytes=4096)
    assert whole["evidence"] is not None and "truncated" not in whole["evidence"]["output"]
    assert ws.gate_output("test") == everything
    for bad in (0, -1, 1 << 31, 1.5, "1MiB"):
        with pytest.raises(ledger.InvalidArgumentError, match="keep_output_bytes"):
            ws.run_gate("test", **spec, echo="off", keep_output_bytes=bad)  # type: ignore[arg-type]
    write(workspace, "ledger.toml", '[gates.big]\ncommand = ["sh", "-c", "seq 1 1000; exit 1"]\nkeep-output = "1KiB"\n')
    assert ws.declared_gates()[0]["keep_output_bytes"] == 1024
    declared = ws.run_declared_gate("big", echo="off")
    assert declared["evidence"] is not None and declared["evidence"]["output"]["bound_bytes"] == 1024
    over = ws.run_declared_gate("big", echo="off", keep_output_bytes=2048)
    assert over["evidence"] is not None and over["evidence"]["output"]["bound_bytes"] == 2048
    runs = ws.run_declared_gates(echo="off", keep_output_bytes=512)["runs"]
    outcome = runs[0]["outcome"]
    assert outcome is not None and outcome["evidence"] is not None
    assert outcome["evidence"]["output"]["bound_bytes"] == 512


def test_what_the_command_leaves_in_its_group_is_stopped(workspace: Path, tmp_path: Path) -> None:
    import time

    pid_file = tmp_path / "pid"
    ws = ledger.Workspace(workspace)
    spec = spec_for(["sh", "-c", f"sleep 30 & echo $! > '{pid_file}'; exit 0"])
    start = time.monotonic()
    ran = ws.run_gate("test", **spec, echo="off", timeout_ms=1000)
    assert time.monotonic() - start < 20
    assert ran["exit_code"] == 0 and ran["evidence"] is not None and ran["evidence"].get("left_in_group")
    pid = pid_file.read_text().strip()
    stat = Path(f"/proc/{pid}/stat")
    assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_a_gate_s_inputs_are_never_normalized(workspace: Path) -> None:
    write(workspace, "src/tasks.md", "- [ ] 1.1 do it\n")
    ws = ledger.Workspace(workspace)
    with pytest.raises(ledger.InvalidArgumentError, match="raw bytes"):
        ws.check_gate("test", argv=["true"], scope={"roots": ["src"], "tasks": ["src/tasks.md"]})


def test_worktrees_alternating_one_gate_each_reuse_their_earlier_run(workspace: Path, tmp_path: Path) -> None:
    """A main checkout and a fixer's worktree alternate one gate on two
    fingerprints: the command runs once per fingerprint (a side-effect
    counter), and each finds its own earlier run fresh though the newest
    run is the other's (docs/gates.md, Reusing earlier evidence)."""
    from conftest import git

    fixer = tmp_path / "fixer"
    git(workspace, "worktree", "add", "-q", str(fixer))
    (fixer / "src" / "app.py").write_text("print('fixed')\n")
    counter = tmp_path / "runs"
    spec = {"argv": ["sh", "-c", f"echo run >> '{counter}'"], "scope": {"roots": ["src"]}}
    main, other = ledger.Workspace(workspace), ledger.Workspace(fixer)
    for _ in range(3):
        for ws in (main, other):
            assert ws.run_gate("test", **spec)["exit_code"] == 0
        assert counter.read_text().count("run") == 2
        assert main.check_gate("test", **spec)["fresh"] and other.check_gate("test", **spec)["fresh"]
    # How far back reuse reaches is a recorded policy.
    main.limit_reuse("test", 1, "only the newest run")
    assert not main.check_gate("test", **spec)["fresh"]


@pytest.mark.parametrize("in_git", [True, False], ids=["git checkout", "plain directory"])
def test_the_store_is_private_to_its_user(workspace: Path, tmp_path: Path, in_git: bool) -> None:
    """Every directory ledger makes in its store is 0700 and every file 0600,
    whatever the umask lets through: kept gate output and decisions are not
    for other users of the machine (seed 001 keeps its tool output so)."""
    where = workspace if in_git else tmp_path / "plain"
    write(where, "src/app.py", "print('secret')\n")
    old = os.umask(0o022)
    try:
        ws = ledger.Workspace(where)
        ws.run_gate("test", argv=["cat", "src/app.py"], scope={"roots": ["src"]})
        ws.fingerprint(roots=["src"])
        if in_git:
            ws.approve("add-auth", "proposal", source="r")
    finally:
        os.umask(old)
    store = where / ".ledger"
    made = [store, *store.rglob("*")]
    assert store.is_dir() and any(p.is_file() for p in made), made
    loose = [(str(p.relative_to(where)), oct(p.stat().st_mode & 0o777)) for p in made if p.stat().st_mode & 0o077]
    assert loose == []
