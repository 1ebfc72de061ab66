"""Tasks files read under a task rule, the rule on scopes and changes, and ticking
a box as progress under `openspec-checkbox` (docs/format.md §4)."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any, Union

import pytest

import ledger
from conftest import CHANGE, all_approved, write

D = f"openspec/changes/{CHANGE}"
# OpenSpec's own task lines: nested, `*` bullets, uppercase X, no [area].
TASKS = "## 1. Core\n- [ ] 1.1 Add login\n  - [x] 1.1.1 Test it\n* [X] 1.2 Add tokens\n"


def rows(tasks: Union[ledger.Tasks, ledger.ChangeTasks]) -> list[tuple[str | None, bool, int, str]]:
    return [(t["id"], t["done"], t["line"], t["text"]) for t in tasks["tasks"]]


def completed_ids(tasks: Union[ledger.Tasks, ledger.ChangeTasks]) -> list[str]:
    return [t["id"] for t in tasks["tasks"] if t["done"] and t["id"] is not None]


def remaining_ids(tasks: Union[ledger.Tasks, ledger.ChangeTasks]) -> list[str]:
    return [t["id"] for t in tasks["tasks"] if not t["done"] and t["id"] is not None]


def test_read_tasks_under_either_rule(tmp_path: Path) -> None:
    path = write(tmp_path, "tasks.md", TASKS + "- [x] 2.1 [core] Canonical\n")
    open_ = ledger.read_tasks(str(path), rule="openspec-checkbox")
    assert (open_["rule"], open_["total"], open_["done"]) == ("openspec-checkbox", 4, 3)
    assert rows(open_) == [
        ("1.1", False, 2, "1.1 Add login"),
        ("1.1.1", True, 3, "1.1.1 Test it"),
        ("1.2", True, 4, "1.2 Add tokens"),
        ("2.1", True, 5, "2.1 [core] Canonical"),
    ]
    assert completed_ids(open_) == ["1.1.1", "1.2", "2.1"] and remaining_ids(open_) == ["1.1"]
    # The default rule sees only the canonical line.
    v1 = ledger.read_tasks(str(path))
    assert v1["rule"] == "task-checkbox-v1" and (v1["total"], v1["done"]) == (1, 1)
    assert rows(v1) == [("2.1", True, 5, "2.1 [core] Canonical")]
    # The bytes variant reads the same; the document is the core's (`rule`, totals, tasks).
    assert ledger.read_tasks_bytes(path.read_bytes(), rule="openspec-checkbox") == open_
    assert ledger.read_tasks_bytes(path.read_bytes()) == v1 != open_
    assert v1 == {
        "rule": "task-checkbox-v1",
        "total": 1,
        "done": 1,
        "tasks": [{"id": "2.1", "done": True, "line": 5, "text": "2.1 [core] Canonical", "text_bytes": None}],
    }
    # A line without an id, and an empty file.
    assert rows(ledger.read_tasks_bytes(b"- [ ] write docs", rule="openspec-checkbox")) == [
        (None, False, 1, "write docs")
    ]
    empty = ledger.read_tasks_bytes(b"")
    assert (empty["total"], empty["done"], empty["tasks"]) == (0, 0, [])


def test_task_text_that_is_not_utf8_comes_back_exact(tmp_path: Path) -> None:
    # Two lines that differ only in a byte that is not UTF-8, and one that is.
    data = b"- [ ] 1.1 caf\xe9\n- [ ] 1.1 caf\xe8\n- [x] 1.2 caf\xc3\xa9\n"
    path = tmp_path / "tasks.md"
    path.write_bytes(data)
    got = ledger.read_tasks(str(path), rule="openspec-checkbox")
    tasks = got["tasks"]
    # `text` is OpenSpec's (lossy), the same for the first two lines ...
    assert [t["text"] for t in tasks] == ["1.1 caf\ufffd", "1.1 caf\ufffd", "1.2 caf\u00e9"]
    assert tasks[0]["id"] == "1.1"
    # ... and `text_bytes` keeps what differs, as base64 (as in `ledger tasks --json`).
    exact = [t["text_bytes"] for t in tasks]
    assert exact[2] is None
    assert [base64.b64decode(b) for b in exact[:2] if b is not None] == [b"1.1 caf\xe9", b"1.1 caf\xe8"]
    assert ledger.read_tasks_bytes(data, rule="openspec-checkbox") == got
    json.dumps(got)  # a result stays plain JSON


def test_reading_tasks_refuses_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ledger.UnreadableError) as missing:
        ledger.read_tasks(str(tmp_path / "missing.md"))
    assert missing.value.path is not None and missing.value.path.endswith("missing.md")
    write(tmp_path, "real.md", "- [x] 1.1 [a] b\n")
    (tmp_path / "link.md").symlink_to("real.md")
    with pytest.raises(ledger.LedgerError):
        ledger.read_tasks(str(tmp_path / "link.md"))  # never through a symlink
    for call in (
        lambda: ledger.read_tasks(str(tmp_path / "real.md"), rule="v2"),  # type: ignore[arg-type]
        lambda: ledger.read_tasks_bytes(b"", rule="Openspec-Checkbox"),  # type: ignore[arg-type]
        lambda: ledger.normalize_tasks(b"", rule="openspec"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ledger.InvalidArgumentError, match="openspec-checkbox"):
            call()
    with pytest.raises(TypeError):
        ledger.read_tasks_bytes("text, not bytes")  # type: ignore[arg-type]


def test_the_rewritten_lines_are_the_done_tasks() -> None:
    """Through the binding, each rule's normalization rewrites exactly the lines
    its reader finds done, and leaves the same tasks, none done."""
    atoms = [b"- [x] ", b"- [ ] ", b"1.2 [a]", b"1) [X", b" ] (", b"\xc2\xa0", b"\r\n", b"\n", b"\xff", b"*"]
    rng = random.Random(16)
    for _ in range(300):
        data = b"".join(rng.choice(atoms) for _ in range(rng.randrange(30)))
        for rule in ledger.TASK_RULES:
            before = ledger.read_tasks_bytes(data, rule=rule)
            out = ledger.normalize_tasks(data, rule=rule)
            changed = [
                n for n, (a, b) in enumerate(zip(data.split(b"\n"), out.split(b"\n")), 1) if a != b
            ]
            assert changed == [t["line"] for t in before["tasks"] if t["done"]], (rule, data)
            after = ledger.read_tasks_bytes(out, rule=rule)
            assert (after["total"], after["done"]) == (before["total"], 0)


def test_a_scope_records_the_rule_and_ticking_is_progress(tmp_path: Path) -> None:
    write(tmp_path, "tasks.md", "- [ ] 1.1 A\n")
    ws = ledger.Workspace(tmp_path)
    scope = ws.resolve_scope(tasks=["tasks.md"], task_rule="openspec-checkbox")
    assert scope["task_rules"] == {"tasks.md": "openspec-checkbox"}
    default = ws.resolve_scope(tasks=["tasks.md"])
    # Only a rule other than the default is written, so a scope of default rules reads as it always did.
    assert "task_rules" not in default
    assert ws.resolve_scope(tasks=["tasks.md"], task_rule=None) == default
    assert ws.resolve_scope(tasks=["tasks.md"], task_rule="task-checkbox-v1") == default

    options: dict[str, Any] = {"tasks": ["tasks.md"], "task_rule": "openspec-checkbox"}
    before = ws.inventory(**options)
    assert before["scope"] == scope
    record = ledger.inventory_record(before)
    assert json.loads(record)["version"] == "1.3"
    assert ledger.parse_record(record)["scope"] == {**scope, "workspace": "."}
    assert json.loads(ledger.inventory_record(ws.inventory(tasks=["tasks.md"])))["version"] == ledger.RECORD_VERSION
    write(tmp_path, "tasks.md", "- [x] 1.1 A\n")
    assert ws.compare(before)["matches"]
    parsed = ledger.parse_record(record)
    stored: ledger.Inventory = {k: parsed[k] for k in ("scope", "walked_roots", "entries", "fingerprint")}  # type: ignore[misc]
    assert ws.compare(stored)["matches"]
    assert ws.fingerprint(**options) == before["fingerprint"]
    assert ws.fingerprint(tasks=["tasks.md"]) != before["fingerprint"]
    # Any other edit is a change under either rule.
    write(tmp_path, "tasks.md", "- [x] 1.1 B\n")
    assert not ws.compare(before)["matches"]

    with pytest.raises(ledger.InvalidArgumentError):
        ws.resolve_scope(tasks=["tasks.md"], task_rule="v2")  # type: ignore[arg-type]
    with pytest.raises(ledger.InvalidArgumentError, match="task_rule"):
        ws.resolve_scope(task_rule=2)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="taskrule"):
        ws.resolve_scope(taskrule="openspec-checkbox")  # type: ignore[call-arg]
    with pytest.raises(ledger.OutsideWorkspaceError):
        ws.resolve_scope(tasks=["../tasks.md"])


def openspec_change(root: Path) -> Path:
    d = root / D
    write(d, "proposal.md", "# Why\n")
    write(d, "design.md", "# Design\n")
    write(d, "specs/auth/spec.md", "## Requirement\n")
    write(d, "tasks.md", TASKS)
    return d


def test_a_change_approved_under_openspec_checkbox_stays_approved_when_ticked(tmp_path: Path) -> None:
    d = openspec_change(tmp_path)
    ws = ledger.Workspace(tmp_path)
    tasks = ws.change_tasks(CHANGE, task_rule="openspec-checkbox")
    assert (tasks["change"], tasks["path"], tasks["exists"]) == (CHANGE, f"{D}/tasks.md", True)
    assert (tasks["rule"], tasks["total"], tasks["done"]) == ("openspec-checkbox", 3, 2)
    assert completed_ids(tasks) == ["1.1.1", "1.2"] and remaining_ids(tasks) == ["1.1"]
    assert rows(tasks) == rows(ledger.read_tasks(str(d / "tasks.md"), rule="openspec-checkbox"))
    assert ws.change_scope(CHANGE, "tasks", task_rule="openspec-checkbox")["task_rules"] == {
        f"{D}/tasks.md": "openspec-checkbox"
    }
    # Before any approval, the rule in effect is the default.
    assert ws.change_tasks(CHANGE)["rule"] == "task-checkbox-v1"

    for artifact in ["proposal", "specs", "design", "tasks"]:
        ws.approve(CHANGE, artifact, source="msg", task_rule="openspec-checkbox")
    write(d, "tasks.md", TASKS.replace("- [ ] 1.1 ", "- [x] 1.1 "))
    # Without a rule, status expands the bound set with the rule its binding recorded.
    status = ws.status(CHANGE)
    assert [a["state"] for a in status["artifacts"]] == ["approved"] * 4 and all_approved(status)
    # Unflagged, the tasks are read under the rule the tasks approval recorded ...
    read = ws.change_tasks(CHANGE)
    assert (read["rule"], read["total"], read["done"]) == ("openspec-checkbox", 3, 3)
    # ... unless the caller chooses one.
    v1 = ws.change_tasks(CHANGE, task_rule="task-checkbox-v1")
    assert (v1["rule"], v1["total"]) == ("task-checkbox-v1", 0)
    # The state's default task ids come from the recorded rule too.
    envelope = ws.advance_state(CHANGE, role="impl")["state"]
    assert (envelope["tasks_completed"], envelope["tasks_remaining"]) == (["1.1", "1.1.1", "1.2"], [])
    # Editing a task's text is a change.
    write(d, "tasks.md", TASKS.replace("Add login", "Add logins"))
    assert ws.status(CHANGE)["artifacts"][3]["state"] == "changed"
    # A missing tracked file has no tasks.
    (d / "tasks.md").unlink()
    gone = ws.change_tasks(CHANGE, task_rule="openspec-checkbox")
    assert gone == {
        "change": CHANGE, "path": f"{D}/tasks.md", "exists": False,
        "rule": "openspec-checkbox", "total": 0, "done": 0, "tasks": [],
    }

    with pytest.raises(ledger.InvalidArgumentError):
        ws.change_tasks(CHANGE, task_rule="x")  # type: ignore[arg-type]
    with pytest.raises(ledger.UnknownChangeError):
        ws.change_tasks("add-lgoin")


def test_approving_under_a_rule_that_misses_task_lines_warns(tmp_path: Path) -> None:
    openspec_change(tmp_path)
    ws = ledger.Workspace(tmp_path)
    with pytest.warns(UserWarning) as caught:
        binding = ws.approve(CHANGE, "tasks", source="msg")
    assert binding["artifact"] == "tasks"
    [warning] = caught
    message = str(warning.message)
    assert message.startswith(
        f"{D}/tasks.md: 3 line(s) are tasks under openspec-checkbox but not under task-checkbox-v1"
    ), message
    assert "(line 2, 3, 4)" in message
    # The result carries it too, for a tool to show it with the result.
    assert binding["warnings"] == [{"code": "task-rule", "message": message}]
    # The approval is recorded; under the rule that reads the lines there is no warning.
    assert ws.current_state(CHANGE)["state"]["bindings"][0]["fingerprint"] == binding["fingerprint"]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = ws.approve(CHANGE, "tasks", source="m", task_rule="openspec-checkbox")
    assert quiet["warnings"] == []
