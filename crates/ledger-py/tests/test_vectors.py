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


def test_the_vector_files_are_the_format_this_binding_writes() -> None:
    assert FINGERPRINTS["format"] == ledger.FORMAT_V1
    assert len(FINGERPRINTS["vectors"]) >= 5
    assert len(TASKS["vectors"]) >= 12


@pytest.mark.parametrize("vector", FINGERPRINTS["vectors"], ids=lambda v: v["name"])
def test_fingerprint_v1(vector: dict[str, Any]) -> None:
    entries = [tuple(e) for e in vector["entries"]]
    assert ledger.fingerprint_entries(entries) == vector["fingerprint"]
    # The same through Entry objects, and in reverse order (order-independent).
    objects = [ledger.Entry(*e) for e in entries]
    assert ledger.fingerprint_entries(reversed(objects)) == vector["fingerprint"]
    assert ledger.parse_fingerprint(vector["fingerprint"]) == vector["fingerprint"]


@pytest.mark.parametrize("vector", TASKS["vectors"], ids=lambda v: v["name"])
def test_task_checkbox(vector: dict[str, Any]) -> None:
    given = bytes.fromhex(vector["input"])
    got = ledger.normalize_tasks(given)
    assert got == bytes.fromhex(vector["output"])
    assert (got != given) == vector["changed"]
