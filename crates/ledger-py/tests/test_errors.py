"""Every error class, raised by a real bad input; and no panic escapes as anything
but a LedgerError."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

import ledger
from conftest import CHANGE, commit_all, git, init_repo, make_change, write

IS_ROOT = os.geteuid() == 0

Trigger = Callable[[Path], object]


def conflict(tmp: Path) -> object:
    w = init_repo(tmp / "w")
    write(w, "f.txt", "base\n")
    commit_all(w)
    git(w, "checkout", "-q", "-b", "other")
    write(w, "f.txt", "other\n")
    commit_all(w)
    git(w, "checkout", "-q", "main")
    write(w, "f.txt", "main\n")
    commit_all(w)
    out = os.system(f"git -C {w} merge -q other >/dev/null 2>&1")
    assert out != 0, "the merge must conflict"
    return ledger.Workspace(w).fingerprint()


def special_file(tmp: Path) -> object:
    os.mkfifo(tmp / "fifo")
    return ledger.Workspace(tmp).fingerprint(paths=["fifo"])


def nested_repository(tmp: Path) -> object:
    w = init_repo(tmp / "w")
    write(w, "top.txt")
    write(init_repo(w / "sub"), "inner.txt")
    return ledger.Workspace(w).fingerprint()


def non_utf8_path(tmp: Path) -> object:
    w = init_repo(tmp / "w")
    (w / os.fsdecode(b"bad\xff.txt")).write_text("x")
    return ledger.Workspace(w).fingerprint()


def symlinked_parent(tmp: Path) -> object:
    write(tmp, "real/file.txt")
    (tmp / "link").symlink_to("real")
    return ledger.Workspace(tmp).fingerprint(paths=["link/file.txt"])


def changed_while_reading(tmp: Path) -> object:
    # A writer appends while the (GIL-free) read runs; a few tries make it certain.
    big = write(tmp, "big.bin", os.urandom(1 << 20) * 64)
    stop = threading.Event()

    def append() -> None:
        with open(big, "ab") as f:
            while not stop.is_set():
                f.write(b"x")
                f.flush()
                time.sleep(0.0005)

    writer = threading.Thread(target=append)
    writer.start()
    try:
        ws = ledger.Workspace(tmp)
        for _ in range(50):
            ws.fingerprint(paths=["big.bin"])
        raise AssertionError("the file never changed during a read")
    finally:
        stop.set()
        writer.join()


def untrusted_repository(tmp: Path) -> object:
    if not IS_ROOT:
        pytest.skip("needs root to give the repository to another user")
    w = init_repo(tmp / "w")
    write(w, "f.txt")
    for dirpath, dirnames, filenames in os.walk(w):
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), 65534, 65534)
    os.lchown(w, 65534, 65534)
    return ledger.Workspace(w).fingerprint()


def unreadable(tmp: Path) -> object:
    # A workspace that does not exist (reachable as any user).
    return ledger.Workspace(tmp / "no-such-dir").fingerprint()


def unreadable_by_permission(tmp: Path) -> object:
    if IS_ROOT:
        pytest.skip("root reads any file: test_unreadable_by_permission_as_nobody runs it")
    write(tmp, "secret.txt").chmod(0)
    return ledger.Workspace(tmp).fingerprint()


@pytest.mark.skipif(not IS_ROOT, reason="unreadable_by_permission runs it in process")
def test_unreadable_by_permission_as_nobody() -> None:
    """As root (CI), a real permission error needs another user: the same call
    in a Python process that becomes `nobody`, on a tree it may traverse.

    The process starts as root and makes the same call once before it drops
    its privileges: the venv's interpreter, the installed package and the
    modules a call imports on first use (`threading`) may sit where `nobody`
    cannot reach them (a clone or a pyenv in a 0700 home directory), while the
    call under test only needs the tree in the temp dir."""
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        tmp.chmod(0o755)
        write(tmp, "secret.txt").chmod(0)
        code = (
            "import os, sys, ledger\n"
            "ledger.Workspace(sys.argv[1]).fingerprint()\n"
            "os.setgroups([]); os.setgid(65534); os.setuid(65534)\n"
            "assert os.getuid() == 65534 and os.geteuid() == 65534\n"
            "try:\n    ledger.Workspace(sys.argv[1]).fingerprint()\n"
            "except ledger.LedgerError as e:\n    print(e.code, e.path)\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, str(tmp)],
            capture_output=True, text=True, check=True, cwd="/",
        )
    assert out.stdout.split() == ["unreadable", "secret.txt"], out


def unwritable(tmp: Path) -> object:
    make_change(tmp)
    # A ref named `changes` where the directory of the change refs belongs.
    write(tmp, ".ledger/refs/changes", "not a record id\n")
    return ledger.Workspace(tmp).approve(CHANGE, "proposal", source="msg 1")


def untrusted_store(tmp: Path) -> object:
    make_change(tmp)
    (tmp / "elsewhere").mkdir()
    # The store's directory is a symlink: ledger follows none.
    (tmp / ".ledger").symlink_to(tmp / "elsewhere")
    return ledger.Workspace(tmp).approve(CHANGE, "proposal", source="msg 1")


def git_error(tmp: Path) -> object:
    write(tmp, "plain/f.txt")
    return ledger.Workspace(tmp).fingerprint(repos=["plain"])


def invalid_gitfile(tmp: Path) -> object:
    write(tmp, "a.txt")
    write(tmp, ".git", "gitdir: /nonexistent/ledger.git\n")
    return ledger.Workspace(tmp).fingerprint()


def git_environment(tmp: Path) -> object:
    w = init_repo(tmp / "w")
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    saved = os.environ.get("GIT_WORK_TREE")
    os.environ["GIT_WORK_TREE"] = str(elsewhere)
    try:
        return ledger.Workspace(w).fingerprint()
    finally:
        if saved is None:
            del os.environ["GIT_WORK_TREE"]
        else:
            os.environ["GIT_WORK_TREE"] = saved


def bad_fingerprint(tmp: Path) -> object:
    return ledger.parse_fingerprint("sha256:XYZ")


def malformed_record(tmp: Path) -> object:
    return ledger.parse_record('{"format": "ledger-inventory", "version": "1.0"', source="rec.json")


def unsupported_version(tmp: Path) -> object:
    record = json.loads(ledger.inventory_record(ledger.Workspace(tmp).inventory()))
    record["version"] = "2.0"
    return ledger.parse_record(json.dumps(record), source="rec.json")


def missing_material(tmp: Path) -> object:
    d = make_change(tmp)
    (d / "diagrams/flow.svg").unlink()
    return ledger.Workspace(tmp).change_inventory(CHANGE, "design")


def ambiguous_material(tmp: Path) -> object:
    d = make_change(tmp)
    write(d, "design.md", "# Design\nSee [the diagrams](diagrams/).\n")
    return ledger.Workspace(tmp).change_inventory(CHANGE, "design")


def graph_cycle(tmp: Path) -> object:
    return ledger.artifact_graph(
        artifacts=[{"id": "a", "generates": "a.md", "requires": ["b"]}, {"id": "b", "generates": "b.md", "requires": ["a"]}]
    )


def bad_gate_declaration(tmp: Path) -> object:
    write(tmp, "ledger.toml", "[gates.test]\ncommand = []\n")
    return ledger.Workspace(tmp).declared_gates()


def gate_cycle(tmp: Path) -> object:
    write(
        tmp,
        "ledger.toml",
        '[gates.a]\ncommand = ["true"]\nneeds = ["b"]\n[gates.b]\ncommand = ["true"]\nneeds = ["a"]\n',
    )
    return ledger.Workspace(tmp).run_declared_gates(echo="off")


def unknown_artifact(tmp: Path) -> object:
    make_change(tmp)
    return ledger.Workspace(tmp).change_inventory(CHANGE, "review")


def bad_schema(tmp: Path) -> object:
    return ledger.artifact_graph(yaml="artifacts: 7", source="schema.yaml")


def unknown_schema(tmp: Path) -> object:
    make_change(tmp)
    return ledger.Workspace(tmp).change_graph(CHANGE, schema="no-such-schema")


def unknown_declared_schema(tmp: Path) -> object:
    d = make_change(tmp)
    write(d, ".openspec.yaml", "schema: lean\n")
    return ledger.Workspace(tmp).change_graph(CHANGE)


def bad_openspec_config(tmp: Path) -> object:
    d = make_change(tmp)
    write(d, ".openspec.yaml", "schema: spec-driven\nskip_specs: maybe\n")
    return ledger.Workspace(tmp).change_graph(CHANGE)


def bad_project_task_rule(tmp: Path) -> object:
    make_change(tmp)
    write(tmp, "openspec/config.yaml", "ledger:\n  task_rule: v9\n")
    return ledger.Workspace(tmp).change_graph(CHANGE)


def missing_source(tmp: Path) -> object:
    make_change(tmp)
    return ledger.Workspace(tmp).approve(CHANGE, "proposal", source="  ")


def unknown_change(tmp: Path) -> object:
    make_change(tmp)
    return ledger.Workspace(tmp).approve("add-lgoin", "proposal", source="m")


def upstream_blocked(tmp: Path) -> object:
    d = make_change(tmp)
    (d / "diagrams" / "flow.svg").unlink()
    return ledger.Workspace(tmp).approve(CHANGE, "tasks", source="m")


def absent_artifact(tmp: Path) -> object:
    d = make_change(tmp)
    (d / "proposal.md").unlink()
    return ledger.Workspace(tmp).approve(CHANGE, "proposal", source="m")


def too_large(tmp: Path) -> object:
    d = make_change(tmp)
    with open(d / "design.md", "wb") as f:
        f.truncate(17 * 1024 * 1024)  # sparse
    return ledger.Workspace(tmp).change_inventory(CHANGE, "design")


def prerequisite_failed(tmp: Path) -> object:
    return ledger.Workspace(tmp).check_gate("t", argv=["true"], prerequisites={"x": {"command": "exit 3"}})


def gate_not_started(tmp: Path) -> object:
    return ledger.Workspace(tmp).run_gate("t", argv=[str(tmp / "no-such-command")])


def cancelled(tmp: Path) -> object:
    # A token cancelled before the call: nothing runs (test_gates.py cancels
    # one that runs, from another thread).
    token = ledger.Cancel()
    token.cancel()
    return ledger.Workspace(tmp).run_gate("t", argv=["true"], cancel=token)


def unmatched_exclusion(tmp: Path) -> object:
    # An exclusion that holds nothing: a pattern that matches no candidate.
    (tmp / "a.txt").write_text("a\n")
    return ledger.Workspace(tmp).fingerprint(exclude=["nothing-*.md"])


def read_only(tmp: Path) -> object:
    # A writer asked of a read-only caller of the agent's tools.
    arguments = {"change": "c", "artifact": "proposal", "source": "m"}
    return ledger.Workspace(tmp).agent_call("approve", arguments=arguments, read_only=True)


def non_utf8_value(tmp: Path) -> object:
    return ledger.observe({"tool": {"command": "printf 'v\\377'"}})


def non_utf8_literal(tmp: Path) -> object:
    return ledger.observe({"tool": {"literal": "v\udcff"}})


def invalid_argument(tmp: Path) -> object:
    return ledger.Workspace(tmp).run_gate("t", argv=["true"], echo="loud")  # type: ignore[arg-type]


def unknown_task_rule(tmp: Path) -> object:
    return ledger.normalize_tasks(b"- [x] 1.1 [a] b\n", rule="v2")  # type: ignore[arg-type]


def invalid_path(tmp: Path) -> object:
    return ledger.Workspace(tmp).fingerprint(roots=["a//b"])


def outside_workspace(tmp: Path) -> object:
    return ledger.Workspace(tmp).fingerprint(paths=["../etc/passwd"])


def bad_entry(tmp: Path) -> object:
    return ledger.fingerprint_entries([{"path": "a", "kind": "symlink", "mode": "100644", "digest": "0" * 64}])


def duplicate_entry(tmp: Path) -> object:
    return ledger.fingerprint_entries([{"path": "a", "kind": "missing", "mode": "-", "digest": "-"}] * 2)


def corrupt_record(tmp: Path) -> object:
    make_change(tmp)
    ws = ledger.Workspace(tmp)
    ws.approve(CHANGE, "proposal", source="msg 1")
    head = ws.head(f"changes/{CHANGE}")
    (tmp / ".ledger" / "records" / f"{head}.json").write_text("{}\n")
    return ws.history(f"changes/{CHANGE}")


def pointer_conflict(tmp: Path) -> object:
    """A write that names the state it started from (none) after another
    writer advanced it is refused, and its record stays as an orphan. (Writes
    that name no basis and do not depend on what landed are recorded on top
    of it instead: test_approvals.py, parallel approvals.)"""
    make_change(tmp)
    ws = ledger.Workspace(tmp)
    ws.approve(CHANGE, "proposal", source="msg 1")
    try:
        return ws.approve(CHANGE, "specs", source="msg 2", expected="no-record")
    finally:
        assert len(ws.store_check()["orphans"]) == 1


def validation_refused(tmp: Path) -> object:
    make_change(tmp)
    ws = ledger.Workspace(tmp)
    return ws.record_validation(CHANGE, verdict="PASS", source="review 1", no_delivery="a planning-only change")


def no_delivery(tmp: Path) -> object:
    make_change(tmp)
    return ledger.Workspace(tmp).record_validation(CHANGE, verdict="PASS", source="review 1")


def fingerprint_moved(tmp: Path) -> object:
    make_change(tmp)
    return ledger.Workspace(tmp).approve(CHANGE, "proposal", source="review 1", reviewed="sha256:" + "0" * 64)


def not_validated(tmp: Path) -> object:
    make_change(tmp)
    return ledger.Workspace(tmp).finalize_check(CHANGE)


def stale_handoff(tmp: Path) -> object:
    make_change(tmp)
    ws = ledger.Workspace(tmp)
    first = ws.advance_state(CHANGE, role="planning")["record"]
    ws.advance_state(CHANGE, role="implementation")
    return ws.advance_state(CHANGE, role="validation", expected=first)


def bad_expected_record(tmp: Path) -> object:
    make_change(tmp)
    return ledger.Workspace(tmp).advance_state(CHANGE, expected="xyz")


def bad_ref_name(tmp: Path) -> object:
    return ledger.Workspace(tmp).head("../outside")


def bad_report(tmp: Path) -> object:
    """A verdict's report that is a directory: its files would leave the judged state."""
    write(tmp, "src/a.rs", "fn a() {}\n")
    write(tmp, "plan.md", "# Plan\n")
    return ledger.Workspace(tmp).verdict_record("v", verdict="PASS", source="review", reports=["src"])


def leave_lock(tmp: Path, ref: str, age: float) -> Path:
    """The lock file a writer killed between taking a ref's lock and renaming
    it leaves, last modified `age` seconds ago."""
    lock = tmp / ".git/refs/ledger/heads" / f"{ref}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    then = time.time() - age
    os.utime(lock, (then, then))
    return lock


def ref_locked(tmp: Path) -> object:
    """A Git store's ref whose lock file a killed writer left two hours ago."""
    init_repo(tmp)
    make_change(tmp)
    ws = ledger.Workspace(tmp)
    ws.approve(CHANGE, "proposal", source="msg 1")
    leave_lock(tmp, f"changes/{CHANGE}", 7200)
    return ws.approve(CHANGE, "specs", source="msg 2")


def ref_name_conflict(tmp: Path) -> object:
    """A verdict `x/y` beside a verdict `x` in a Git store: Git keeps refs as files."""
    init_repo(tmp)
    write(tmp, "src/a.rs", "fn a() {}\n")
    ws = ledger.Workspace(tmp)
    ws.verdict_record("x", verdict="PASS", source="review", scope={"roots": ["src"]})
    return ws.verdict_record("x/y", verdict="PASS", source="review", scope={"roots": ["src"]})


def test_store_unlock_removes_only_abandoned_ref_locks(tmp_path: Path) -> None:
    init_repo(tmp_path)
    make_change(tmp_path)
    ws = ledger.Workspace(tmp_path)
    ws.approve(CHANGE, "proposal", source="msg 1")
    old = leave_lock(tmp_path, f"changes/{CHANGE}", 7200)
    young = leave_lock(tmp_path, "gates/test", 0)
    report = ws.store_check()
    assert not report["clean"]
    assert [(lock["file"], lock["abandoned"]) for lock in report["locks"]] == [
        (f"refs/ledger/heads/changes/{CHANGE}.lock", True),
        ("refs/ledger/heads/gates/test.lock", False),
    ]
    with pytest.raises(ledger.LedgerError) as info:
        ws.store_unlock(older_than_seconds=5)
    assert info.value.code == "invalid-argument"
    unlocked = ws.store_unlock()
    assert [lock["file"] for lock in unlocked["removed"]] == [f"refs/ledger/heads/changes/{CHANGE}.lock"]
    assert [lock["file"] for lock in unlocked["kept"]] == ["refs/ledger/heads/gates/test.lock"]
    assert not old.exists() and young.exists()
    ws.approve(CHANGE, "specs", source="msg 2")


def bad_record_id(tmp: Path) -> object:
    return ledger.Workspace(tmp).stored_record("not-a-record-id")


def deliberate_panic(message: str) -> object:
    """A real panic inside a verb, through the one native call and the generated
    reply handling: the verb `_panic` exists only in a build with the
    `test-hooks` feature (ci.sh's), and no API function names it."""
    return ledger._api._call(None, "_panic", {"message": message})


def panic(tmp: Path) -> object:
    return deliberate_panic("a deliberate test panic")


def divergent_heads(tmp: Path) -> object:
    """In a Git store, the local head of a change and a fetched one that went
    apart: two first records (docs/sharing.md)."""
    init_repo(tmp)
    make_change(tmp)
    make_change(tmp, "other")
    ws = ledger.Workspace(tmp)
    ws.approve(CHANGE, "proposal", source="here")
    ws.approve("other", "proposal", source="there")
    git(tmp, "update-ref", f"refs/ledger/remotes/origin/changes/{CHANGE}", "refs/ledger/heads/changes/other")
    return ws.status(CHANGE)


def signed(tmp: Path, signing_key: str | None, allowed_signers: str | None) -> ledger.Workspace:
    """The workspace `tmp` with these signing settings (its own, nobody else's)."""
    return ledger.Workspace(tmp, signing_key=signing_key, allowed_signers=allowed_signers, environment=False)


def bad_signing_key(tmp: Path) -> object:
    """A signing key file that is not an OpenSSH private key."""
    init_repo(tmp)
    make_change(tmp)
    key = write(tmp.parent / f"{tmp.name}-keys", "key", "not a key\n")
    return signed(tmp, str(key), None).approve(CHANGE, "proposal", source="m")


def bad_allowed_signers(tmp: Path) -> object:
    """An allowed-signers line without a key."""
    init_repo(tmp)
    make_change(tmp)
    ws = ledger.Workspace(tmp)
    ws.approve(CHANGE, "proposal", source="m")
    allowed = write(tmp.parent / f"{tmp.name}-keys", "allowed", "alice@example.com\n")
    return signed(tmp, None, str(allowed)).provenance(f"changes/{CHANGE}")


TRIGGERS: dict[str, list[Trigger]] = {
    "invalid-path": [invalid_path],
    "non-utf8-path": [non_utf8_path],
    "conflict": [conflict],
    "special-file": [special_file],
    "nested-repository": [nested_repository],
    "unreadable": [unreadable, unreadable_by_permission],
    "unwritable": [unwritable],
    "symlinked-parent": [symlinked_parent],
    "changed-while-reading": [changed_while_reading],
    "outside-workspace": [outside_workspace],
    "untrusted-repository": [untrusted_repository],
    "untrusted-store": [untrusted_store],
    "git": [git_error],
    "invalid-gitfile": [invalid_gitfile],
    "git-environment": [git_environment],
    "bad-fingerprint": [bad_fingerprint],
    "malformed-record": [malformed_record],
    "unsupported-version": [unsupported_version],
    "missing-material": [missing_material],
    "ambiguous-material": [ambiguous_material],
    "graph-cycle": [graph_cycle],
    "bad-gate-declaration": [bad_gate_declaration],
    "gate-cycle": [gate_cycle],
    "unknown-artifact": [unknown_artifact],
    "bad-schema": [bad_schema],
    "unknown-schema": [unknown_schema, unknown_declared_schema],
    "bad-openspec-config": [bad_openspec_config, bad_project_task_rule],
    "missing-source": [missing_source],
    "unknown-change": [unknown_change],
    "upstream-blocked": [upstream_blocked],
    "absent-artifact": [absent_artifact],
    "too-large": [too_large],
    "prerequisite-failed": [prerequisite_failed],
    "gate-not-started": [gate_not_started],
    "cancelled": [cancelled],
    "read-only": [read_only],
    "unmatched-exclusion": [unmatched_exclusion],
    "invalid-argument": [invalid_argument, unknown_task_rule],
    "non-utf8-value": [non_utf8_value, non_utf8_literal],
    "bad-entry": [bad_entry],
    "duplicate-entry": [duplicate_entry],
    "corrupt-record": [corrupt_record],
    "pointer-conflict": [pointer_conflict, stale_handoff],
    "divergent-heads": [divergent_heads],
    "bad-signing-key": [bad_signing_key],
    "bad-allowed-signers": [bad_allowed_signers],
    "validation-refused": [validation_refused],
    "not-validated": [not_validated],
    "no-delivery": [no_delivery],
    "fingerprint-moved": [fingerprint_moved],
    "bad-ref-name": [bad_ref_name],
    "bad-record-id": [bad_record_id, bad_expected_record],
    "bad-report": [bad_report],
    "ref-locked": [ref_locked],
    "ref-name-conflict": [ref_name_conflict],
    "panic": [panic],
}

# Codes no public call can be made to raise on purpose, and why.
UNREACHABLE = {
    "chain-mismatch": "guards Store::advance against a record that does not follow the ref; "
    "the binding exposes no raw advance",
}

CASES = [(code, t) for code, ts in TRIGGERS.items() for t in ts]


def test_every_code_has_its_class() -> None:
    classes = {name: getattr(ledger, name) for name in ledger.__all__ if name.endswith("Error")}
    by_code = {c.code: c for c in classes.values() if c is not ledger.LedgerError}
    assert set(by_code) == set(ledger.ERROR_CODES) | {"panic"}
    for cls in classes.values():
        assert issubclass(cls, ledger.LedgerError) and issubclass(cls, Exception)
        assert cls.__module__.startswith("ledger")


def test_the_generated_types_list_every_code_the_core_has() -> None:
    """`LedgerError.code` is typed by a Literal in the generated module; it lists
    exactly the codes the core describes (`door::description()`, read at run
    time from the native module) and `panic`."""
    import typing

    described = set(json.loads(ledger._ledger.description())["errors"])
    assert described | {"panic"} == set(ledger.ERROR_CODES) | {"panic"}
    typed = typing.get_args(ledger.ErrorCode)
    assert sorted(typed) == sorted(described | {"panic"})
    assert len(typed) == len(set(typed))


def test_every_code_is_raised_by_a_test_or_explained() -> None:
    assert set(TRIGGERS) | set(UNREACHABLE) == set(ledger.ERROR_CODES) | {"panic"}
    assert not set(TRIGGERS) & set(UNREACHABLE)


@pytest.mark.parametrize("code,trigger", CASES, ids=[f"{c}:{t.__name__}" for c, t in CASES])
def test_raised_by_real_bad_input(code: str, trigger: Trigger, tmp_path: Path) -> None:
    with pytest.raises(ledger.LedgerError) as info:
        trigger(tmp_path)
    err = info.value
    assert err.code == code, f"{type(err).__name__}: {err}"
    assert type(err).code == code
    assert type(err).__name__.endswith("Error") and str(err)
    if err.path is not None:
        assert isinstance(err.path, str)


@pytest.mark.parametrize("code", sorted(UNREACHABLE))
def test_unreachable_codes_still_have_their_class(code: str) -> None:
    pytest.skip(f"{code}: {UNREACHABLE[code]}")


def test_errors_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(ledger.SymlinkedParentError) as info:
        symlinked_parent(tmp_path)
    assert info.value.path == "link/file.txt" and "link/file.txt" in str(info.value)
    with pytest.raises(ledger.NonUtf8PathError) as bad:
        non_utf8_path(tmp_path)
    assert bad.value.path == "bad\\377.txt"
    with pytest.raises(ledger.GraphCycleError) as cycle:
        graph_cycle(tmp_path)
    assert cycle.value.path is None


def test_a_non_utf8_path_argument_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ledger.NonUtf8PathError) as info:
        ledger.Workspace(os.fsdecode(bytes(tmp_path) + b"/\xff")).fingerprint()
    assert info.value.path is not None and info.value.path.endswith("\\377")


def test_a_panic_is_a_ledger_error_not_a_base_exception() -> None:
    try:
        deliberate_panic("boom")
    except Exception as e:  # noqa: BLE001 - the point: `except Exception` catches it
        assert isinstance(e, ledger.PanicError) and e.code == "panic" and "boom" in str(e)
    else:
        raise AssertionError("no exception")
    # The module still works afterwards.
    assert ledger.fingerprint_entries([]).startswith("sha256:")


def test_an_unknown_keyword_is_a_type_error_naming_it(tmp_path: Path) -> None:
    ws = ledger.Workspace(tmp_path)
    with pytest.raises(TypeError, match="root"):
        ws.fingerprint(root=["src"])  # type: ignore[call-arg]
    # Past the typed wrapper, the core refuses it too, naming the key and what it expected.
    reply = json.loads(ledger._ledger.call(str(tmp_path), "fingerprint", json.dumps({"root": ["src"]})))
    assert reply["error"]["code"] == "invalid-argument"
    assert "`root`" in reply["error"]["message"] and "`roots`" in reply["error"]["message"]


def test_wrong_argument_types_are_refused_naming_the_argument(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        ledger.Workspace(42)  # type: ignore[arg-type]
    with pytest.raises(ledger.InvalidArgumentError, match="roots"):
        ledger.Workspace(tmp_path).fingerprint(roots=[3])  # type: ignore[list-item]
    with pytest.raises(ledger.InvalidArgumentError, match="threads"):
        ledger.Workspace(tmp_path, threads="two")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ledger.normalize_tasks("text, not bytes")  # type: ignore[arg-type]
