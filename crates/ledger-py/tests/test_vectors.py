"""The shared public vectors (tests/vectors/), which every front door must pass."""

from __future__ import annotations

import json
from typing import Any

import pytest

import ledger
from conftest import VECTORS


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text())


FINGERPRINTS = load("fingerprint-v1.json")
TASKS = load("task-checkbox.json")
OPENSPEC = load("openspec-checkbox.json")


def test_the_vector_files_are_the_format_this_binding_writes() -> None:
    assert FINGERPRINTS["format"] == ledger.FORMAT_V1
    assert len(FINGERPRINTS["vectors"]) >= 5
    assert len(TASKS["vectors"]) >= 12
    assert len(OPENSPEC["vectors"]) >= 20
    assert list(ledger.TASK_RULES) == ["task-checkbox-v1", "openspec-checkbox"]


@pytest.mark.parametrize("vector", FINGERPRINTS["vectors"], ids=lambda v: v["name"])
def test_fingerprint_v1(vector: dict[str, Any]) -> None:
    entries: list[ledger.Entry] = [
        {"path": path, "kind": kind, "mode": mode, "digest": digest}
        for path, kind, mode, digest in vector["entries"]
    ]
    assert ledger.fingerprint_entries(entries) == vector["fingerprint"]
    # In reverse order too (order-independent).
    assert ledger.fingerprint_entries(entries[::-1]) == vector["fingerprint"]
    assert ledger.parse_fingerprint(vector["fingerprint"]) == vector["fingerprint"]
    # SPEC §12: the 4-tuples (path, kind, mode, digest) as the vector has them.
    assert ledger.fingerprint_entries([tuple(e) for e in vector["entries"]]) == vector["fingerprint"]


@pytest.mark.parametrize("vector", TASKS["vectors"], ids=lambda v: v["name"])
def test_task_checkbox(vector: dict[str, Any]) -> None:
    given = bytes.fromhex(vector["input"])
    got = ledger.normalize_tasks(given)
    assert got == bytes.fromhex(vector["output"])
    assert (got != given) == vector["changed"]
    assert ledger.normalize_tasks(given, rule="task-checkbox-v1") == got


@pytest.mark.parametrize("vector", OPENSPEC["vectors"], ids=lambda v: v["name"])
def test_openspec_checkbox(vector: dict[str, Any]) -> None:
    given = bytes.fromhex(vector["input"])
    got = ledger.normalize_tasks(given, rule="openspec-checkbox")
    assert got == bytes.fromhex(vector["output"])
    assert (got != given) == vector["changed"]
    # total/done are OpenSpec's own count of the input; the reader agrees, and
    # the normalized bytes hold the same tasks, none done.
    tasks = ledger.read_tasks_bytes(given, rule="openspec-checkbox")
    assert (tasks["rule"], tasks["total"], tasks["done"]) == ("openspec-checkbox", vector["total"], vector["done"])
    after = ledger.read_tasks_bytes(got, rule="openspec-checkbox")
    assert (after["total"], after["done"]) == (vector["total"], 0)


def test_an_entry_that_is_neither_an_object_nor_four_strings_is_refused() -> None:
    for bad in ([("a", "file", "100644")], [("a", "file", "100644", "0" * 64, "x")], [["a", 1, 2, 3]]):
        with pytest.raises(ledger.InvalidArgumentError) as refused:
            ledger.fingerprint_entries(bad)  # type: ignore[arg-type]
        assert "[path, kind, mode, digest]" in str(refused.value)
