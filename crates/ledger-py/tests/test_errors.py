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
    return ledger.fingerprint(w)


def special_file(tmp: Path) -> object:
    os.mkfifo(tmp / "fifo")
    return ledger.fingerprint(tmp, paths=["fifo"])


def nested_repository(tmp: Path) -> object:
    w = init_repo(tmp / "w")
    write(w, "top.txt")
    write(init_repo(w / "sub"), "inner.txt")
    return ledger.fingerprint(w)


def non_utf8_path(tmp: Path) -> object:
    w = init_repo(tmp / "w")
    (w / os.fsdecode(b"bad\xff.txt")).write_text("x")
    return ledger.fingerprint(w)


def symlinked_parent(tmp: Path) -> object:
    write(tmp, "real/file.txt")
    (tmp / "link").symlink_to("real")
    return ledger.fingerprint(tmp, paths=["link/file.txt"])


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
        for _ in range(50):
            ledger.fingerprint(tmp, paths=["big.bin"])
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
    return ledger.fingerprint(w)


def unreadable(tmp: Path) -> object:
    # A workspace that does not exist (reachable as any user).
    return ledger.fingerprint(tmp / "no-such-dir")


def unreadable_by_permission(tmp: Path) -> object:
    if IS_ROOT:
        pytest.skip("root reads any file: test_unreadable_by_permission_as_nobody runs it")
    write(tmp, "secret.txt").chmod(0)
    return ledger.fingerprint(tmp)


@pytest.mark.skipif(not IS_ROOT, reason="unreadable_by_permission runs it in process")
def test_unreadable_by_permission_as_nobody() -> None:
    """As root (CI), a real permission error needs another user: the same call
    in a Python process running as `nobody`, on a tree it may traverse."""
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        tmp.chmod(0o755)
        write(tmp, "secret.txt").chmod(0)
        code = (
            "import ledger, sys\n"
            "try:\n    ledger.fingerprint(sys.argv[1])\n"
            "except ledger.LedgerError as e:\n    print(e.code, e.path)\n"
        )
        out = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             sys.executable, "-c", code, str(tmp)],
            capture_output=True, text=True, check=True, cwd="/",
        )
    assert out.stdout.split() == ["unreadable", "secret.txt"], out


def unwritable(tmp: Path) -> object:
    make_change(tmp)
    # A ref named `changes` where the directory of the change refs belongs.
    write(tmp, ".ledger/refs/changes", "not a record id\n")
    store = ledger.Store(tmp)
    return ledger.approve(store, ledger.ChangeSet(tmp, CHANGE), "proposal", "msg 1")


def untrusted_store(tmp: Path) -> object:
    make_change(tmp)
    write(tmp, "not-a-dir", "a file where the store's directory should be")
    store = ledger.Store.at(tmp / "not-a-dir")
    return ledger.approve(store, ledger.ChangeSet(tmp, CHANGE), "proposal", "msg 1")


def git_error(tmp: Path) -> object:
    write(tmp, "plain/f.txt")
    return ledger.fingerprint(tmp, repos=["plain"])


def invalid_gitfile(tmp: Path) -> object:
    write(tmp, "a.txt")
    write(tmp, ".git", "gitdir: /nonexistent/ledger.git\n")
    return ledger.fingerprint(tmp)


def git_environment(tmp: Path) -> object:
    w = init_repo(tmp / "w")
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    saved = os.environ.get("GIT_WORK_TREE")
    os.environ["GIT_WORK_TREE"] = str(elsewhere)
    try:
        return ledger.fingerprint(w)
    finally:
        if saved is None:
            del os.environ["GIT_WORK_TREE"]
        else:
            os.environ["GIT_WORK_TREE"] = saved


def bad_fingerprint(tmp: Path) -> object:
    return ledger.parse_fingerprint("sha256:XYZ")


def malformed_record(tmp: Path) -> object:
    return ledger.Inventory.from_json('{"format": "ledger-inventory", "version": "1.0"', "rec.json")


def unsupported_version(tmp: Path) -> object:
    record = json.loads(ledger.inventory(tmp).to_json())
    record["version"] = "2.0"
    return ledger.Inventory.from_json(json.dumps(record), "rec.json")


def missing_material(tmp: Path) -> object:
    d = make_change(tmp)
    (d / "diagrams/flow.svg").unlink()
    return ledger.ChangeSet(tmp, CHANGE).inventory("design")


def ambiguous_material(tmp: Path) -> object:
    d = make_change(tmp)
    write(d, "design.md", "# Design\nSee [the diagrams](diagrams/).\n")
    return ledger.ChangeSet(tmp, CHANGE).inventory("design")


def graph_cycle(tmp: Path) -> object:
    return ledger.ArtifactGraph(
        [ledger.Artifact("a", "a.md", ["b"]), ledger.Artifact("b", "b.md", ["a"])]
    )


def unknown_artifact(tmp: Path) -> object:
    make_change(tmp)
    return ledger.ChangeSet(tmp, CHANGE).inventory("review")


def bad_schema(tmp: Path) -> object:
    return ledger.ArtifactGraph.from_schema_yaml("artifacts: 7", "schema.yaml")


def unknown_schema(tmp: Path) -> object:
    make_change(tmp)
    return ledger.ChangeSet(tmp, CHANGE, schema="no-such-schema")


def unknown_declared_schema(tmp: Path) -> object:
    d = make_change(tmp)
    write(d, ".openspec.yaml", "schema: lean\n")
    return ledger.ChangeSet(tmp, CHANGE)


def bad_openspec_config(tmp: Path) -> object:
    d = make_change(tmp)
    write(d, ".openspec.yaml", "schema: spec-driven\nskip_specs: maybe\n")
    return ledger.ChangeSet(tmp, CHANGE)


def bad_project_task_rule(tmp: Path) -> object:
    make_change(tmp)
    write(tmp, "openspec/config.yaml", "ledger:\n  task_rule: v9\n")
    return ledger.ChangeSet(tmp, CHANGE)


def missing_source(tmp: Path) -> object:
    make_change(tmp)
    return ledger.approve(ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE), "proposal", "  ")


def unknown_change(tmp: Path) -> object:
    make_change(tmp)
    return ledger.approve(ledger.Store(tmp), ledger.ChangeSet(tmp, "add-lgoin"), "proposal", "m")


def upstream_blocked(tmp: Path) -> object:
    d = make_change(tmp)
    (d / "diagrams" / "flow.svg").unlink()
    return ledger.approve(ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE), "tasks", "m")


def absent_artifact(tmp: Path) -> object:
    d = make_change(tmp)
    (d / "proposal.md").unlink()
    return ledger.approve(ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE), "proposal", "m")


def too_large(tmp: Path) -> object:
    d = make_change(tmp)
    with open(d / "design.md", "wb") as f:
        f.truncate(17 * 1024 * 1024)  # sparse
    return ledger.ChangeSet(tmp, CHANGE).inventory("design")


def prerequisite_failed(tmp: Path) -> object:
    spec = ledger.GateSpec(
        "t", ["true"], ledger.Scope(tmp), prerequisites={"x": ledger.Observe.command("exit 3")}
    )
    return ledger.check_gate(ledger.Store(tmp), spec)


def gate_not_started(tmp: Path) -> object:
    spec = ledger.GateSpec("t", [str(tmp / "no-such-command")], ledger.Scope(tmp))
    return ledger.run_gate(ledger.Store(tmp), spec)


def non_utf8_value(tmp: Path) -> object:
    return ledger.Observe.command("printf 'v\\377'").observe("tool")


def non_utf8_literal(tmp: Path) -> object:
    return ledger.Observe.literal("v\udcff")


def invalid_argument(tmp: Path) -> object:
    spec = ledger.GateSpec("t", ["true"], ledger.Scope(tmp))
    return ledger.run_gate(ledger.Store(tmp), spec, echo="loud")  # type: ignore[arg-type]


def unknown_task_rule(tmp: Path) -> object:
    return ledger.normalize_tasks(b"- [x] 1.1 [a] b\n", rule="v2")  # type: ignore[arg-type]


def invalid_path(tmp: Path) -> object:
    return ledger.fingerprint(tmp, roots=["a//b"])


def outside_workspace(tmp: Path) -> object:
    return ledger.fingerprint(tmp, paths=["../etc/passwd"])


def bad_entry(tmp: Path) -> object:
    return ledger.fingerprint_entries([("a", "symlink", "100644", "0" * 64)])


def duplicate_entry(tmp: Path) -> object:
    return ledger.fingerprint_entries([("a", "missing", "-", "-")] * 2)


def corrupt_record(tmp: Path) -> object:
    make_change(tmp)
    store = ledger.Store(tmp)
    ledger.approve(store, ledger.ChangeSet(tmp, CHANGE), "proposal", "msg 1")
    head = store.head(f"changes/{CHANGE}")
    (tmp / ".ledger" / "records" / f"{head}.json").write_text("{}\n")
    return store.history(f"changes/{CHANGE}")


def pointer_conflict(tmp: Path) -> object:
    """Two approvals race on one change: both read the same head, and the store
    lock (held here, like a slow writer) makes both wait at the compare-and-swap.
    Released, one advances the ref and the other must be refused."""
    import fcntl

    make_change(tmp)
    store, change = ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE)
    ledger.approve(store, change, "proposal", "msg 1")
    records = tmp / ".ledger" / "records"
    before = len(list(records.iterdir()))
    results: dict[str, object] = {}

    def approve(artifact: str) -> None:
        try:
            results[artifact] = ledger.approve(store, change, artifact, "race")
        except ledger.LedgerError as e:
            results[artifact] = e

    with open(tmp / ".ledger" / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        threads = [threading.Thread(target=approve, args=(a,)) for a in ("specs", "design")]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while len(list(records.iterdir())) < before + 2:  # both wrote, both wait
            assert time.monotonic() < deadline, "the writers never reached the lock"
            time.sleep(0.01)
        fcntl.flock(lock, fcntl.LOCK_UN)
    for t in threads:
        t.join()
    errors = [r for r in results.values() if isinstance(r, Exception)]
    assert len(errors) == 1, results
    assert len(store.check().orphans) == 1
    raise errors[0]


def validation_refused(tmp: Path) -> object:
    make_change(tmp)
    store, change = ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE)
    return ledger.validate_record(store, change, "PASS", "review 1", no_delivery="a planning-only change")


def no_delivery(tmp: Path) -> object:
    make_change(tmp)
    return ledger.validate_record(ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE), "PASS", "review 1")


def fingerprint_moved(tmp: Path) -> object:
    make_change(tmp)
    store, change = ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE)
    return ledger.approve(store, change, "proposal", "review 1", reviewed="sha256:" + "0" * 64)


def not_validated(tmp: Path) -> object:
    make_change(tmp)
    return ledger.finalize_check(ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE))


def stale_handoff(tmp: Path) -> object:
    make_change(tmp)
    store, change = ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE)
    first, _ = ledger.advance_state(store, change, role="planning")
    ledger.advance_state(store, change, role="implementation")
    return ledger.advance_state(store, change, role="validation", expected=first)


def bad_expected_record(tmp: Path) -> object:
    make_change(tmp)
    return ledger.advance_state(ledger.Store(tmp), ledger.ChangeSet(tmp, CHANGE), expected="xyz")


def bad_ref_name(tmp: Path) -> object:
    return ledger.Store(tmp).head("../outside")


def bad_record_id(tmp: Path) -> object:
    return ledger.Store(tmp).read_record("not-a-record-id")


def panic(tmp: Path) -> object:
    # `_panic` exists only in a build with the `test-hooks` feature (ci.sh's).
    ledger._ledger._panic("a deliberate test panic")
    return None


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
    "invalid-argument": [invalid_argument, unknown_task_rule],
    "non-utf8-value": [non_utf8_value, non_utf8_literal],
    "bad-entry": [bad_entry],
    "duplicate-entry": [duplicate_entry],
    "corrupt-record": [corrupt_record],
    "pointer-conflict": [pointer_conflict, stale_handoff],
    "validation-refused": [validation_refused],
    "not-validated": [not_validated],
    "no-delivery": [no_delivery],
    "fingerprint-moved": [fingerprint_moved],
    "bad-ref-name": [bad_ref_name],
    "bad-record-id": [bad_record_id, bad_expected_record],
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
        assert cls.__module__ == "ledger"


def test_the_stub_types_every_code_the_core_has() -> None:
    """`LedgerError.code` is typed by a Literal in the stub; it lists exactly the
    core's codes (taken from Rust's `Error::CODES` at run time) and `panic`."""
    import ast

    stub = Path(ledger.__file__).with_name("_ledger.pyi").read_text()
    tree = ast.parse(stub)
    [literal] = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "_ErrorCode" for t in node.targets)
    ]
    assert isinstance(literal, ast.Subscript)
    assert isinstance(literal.slice, ast.Tuple)
    typed = [e.value for e in literal.slice.elts if isinstance(e, ast.Constant)]
    assert sorted(typed) == sorted([*ledger.ERROR_CODES, "panic"])
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
        ledger.fingerprint(os.fsdecode(bytes(tmp_path) + b"/\xff"))
    assert info.value.path is not None and info.value.path.endswith("\\377")


def test_a_panic_is_a_ledger_error_not_a_base_exception() -> None:
    try:
        ledger._ledger._panic("boom")
    except Exception as e:  # noqa: BLE001 - the point: `except Exception` catches it
        assert isinstance(e, ledger.PanicError) and e.code == "panic" and "boom" in str(e)
    else:
        raise AssertionError("no exception")
    # The module still works afterwards.
    assert ledger.fingerprint_entries([]).startswith("sha256:")


def test_wrong_argument_types_are_type_errors(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        ledger.fingerprint(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ledger.normalize_tasks("text, not bytes")  # type: ignore[arg-type]
