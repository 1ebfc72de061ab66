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
spec = ledger.GateSpec("test", ["make", "test"], ledger.Scope("."),
                       prerequisites={"rustc": ledger.Observe.command("rustc --version")})
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
    native = set(ledger._ledger.__all__) - {"_panic"}
    assert native == set(ledger.__all__)


def test_typed_use_passes_mypy_strict(tmp_path: Path) -> None:
    (tmp_path / "use.py").write_text(TYPED_USE)
    out = run("mypy", "--strict", "--no-incremental", "use.py", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
