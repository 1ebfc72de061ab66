"""The generated API (`ledger/_api.py`) is the one the core describes, and it
type-checks real use under `mypy --strict`: the examples, a typed usage file,
and the mistakes a type checker must catch."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import ledger
from conftest import REPO_ROOT

pytest.importorskip("mypy", reason="mypy checks the typed API (ci.sh installs it)")

HERE = Path(__file__).resolve().parent
TYPED = [REPO_ROOT / "examples" / "recover.py", HERE / "typed" / "use.py"]
DESCRIPTION: dict[str, Any] = json.loads(ledger._ledger.description())


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=cwd)


def options_of(verb: dict[str, Any]) -> dict[str, Any]:
    """The options object schema of a verb, its `$ref`s followed."""
    schema = verb["options"]
    while "$ref" in schema:
        schema = DESCRIPTION["options"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


# `_panic` (a build with the `test-hooks` feature only) is for test_errors.py: no
# API function names it.
VERBS = [v for v in DESCRIPTION["verbs"] if not v["name"].startswith("_")]


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: v["name"])
def test_every_described_verb_is_a_method_or_function_with_its_options(verb: dict[str, Any]) -> None:
    owner = ledger.Workspace if verb["workspace"] else ledger
    function = getattr(owner, verb["name"])
    parameters = list(inspect.signature(function).parameters.values())
    if verb["workspace"]:
        assert parameters[0].name == "self"
        parameters = parameters[1:]
    positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keywords = {p.name for p in parameters if p.kind == p.KEYWORD_ONLY}
    assert positional == verb["positional"]
    # A verb that runs a gate also takes the caller's cancellation token.
    token = {"cancel"} if verb["cancellable"] else set()
    assert set(positional) | keywords == set(options_of(verb).get("properties", {})) | token
    # Its doc is the core's (the options type's doc comment).
    assert function.__doc__ and verb["doc"].split("\n")[0].strip() in function.__doc__


def test_the_package_is_typed() -> None:
    package = Path(ledger.__file__).parent
    assert (package / "py.typed").is_file() and (package / "_api.py").is_file()
    assert sorted(ledger.__all__) == sorted(set(ledger.__all__))
    assert all(hasattr(ledger, name) for name in ledger.__all__)
    free = {v["name"] for v in VERBS if not v["workspace"]}
    assert free <= set(ledger.__all__) and "Workspace" in ledger.__all__
    # The native module is one call (and the description the API was generated
    # from); the test hook (feature `test-hooks`) is no part of the API.
    assert "_panic" not in ledger.__all__ and not hasattr(ledger, "_panic")
    assert "call" not in ledger.__all__


def test_the_examples_and_typed_use_pass_mypy_strict(tmp_path: Path) -> None:
    out = run("mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path), *map(str, TYPED))
    assert out.returncode == 0, out.stdout + out.stderr


def mypy_errors(tmp_path: Path, lines: list[str]) -> dict[int, list[str]]:
    """mypy --strict's errors on a file of `lines`, by line number."""
    (tmp_path / "bad.py").write_text("\n".join(lines) + "\n")
    out = run("mypy", "--strict", "--no-incremental", "--show-error-codes", "bad.py", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    errors: dict[int, list[str]] = {}
    for line in out.stdout.splitlines():
        if line.startswith("bad.py:") and ": error: " in line:
            errors.setdefault(int(line.split(":")[1]), []).append(line)
    return errors


# A `str` is a `Sequence[str]` (and an `Iterable[str]`), but an argv, or any
# list of paths, that is one string is refused: so a list of strings is typed
# `list[str] | tuple[str, ...]`, and each of these must fail both mypy (an
# `arg-type` error on its line) and the runtime (`invalid-argument` naming the
# option). `ws` is a workspace, `inv` an inventory.
STR_ARGV = [
    'ws.check_gate("t", argv="cargo test")',
    'ws.check_recorded_gate("t", argv="cargo test")',
    'ledger.inventory_record(inv, command="cargo test")',
    'ws.fingerprint(roots="cargo test")',
]


def test_a_str_argv_is_a_mypy_error(tmp_path: Path) -> None:
    prelude = ["import ledger", "ws = ledger.Workspace('.')", "inv = ws.inventory()"]
    errors = mypy_errors(tmp_path, prelude + STR_ARGV)
    for number, call in enumerate(STR_ARGV, start=len(prelude) + 1):
        assert len(errors.get(number, [])) == 1, (call, errors)
        assert '"str"' in errors[number][0] and errors[number][0].endswith("[arg-type]"), errors[number]
    assert sum(map(len, errors.values())) == len(STR_ARGV), errors


def test_a_str_argv_is_a_runtime_error_and_a_list_is_not(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    ws = ledger.Workspace(tmp_path)
    names = {"ledger": ledger, "ws": ws, "inv": ws.inventory()}
    for call in STR_ARGV:
        with pytest.raises(ledger.InvalidArgumentError, match="argv|command|roots"):
            eval(call, names)
        eval(call.replace('"cargo test"', '["cargo", "test"]'), names)
        # A tuple type-checks too, and any other sequence crosses at run time.
        eval(call.replace('"cargo test"', '("cargo", "test")'), names)
        eval(call.replace('"cargo test"', 'collections.deque(["cargo", "test"])'), {**names, "collections": __import__("collections")})


# A task rule is one of two names: typed as a Literal, a misspelt rule is a mypy
# error on its line (and an InvalidArgumentError at run time).
BAD_RULES = [
    'ledger.normalize_tasks(b"", rule="openspec")',
    'ledger.read_tasks_bytes(b"", rule="v2")',
    'ledger.Workspace(".").resolve_scope(tasks=["t.md"], task_rule="Openspec-Checkbox")',
    'ledger.Workspace(".").change_tasks("c", task_rule="task-checkbox")',
]


def test_a_misspelt_task_rule_is_a_mypy_error(tmp_path: Path) -> None:
    errors = mypy_errors(tmp_path, ["import ledger", *BAD_RULES])
    assert sorted(errors) == list(range(2, 2 + len(BAD_RULES))), errors
    for call in BAD_RULES:
        with pytest.raises(ledger.InvalidArgumentError):
            eval(call, {"ledger": ledger})


# A result is a TypedDict: a misspelt field is a mypy error, like an option
# that does not exist.
BAD_FIELDS = [
    'ledger.Workspace(".").inventory()["walkedroots"]',
    'ledger.Workspace(".").inventory(root=["src"])',
    'ledger.Workspace(".").status("c")["artifacts"][0]["status"]',
]


def test_a_misspelt_field_or_option_is_a_mypy_error(tmp_path: Path) -> None:
    errors = mypy_errors(tmp_path, ["import ledger", *BAD_FIELDS])
    assert sorted(errors) == list(range(2, 2 + len(BAD_FIELDS))), errors


def python_blocks(markdown: Path) -> list[str]:
    """The ```python blocks of a Markdown file."""
    blocks, inside, lines = [], False, []
    for line in markdown.read_text().splitlines():
        if not inside and line.strip() == "```python":
            inside, lines = True, []
        elif inside and line.strip() == "```":
            inside = False
            blocks.append("\n".join(lines))
        elif inside:
            lines.append(line)
    return blocks


@pytest.mark.parametrize("markdown", ["README.md", "crates/ledger-py/README.md"])
def test_the_readme_s_python_passes_mypy_strict(markdown: str, tmp_path: Path) -> None:
    blocks = python_blocks(REPO_ROOT / markdown)
    assert blocks, f"{markdown} shows no Python"
    for number, block in enumerate(blocks):
        # Each block on its own, as a reader copies it (`import ledger` first).
        (tmp_path / f"block{number}.py").write_text("import ledger\n" + block.replace("import ledger\n", "") + "\n")
    files = [str(tmp_path / f"block{n}.py") for n in range(len(blocks))]
    out = run("mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), *files)
    assert out.returncode == 0, out.stdout + out.stderr


def test_every_result_is_what_its_generated_type_says(workspace: Path) -> None:
    """The generated TypedDicts describe what the verbs return, at every depth
    (required and optional keys, literals, unions), on a change taken through
    approvals, a gate, a handoff and a validation."""
    from conftest import CHANGE, conforms

    ws = ledger.Workspace(workspace)
    inv = ws.inventory(tasks=[f"openspec/changes/{CHANGE}/tasks.md"], task_rule="openspec-checkbox")
    conforms(inv, ledger.Inventory)
    conforms(ws.resolve_scope(exclude=["x"]), ledger.Scope)
    for artifact in ["proposal", "specs", "design", "tasks"]:
        conforms(ws.approve(CHANGE, artifact, source="review 1"), ledger.Approved)
    (workspace / "src" / "app.py").write_text("print('changed')\n")
    (workspace / f"openspec/changes/{CHANGE}/design.md").write_text("# Design v2\nSee [the flow](diagrams/flow.svg).\n")
    conforms(ws.status(CHANGE), ledger.ApprovalStatus)
    # Bindings made with another schema than the one named now: schema_changed rows.
    lean = workspace / "openspec/schemas/lean/schema.yaml"
    lean.parent.mkdir(parents=True)
    lean.write_text("artifacts:\n  - {id: proposal, generates: proposal.md}\n")
    other = ws.status(CHANGE, schema="lean")
    assert other["schema_changed"]
    conforms(other, ledger.ApprovalStatus)
    conforms(ws.compare(inv), ledger.Comparison)
    conforms(ws.change_graph(CHANGE), ledger.ArtifactGraph)
    conforms(ws.change_tasks(CHANGE), ledger.ChangeTasks)
    prerequisites: dict[str, ledger.Observe] = {"v": {"literal": "1"}, "e": {"environment": "LEDGER_PY_UNSET"}}
    run = ws.run_gate("test", argv=["sh", "-c", "echo ok"], scope={"roots": ["src"]}, prerequisites=prerequisites)
    conforms(run, ledger.GateRun)
    conforms(ws.run_gate("slow", argv=["sleep", "5"], timeout_ms=100), ledger.GateRun)
    (workspace / "src" / "app.py").write_text("print('changed again')\n")
    conforms(ws.check_gate("test", argv=["true"], scope={"roots": ["src"]}, prerequisites={"v": {"literal": "2"}}), ledger.Freshness)
    conforms(ws.check_recorded_gate("test"), ledger.Freshness)
    conforms(ws.latest_evidence("test"), ledger.LatestEvidence)
    conforms(ws.advance_state(CHANGE, role="implementation", checks=[{"name": "t", "result": "PASS"}]), ledger.CurrentState)
    conforms(ws.record_validation(CHANGE, verdict="FAIL", source="review 2"), ledger.CurrentState)
    conforms(ws.current_state(CHANGE), ledger.CurrentState)
    for entry in ws.state_log(CHANGE):
        conforms(entry, ledger.LogEntry)
    conforms(ws.store_check(), ledger.StoreCheck)
    conforms(ws.stored_record(ws.history(f"changes/{CHANGE}")[0]), ledger.StoredRecord)
    conforms(ledger.read_tasks_bytes(b"- [x] 1.1 a\n- [ ] b\n", rule="openspec-checkbox"), ledger.Tasks)
    conforms(ledger.parse_record(ledger.inventory_record(inv, meta={"k": "v"})), ledger.InventoryRecord)


def test_the_readme_s_first_python_block_runs_as_written(tmp_path: Path) -> None:
    """The README's Python example, run as written (issue 43: its `compare` of
    a record read from disk raised InvalidArgumentError): the checkout it names
    is made where it says, with the change it approves."""
    import subprocess
    import sys

    from conftest import commit_all, init_repo, make_change, write

    checkout = init_repo(tmp_path / "path" / "to" / "checkout")
    write(checkout, "src/app.py", "print('hi')\n")
    write(checkout, "src/generated/out.py", "x = 1\n")
    make_change(checkout)
    commit_all(checkout)
    block = python_blocks(REPO_ROOT / "README.md")[0]
    out = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("sha256:") and lines[1] == "True", out.stdout
    assert "('proposal', 'approved')" in lines[2], out.stdout
