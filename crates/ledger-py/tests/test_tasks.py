"""Tasks files read under a task rule, the rule on scopes and changes, and ticking
a box as progress under `openspec-checkbox` (docs/format.md §4)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import ledger
from conftest import CHANGE, write

D = f"openspec/changes/{CHANGE}"
# OpenSpec's own task lines: nested, `*` bullets, uppercase X, no [area].
TASKS = "## 1. Core\n- [ ] 1.1 Add login\n  - [x] 1.1.1 Test it\n* [X] 1.2 Add tokens\n"


def rows(tasks: ledger.Tasks | ledger.ChangeTasks) -> list[tuple[str | None, bool, int, str]]:
    return [(t.id, t.done, t.line, t.text) for t in tasks.tasks]


def test_read_tasks_under_either_rule(tmp_path: Path) -> None:
    path = write(tmp_path, "tasks.md", TASKS + "- [x] 2.1 [core] Canonical\n")
    open_ = ledger.read_tasks(path, rule="openspec-checkbox")
    assert (open_.rule, open_.total, open_.done) == ("openspec-checkbox", 4, 3)
    assert rows(open_) == [
        ("1.1", False, 2, "1.1 Add login"),
        ("1.1.1", True, 3, "1.1.1 Test it"),
        ("1.2", True, 4, "1.2 Add tokens"),
        ("2.1", True, 5, "2.1 [core] Canonical"),
    ]
    assert open_.completed_ids() == ["1.1.1", "1.2", "2.1"] and open_.remaining_ids() == ["1.1"]
    # The default rule sees only the canonical line.
    v1 = ledger.read_tasks(str(path))
    assert v1.rule == "task-checkbox-v1" and (v1.total, v1.done) == (1, 1)
    assert rows(v1) == [("2.1", True, 5, "2.1 [core] Canonical")]
    # The bytes variant reads the same; the JSON is the core's (`rule`, totals, tasks).
    assert ledger.read_tasks_bytes(path.read_bytes(), "openspec-checkbox") == open_
    assert ledger.read_tasks_bytes(path.read_bytes()) == v1 != open_
    assert json.loads(v1.to_json()) == {
        "rule": "task-checkbox-v1",
        "total": 1,
        "done": 1,
        "tasks": [{"id": "2.1", "done": True, "line": 5, "text": "2.1 [core] Canonical"}],
    }
    # Tasks are values: equal, hashable, shown by their fields.
    assert len(set(open_.tasks) | set(v1.tasks)) == 4
    assert repr(v1.tasks[0]) == "Task(id='2.1', done=True, line=5, text='2.1 [core] Canonical')"
    assert repr(v1) == "Tasks(rule='task-checkbox-v1', total=1, done=1)"
    # A line without an id, and an empty file.
    assert rows(ledger.read_tasks_bytes(b"- [ ] write docs", "openspec-checkbox")) == [
        (None, False, 1, "write docs")
    ]
    empty = ledger.read_tasks_bytes(b"")
    assert (empty.total, empty.done, empty.tasks) == (0, 0, [])


def test_reading_tasks_refuses_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ledger.UnreadableError) as missing:
        ledger.read_tasks(tmp_path / "missing.md")
    assert missing.value.path is not None and missing.value.path.endswith("missing.md")
    write(tmp_path, "real.md", "- [x] 1.1 [a] b\n")
    (tmp_path / "link.md").symlink_to("real.md")
    with pytest.raises(ledger.LedgerError):
        ledger.read_tasks(tmp_path / "link.md")  # never through a symlink
    for call in (
        lambda: ledger.read_tasks(tmp_path / "real.md", rule="v2"),  # type: ignore[arg-type]
        lambda: ledger.read_tasks_bytes(b"", "Openspec-Checkbox"),  # type: ignore[arg-type]
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
            before = ledger.read_tasks_bytes(data, rule)
            out = ledger.normalize_tasks(data, rule)
            changed = [
                n for n, (a, b) in enumerate(zip(data.split(b"\n"), out.split(b"\n")), 1) if a != b
            ]
            assert changed == [t.line for t in before.tasks if t.done], (rule, data)
            after = ledger.read_tasks_bytes(out, rule)
            assert (after.total, after.done) == (before.total, 0)


def test_a_scope_records_the_rule_and_ticking_is_progress(tmp_path: Path) -> None:
    write(tmp_path, "tasks.md", "- [ ] 1.1 A\n")
    scope = ledger.Scope(tmp_path, tasks=["tasks.md"], task_rule="openspec-checkbox")
    assert scope.task_rules == {"tasks.md": "openspec-checkbox"}
    assert scope.task_rule("tasks.md") == "openspec-checkbox" and scope.task_rule("other.md") is None
    default = ledger.Scope(tmp_path, tasks=Path("tasks.md"))
    assert default.task_rules == {} and default.task_rule(Path("tasks.md")) == "task-checkbox-v1"
    assert ledger.Scope(tmp_path, tasks="tasks.md", task_rule=None) == default
    assert ledger.Scope(tmp_path, tasks="tasks.md", task_rule="task-checkbox-v1") == default
    assert json.loads(scope.to_json())["task_rules"] == {"tasks.md": "openspec-checkbox"}
    assert "task_rules" not in json.loads(default.to_json())
    assert ledger.Scope.from_json(scope.to_json()) == scope

    options = {"tasks": ["tasks.md"], "task_rule": "openspec-checkbox"}
    before = ledger.inventory(tmp_path, tasks=["tasks.md"], task_rule="openspec-checkbox")
    assert json.loads(before.to_json())["version"] == "1.2"
    assert json.loads(ledger.inventory(tmp_path, tasks=["tasks.md"]).to_json())["version"] == ledger.RECORD_VERSION
    write(tmp_path, "tasks.md", "- [x] 1.1 A\n")
    assert before.compare().matches
    assert ledger.Inventory.from_json(before.to_json()).compare().matches
    assert ledger.fingerprint(tmp_path, **options) == before.fingerprint  # type: ignore[arg-type]
    assert ledger.fingerprint(tmp_path, tasks=["tasks.md"]) != before.fingerprint
    # Any other edit is a change under either rule.
    write(tmp_path, "tasks.md", "- [x] 1.1 B\n")
    assert not before.compare().matches

    with pytest.raises(ledger.InvalidArgumentError):
        ledger.Scope(tmp_path, tasks=["tasks.md"], task_rule="v2")  # type: ignore[typeddict-item]
    with pytest.raises(TypeError):
        ledger.Scope(tmp_path, task_rule=2)  # type: ignore[typeddict-item]
    with pytest.raises(TypeError, match="task_rule"):
        ledger.Scope(tmp_path, taskrule="openspec-checkbox")  # type: ignore[call-arg]
    with pytest.raises(ledger.OutsideWorkspaceError):
        scope.task_rule("../tasks.md")


def openspec_change(ws: Path) -> Path:
    d = ws / D
    write(d, "proposal.md", "# Why\n")
    write(d, "design.md", "# Design\n")
    write(d, "specs/auth/spec.md", "## Requirement\n")
    write(d, "tasks.md", TASKS)
    return d


def test_a_change_approved_under_openspec_checkbox_stays_approved_when_ticked(tmp_path: Path) -> None:
    d = openspec_change(tmp_path)
    change = ledger.ChangeSet(tmp_path, CHANGE, task_rule="openspec-checkbox")
    assert change.task_rule == "openspec-checkbox"
    tasks = change.tasks()
    assert (tasks.change, tasks.path, tasks.exists) == (CHANGE, f"{D}/tasks.md", True)
    assert (tasks.rule, tasks.total, tasks.done) == ("openspec-checkbox", 3, 2)
    assert tasks.completed_ids() == ["1.1.1", "1.2"] and tasks.remaining_ids() == ["1.1"]
    assert rows(tasks) == rows(ledger.read_tasks(d / "tasks.md", "openspec-checkbox"))
    assert change.scope("tasks").task_rules == {f"{D}/tasks.md": "openspec-checkbox"}

    store = ledger.Store(tmp_path)
    for artifact in ["proposal", "specs", "design", "tasks"]:
        ledger.approve(store, change, artifact, "msg")
    write(d, "tasks.md", TASKS.replace("- [ ] 1.1 ", "- [x] 1.1 "))
    # Without a rule, status expands the bound set with the rule its binding recorded.
    plain = ledger.ChangeSet(tmp_path, CHANGE)
    assert plain.task_rule == "task-checkbox-v1"
    status = ledger.status(store, plain)
    assert [a.state for a in status.artifacts] == ["approved"] * 4 and status.all_approved()
    # Unflagged, the tasks are read under the rule the tasks approval recorded ...
    read = plain.tasks()
    assert (read.rule, read.total, read.done) == ("openspec-checkbox", 3, 3)
    assert plain.tasks(store) == read
    # ... unless the caller chooses one.
    v1 = ledger.ChangeSet(tmp_path, CHANGE, task_rule="task-checkbox-v1").tasks()
    assert (v1.rule, v1.total) == ("task-checkbox-v1", 0)
    # The state's default task ids come from the recorded rule too.
    _, envelope = ledger.advance_state(store, plain, role="impl")
    assert (envelope.tasks_completed, envelope.tasks_remaining) == (["1.1", "1.1.1", "1.2"], [])
    # Editing a task's text is a change.
    write(d, "tasks.md", TASKS.replace("Add login", "Add logins"))
    assert ledger.status(store, plain).artifacts[3].state == "changed"
    # A missing tracked file has no tasks.
    (d / "tasks.md").unlink()
    gone = change.tasks()
    assert (gone.exists, gone.total, gone.done, gone.tasks) == (False, 0, 0, [])
    assert json.loads(gone.to_json()) == {
        "change": CHANGE, "path": f"{D}/tasks.md", "exists": False,
        "rule": "openspec-checkbox", "total": 0, "done": 0, "tasks": [],
    }

    with pytest.raises(ledger.InvalidArgumentError):
        ledger.ChangeSet(tmp_path, CHANGE, task_rule="x")  # type: ignore[arg-type]
    with pytest.raises(ledger.UnknownChangeError):
        ledger.ChangeSet(tmp_path, "add-lgoin").tasks()


def test_approving_under_a_rule_that_misses_task_lines_warns(tmp_path: Path) -> None:
    openspec_change(tmp_path)
    store = ledger.Store(tmp_path)
    plain = ledger.ChangeSet(tmp_path, CHANGE)
    with pytest.warns(UserWarning) as caught:
        binding = ledger.approve(store, plain, "tasks", "msg")
    assert binding.artifact == "tasks"
    [warning] = caught
    message = str(warning.message)
    assert message.startswith(
        f"{D}/tasks.md: 3 line(s) are tasks under openspec-checkbox but not under task-checkbox-v1"
    ), message
    assert "(line 2, 3, 4)" in message
    # The approval is recorded; under the rule that reads the lines there is no warning.
    assert ledger.current_state(store, CHANGE)[1].bindings[0].fingerprint == binding.fingerprint
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger.approve(store, ledger.ChangeSet(tmp_path, CHANGE, task_rule="openspec-checkbox"), "tasks", "m")
