"""The binding gives exactly what the `ledger` CLI gives on the same scopes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import ledger
from conftest import CHANGE, VECTORS, Cli, commit_all, init_repo, write

# (Python keyword arguments, the same scope as CLI flags)
SCOPES: list[tuple[dict[str, Any], list[str]]] = [
    ({}, []),
    ({"roots": ["src"]}, ["--root", "src"]),
    (
        {"roots": ["src"], "exclude": ["src/generated"], "paths": ["build/config.ignored"]},
        ["--root", "src", "--exclude", "src/generated", "--path", "build/config.ignored"],
    ),
    ({"tasks": ["tasks.md"], "roots": ["a", "a.b"]}, ["--tasks", "tasks.md", "--root", "a", "--root", "a.b"]),
    ({"repos": ["."], "roots": ["."], "purpose": "gate: test"}, ["--repo", ".", "--root", ".", "--purpose", "gate: test"]),
    ({"paths": ["gone.md", "link", "debug.log"]}, ["--path", "gone.md", "--path", "link", "--path", "debug.log"]),
    (
        {"tasks": ["tasks.md"], "task_rule": "openspec-checkbox", "roots": ["src"]},
        ["--tasks", "tasks.md", "--task-rule", "openspec-checkbox", "--root", "src"],
    ),
]


def inventory_json(inv: ledger.Inventory) -> dict[str, Any]:
    """The Python inventory in the shape of `ledger entries --json`."""
    return {
        "scope": json.loads(inv.scope.to_json()),
        "walked_roots": inv.walked_roots,
        "entries": [dict(zip(("path", "kind", "mode", "digest"), e)) for e in inv.entries],
        "fingerprint": inv.fingerprint,
    }


@pytest.mark.parametrize("kwargs,flags", SCOPES, ids=lambda x: repr(x))
def test_fingerprint_and_entries_match_the_cli(
    repo: Path, cli: Cli, kwargs: dict[str, Any], flags: list[str]
) -> None:
    ws = ["--workspace", str(repo)]
    fp = cli.ok("fingerprint", *ws, *flags).splitlines()[-1]
    assert ledger.fingerprint(repo, **kwargs) == fp
    inv = ledger.inventory(repo, **kwargs)
    assert inv.fingerprint == fp
    assert inventory_json(inv) == cli.json("entries", "--json", *ws, *flags)
    # The text listing ends with the same fingerprint and lists the same paths.
    lines = cli.ok("entries", *ws, *flags).splitlines()
    assert lines[-1] == fp
    assert [line.split("\t", 1)[1] for line in lines[:-1]] == [e.path for e in inv.entries]


def test_multi_repository_scope_matches_the_cli(tmp_path: Path, cli: Cli) -> None:
    ws = tmp_path / "ws"
    for name in ("app", "lib"):
        r = init_repo(ws / name)
        write(r, f"{name}.txt", name)
        commit_all(r)
    write(ws, "docs/guide.md", "walked\n")
    flags = ["--repo", "app", "--repo", "lib", "--root", "app", "--root", "lib", "--root", "docs"]
    expected = cli.json("entries", "--json", "--workspace", str(ws), *flags)
    inv = ledger.inventory(ws, repos=["app", "lib"], roots=["app", "lib", "docs"])
    assert inventory_json(inv) == expected


def test_the_cli_default_workspace_is_worktree_root(repo: Path, cli: Cli) -> None:
    from_subdir = cli.ok("fingerprint", cwd=repo / "src").splitlines()[-1]
    root = ledger.worktree_root(repo / "src")
    assert root is not None and ledger.fingerprint(root) == from_subdir


def test_inventory_record_is_byte_identical(repo: Path, cli: Cli) -> None:
    text = cli.ok("inventory", "--workspace", str(repo), "--root", "src", "--meta", "gate=make test")
    inv = ledger.inventory(repo, roots=["src"])
    assert inv.to_json(meta={"gate": "make test"}) == text
    assert ledger.Inventory.from_json(text).to_json() == text


def test_verify_and_compare_agree(repo: Path, cli: Cli, tmp_path: Path) -> None:
    record = tmp_path / "approved.json"
    record.write_text(ledger.inventory(repo).to_json(meta={"by": "python"}))
    same = cli.run("verify", str(record), "--json", "--workspace", str(repo))
    assert same.returncode == 0
    assert ledger.Inventory.read(record).compare().to_json() == same.stdout

    write(repo, "README.md", "# changed\n")
    write(repo, "src/new.rs", "new\n")
    (repo / "src/lib.rs").unlink()
    changed = cli.run("verify", str(record), "--json", "--workspace", str(repo))
    assert changed.returncode == 1
    comparison = ledger.Inventory.read(record).compare()
    assert not comparison.matches
    assert comparison.to_json() == changed.stdout

    # A record the CLI wrote reads the same in Python.
    cli_record = tmp_path / "cli.json"
    cli.ok("inventory", "--workspace", str(repo), "--out", str(cli_record))
    assert ledger.Inventory.read(cli_record) == ledger.inventory(repo)


def test_errors_carry_the_cli_code(tmp_path: Path, cli: Cli) -> None:
    write(tmp_path, "w/a.txt")
    for flags, cls in [
        (["--path", "../x"], ledger.OutsideWorkspaceError),
        (["--root", "a//b"], ledger.InvalidPathError),
    ]:
        out = cli.run("fingerprint", "--workspace", str(tmp_path / "w"), *flags)
        assert out.returncode == 2 and out.stdout == ""
        kwargs: dict[str, Any] = {"paths" if flags[0] == "--path" else "roots": [flags[1]]}
        with pytest.raises(cls) as info:
            ledger.fingerprint(tmp_path / "w", **kwargs)
        assert out.stderr.startswith(f"error[{info.value.code}]: {info.value}")


def test_approvals_and_store_match_the_cli(workspace: Path, cli: Cli) -> None:
    place = ["--workspace", str(workspace)]
    store = ledger.Store(workspace)
    change = ledger.ChangeSet(workspace, CHANGE)
    # Approved in Python, read by the CLI; approved by the CLI, read in Python.
    ledger.approve(store, change, "proposal", "msg 1842")
    cli.ok("approve", "--change", CHANGE, "--artifact", "specs", "--source", "msg 1843", *place)
    status = ledger.status(store, change)
    out = cli.run("status", "--change", CHANGE, "--json", *place)
    assert out.returncode == (0 if status.all_approved() else 1) == 1
    assert status.to_json() == out.stdout
    assert [a.state for a in status.artifacts] == ["approved", "approved", "unbound", "unbound"]

    record, envelope = ledger.current_state(store, CHANGE)
    shown = cli.json("state", "show", "--change", CHANGE, *place)
    assert shown == [{"record": record, "state": json.loads(envelope.to_json())}]

    report = store.check()
    assert report.to_json() == cli.ok("store", "check", "--json", *place)
    assert report.is_clean() and report.records == 2


def test_gate_evidence_is_shared_with_the_cli(workspace: Path, cli: Cli) -> None:
    store = ledger.Store(workspace)
    spec = ledger.GateSpec(
        "test", ["sh", "-c", "echo ran"], ledger.Scope(workspace),
        prerequisites={"shell": ledger.Observe.literal("sh")},
    )
    outcome = ledger.run_gate(store, spec)
    assert not outcome.reused and outcome.exit_code == 0
    # The CLI reuses the evidence Python recorded ...
    run = cli.run("gate", "run", "--name", "test", "--workspace", str(workspace),
                  "--env", "shell=sh", "--", "sh", "-c", "echo ran", cwd=workspace)
    assert run.returncode == 0 and "reused, not run" in run.stderr, run.stderr
    # ... and both answer the freshness question identically (a check observes
    # the prerequisites it is given: it never runs or trusts the recorded ones).
    check = cli.run("gate", "check", "--name", "test", "--workspace", str(workspace),
                    "--env", "shell=sh", "--json", cwd=workspace)
    freshness = ledger.check_gate(store, spec)
    assert check.returncode == 0 and freshness.fresh
    assert freshness.to_json() == check.stdout

    write(workspace, "src/app.py", "print('changed')\n")
    check = cli.run("gate", "check", "--name", "test", "--workspace", str(workspace),
                    "--env", "shell=sh", "--json", cwd=workspace)
    freshness = ledger.check_gate(store, spec)
    assert check.returncode == 1 and not freshness.fresh
    assert freshness.to_json() == check.stdout


def test_tasks_and_normalize_match_the_cli(workspace: Path, cli: Cli) -> None:
    d = workspace / "openspec/changes" / CHANGE
    write(d, "tasks.md", "## 1. Core\n- [x] 1.1 Add login\n  * [ ] 1.1.1 Test it\n- [x] 2.1 [py] Bind\n")
    place = ["--change", CHANGE, "--workspace", str(workspace)]
    for rule in ledger.TASK_RULES:
        tasks = ledger.ChangeSet(workspace, CHANGE, task_rule=rule).tasks()
        assert tasks.to_json() == cli.ok("tasks", *place, "--task-rule", rule, "--json")
    assert ledger.ChangeSet(workspace, CHANGE).tasks().to_json() == cli.ok("tasks", *place, "--json")
    # `ledger normalize` and normalize_tasks give the same bytes for every vector.
    for name in ("task-checkbox.json", "openspec-checkbox.json"):
        for vector in json.loads((VECTORS / name).read_text())["vectors"]:
            given = bytes.fromhex(vector["input"])
            for rule in ledger.TASK_RULES:
                out = subprocess.run(
                    [cli.path, "normalize", "--task-rule", rule], input=given, capture_output=True, check=True
                )
                assert out.stdout == ledger.normalize_tasks(given, rule), (name, vector["name"], rule)


RAPID = (
    "name: rapid\nversion: 1\nartifacts:\n"
    "  - {id: proposal, generates: proposal.md}\n"
    "  - {id: tasks, generates: tasks.md, requires: [proposal]}\n"
    "apply:\n  tracks: tasks.md\n"
)


def test_schemas_and_their_records_match_the_cli(workspace: Path, cli: Cli) -> None:
    d = workspace / "openspec/changes" / CHANGE
    write(workspace, "openspec/schemas/rapid/schema.yaml", RAPID)
    write(d, ".openspec.yaml", "schema: rapid\n")
    place = ["--change", CHANGE, "--workspace", str(workspace)]
    store = ledger.Store(workspace)

    def same_status(cli_flags: list[str], **kwargs: str) -> ledger.ApprovalStatus:
        status = ledger.status(store, ledger.ChangeSet(workspace, CHANGE, **kwargs))  # type: ignore[arg-type]
        out = cli.run("status", *place, *cli_flags, "--json")
        assert out.returncode == (0 if status.all_approved() else 1), out.stderr
        assert status.to_json() == out.stdout
        return status

    # Declared by the change: Python approves one artifact, the CLI the other.
    ledger.approve(store, ledger.ChangeSet(workspace, CHANGE), "proposal", "msg 1")
    cli.ok("approve", *place, "--artifact", "tasks", "--source", "msg 2")
    status = same_status([])
    assert status.all_approved() and status.schema is not None and status.schema.name == "rapid"
    _, envelope = ledger.current_state(store, CHANGE)
    assert [b.schema for b in envelope.bindings] == [status.schema, status.schema]
    # Named by the caller, by name and by path.
    assert same_status(["--schema", "rapid"], schema="rapid").all_approved()
    path = str(workspace / "openspec/schemas/rapid/schema.yaml")
    assert [c.reason for c in same_status(["--schema", path], schema=path).schema_changed] == ["other-schema"] * 2
    # Redeclared, and a changed schema file.
    write(d, ".openspec.yaml", "schema: spec-driven\n")
    assert [c.declared for c in same_status([]).schema_changed] == ["spec-driven"] * 2
    write(d, ".openspec.yaml", "schema: rapid\n")
    write(workspace, "openspec/schemas/rapid/schema.yaml", RAPID + "# edited\n")
    assert [c.reason for c in same_status([]).schema_changed] == ["content-changed"] * 2
    # skip_specs under spec-driven: the spec set is skipped for both.
    write(d, ".openspec.yaml", "schema: spec-driven\nskip_specs: true\n")
    import shutil

    shutil.rmtree(d / "specs")
    status = same_status(["--schema", "spec-driven"], schema="spec-driven")
    assert [a.state for a in status.artifacts][1] == "skipped"
