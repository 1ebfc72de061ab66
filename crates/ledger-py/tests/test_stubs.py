"""The type stubs (`ledger/_ledger.pyi`) match the compiled module, and type-check
real use under `mypy --strict`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ledger

pytest.importorskip("mypy", reason="mypy checks the stubs (ci.sh installs it)")

TYPED_USE = '''
from collections.abc import Mapping, Sequence
from pathlib import Path
import ledger

inv: ledger.Inventory = ledger.inventory(Path("."), roots=["src"], exclude={"src/gen": "generated"})
fp: str = ledger.fingerprint(".", paths=("a.txt",), tasks=Path("tasks.md"))
kinds: list[str] = [e.kind for e in inv.entries]
path, kind, mode, digest = inv.entries[0]
c: ledger.Comparison = inv.compare()
added: list[ledger.Change] = c.of_kind("added")
old: ledger.Entry | None = added[0].old
record: ledger.Inventory = ledger.Inventory.from_json(inv.to_json(meta={"k": "v"}))
store = ledger.Store(".")
change = ledger.ChangeSet(".", "add-auth", graph=ledger.ArtifactGraph.spec_driven())
status: ledger.ApprovalStatus = ledger.status(store, change)
states: list[str] = [a.state for a in status.artifacts]
binding: ledger.Binding = ledger.approve(store, change, "proposal", "msg 1")
approved_with: ledger.SchemaSource | None = binding.schema
named = ledger.ChangeSet(".", "add-auth", schema="rapid", task_rule="openspec-checkbox")
rule: str = named.task_rule
tracked: ledger.Artifact | None = named.graph.tracked
change_tasks: ledger.ChangeTasks = named.tasks()
remaining: list[str] = change_tasks.remaining_ids()
tasks: ledger.Tasks = ledger.read_tasks(Path("tasks.md"), rule="openspec-checkbox")
ids: list[str | None] = [t.id for t in ledger.read_tasks_bytes(b"- [x] 1.1 a\\n").tasks]
payload: bytes = ledger.normalize_tasks(b"- [x] 1.1 a\\n", "openspec-checkbox")
rules: Sequence[str] = ledger.TASK_RULES
ruled = ledger.Scope(".", tasks=["tasks.md"], task_rule="openspec-checkbox")
per_path: Mapping[str, str] = ruled.task_rules
one: str | None = ruled.task_rule("tasks.md")
changed: list[ledger.SchemaChange] = ledger.status(store, named).schema_changed
reasons: list[str] = [c.reason for c in changed]
spec = ledger.GateSpec("test", ["make", "test"], ledger.Scope("."),
                       prerequisites={"rustc": ledger.Observe.command("rustc --version")})
tuple_spec = ledger.GateSpec("test", ("make", "test"), ledger.Scope("."), cwd="src")
recorded: ledger.Freshness = ledger.check_recorded_gate(".", "test", argv=("make", "test"))
record_text: str = inv.to_json(command=["make", "test"])
outcome: ledger.RunOutcome = ledger.run_gate(store, spec, echo="passthrough")
fresh: bool = ledger.check_gate(store, spec).fresh
try:
    ledger.fingerprint_entries([("a", "missing", "-", "-")])
except ledger.ConflictError as e:
    code: str = e.code
    where: str | None = e.path
'''


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=cwd)


def test_stubtest_finds_no_difference() -> None:
    out = run("mypy.stubtest", "ledger")
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_package_is_typed() -> None:
    package = Path(ledger.__file__).parent
    assert (package / "py.typed").is_file() and (package / "_ledger.pyi").is_file()
    assert sorted(ledger.__all__) == sorted(set(ledger.__all__))
    assert all(hasattr(ledger, name) for name in ledger.__all__)
    native = set(ledger._ledger.__all__)
    assert native == set(ledger.__all__)
    # The test hook (feature `test-hooks`) is no part of the API: not exported,
    # not typed, absent from a wheel built without the feature.
    assert "_panic" not in native and not hasattr(ledger, "_panic")


def test_typed_use_passes_mypy_strict(tmp_path: Path) -> None:
    (tmp_path / "use.py").write_text(TYPED_USE)
    out = run("mypy", "--strict", "--no-incremental", "use.py", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


# A `str` is an `Iterable[str]` (and a `Sequence[str]`), but an argv that is
# one string is refused at run time: each of these must fail both mypy (an
# `arg-type` error on its line) and the runtime (`TypeError`). `inv` is an
# Inventory, `ws` a workspace.
STR_ARGV = [
    'ledger.GateSpec("t", "cargo test", ledger.Scope(ws))',
    'ledger.check_recorded_gate(ws, "t", argv="cargo test")',
    'inv.to_json(command="cargo test")',
]


def test_a_str_argv_is_a_mypy_error(tmp_path: Path) -> None:
    prelude = ["import ledger", "ws = '.'", "inv = ledger.inventory(ws)"]
    (tmp_path / "bad.py").write_text("\n".join(prelude + STR_ARGV) + "\n")
    out = run("mypy", "--strict", "--no-incremental", "--show-error-codes", "bad.py", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    errors = [line for line in out.stdout.splitlines() if ": error: " in line]
    for number, call in enumerate(STR_ARGV, start=len(prelude) + 1):
        on_line = [e for e in errors if e.startswith(f"bad.py:{number}: ")]
        assert len(on_line) == 1, (call, out.stdout)
        assert '"str"' in on_line[0] and on_line[0].endswith("[arg-type]"), on_line[0]
    assert len(errors) == len(STR_ARGV), out.stdout


def test_a_str_argv_is_a_runtime_error_and_a_list_or_tuple_is_not(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    names = {"ledger": ledger, "ws": str(tmp_path), "inv": ledger.inventory(tmp_path)}
    for call in STR_ARGV:
        with pytest.raises(TypeError, match="not a str"):
            eval(call, names)
        for argv in ('["cargo", "test"]', '("cargo", "test")'):
            eval(call.replace('"cargo test"', argv), names)
    spec = ledger.GateSpec("t", ("cargo", "test"), ledger.Scope(tmp_path))
    assert spec.argv == ["cargo", "test"] == ledger.GateSpec("t", ["cargo", "test"], ledger.Scope(tmp_path)).argv


# A task rule is one of two names: the stub types it as a Literal, so a misspelt
# rule is a mypy error on its line (and an InvalidArgumentError at run time).
BAD_RULES = [
    'ledger.normalize_tasks(b"", "openspec")',
    'ledger.read_tasks_bytes(b"", rule="v2")',
    'ledger.Scope(".", tasks=["t.md"], task_rule="Openspec-Checkbox")',
    'ledger.ChangeSet(".", "c", task_rule="task-checkbox")',
]


def test_a_misspelt_task_rule_is_a_mypy_error(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("\n".join(["import ledger", *BAD_RULES]) + "\n")
    out = run("mypy", "--strict", "--no-incremental", "bad.py", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    errors = [line for line in out.stdout.splitlines() if ": error: " in line]
    lines = sorted({int(e.split(":")[1]) for e in errors})
    assert lines == list(range(2, 2 + len(BAD_RULES))), out.stdout
    for call in BAD_RULES:
        with pytest.raises(ledger.InvalidArgumentError):
            eval(call, {"ledger": ledger})
