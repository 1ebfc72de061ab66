"""The binding gives exactly what the `ledger` CLI gives on the same scopes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import ledger
from conftest import CHANGE, VECTORS, Cli, all_approved, commit_all, init_repo, write

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


def inventory_of(record: ledger.InventoryRecord) -> ledger.Inventory:
    """The inventory a record holds, as `ledger entries --json` prints it."""
    return {
        "scope": record["scope"],
        "walked_roots": record["walked_roots"],
        "entries": record["entries"],
        "fingerprint": record["fingerprint"],
    }


@pytest.mark.parametrize("kwargs,flags", SCOPES, ids=lambda x: repr(x))
def test_fingerprint_and_entries_match_the_cli(
    repo: Path, cli: Cli, kwargs: dict[str, Any], flags: list[str]
) -> None:
    place = ["--workspace", str(repo)]
    ws = ledger.Workspace(repo)
    fp = cli.ok("fingerprint", *place, *flags).splitlines()[-1]
    assert ws.fingerprint(**kwargs) == fp
    inv = ws.inventory(**kwargs)
    assert inv["fingerprint"] == fp
    assert inv == cli.json("entries", "--json", *place, *flags)
    # The text listing ends with the same fingerprint and lists the same paths.
    lines = cli.ok("entries", *place, *flags).splitlines()
    assert lines[-1] == fp
    assert [line.split("\t", 1)[1] for line in lines[:-1]] == [e["path"] for e in inv["entries"]]


def test_multi_repository_scope_matches_the_cli(tmp_path: Path, cli: Cli) -> None:
    root = tmp_path / "ws"
    for name in ("app", "lib"):
        r = init_repo(root / name)
        write(r, f"{name}.txt", name)
        commit_all(r)
    write(root, "docs/guide.md", "walked\n")
    flags = ["--repo", "app", "--repo", "lib", "--root", "app", "--root", "lib", "--root", "docs"]
    expected = cli.json("entries", "--json", "--workspace", str(root), *flags)
    inv = ledger.Workspace(root).inventory(repos=["app", "lib"], roots=["app", "lib", "docs"])
    assert inv == expected


def test_the_cli_default_workspace_is_worktree_root(repo: Path, cli: Cli) -> None:
    from_subdir = cli.ok("fingerprint", cwd=repo / "src").splitlines()[-1]
    root = ledger.worktree_root(str(repo / "src"))
    assert root is not None and ledger.Workspace(root).fingerprint() == from_subdir


def test_inventory_record_is_byte_identical(repo: Path, cli: Cli) -> None:
    text = cli.ok("inventory", "--workspace", str(repo), "--root", "src", "--meta", "gate=make test")
    inv = ledger.Workspace(repo).inventory(roots=["src"])
    assert ledger.inventory_record(inv, meta={"gate": "make test"}) == text
    parsed = ledger.parse_record(text)
    assert ledger.inventory_record(inventory_of(parsed), meta=parsed["observed"]["meta"]) == text


def test_verify_and_compare_agree(repo: Path, cli: Cli, tmp_path: Path) -> None:
    ws = ledger.Workspace(repo)
    record = tmp_path / "approved.json"
    record.write_text(ledger.inventory_record(ws.inventory(), meta={"by": "python"}))
    same = cli.run("verify", str(record), "--json", "--workspace", str(repo))
    assert same.returncode == 0
    assert ws.compare(inventory_of(ledger.read_record(str(record)))) == json.loads(same.stdout)

    write(repo, "README.md", "# changed\n")
    write(repo, "src/new.rs", "new\n")
    (repo / "src/lib.rs").unlink()
    changed = cli.run("verify", str(record), "--json", "--workspace", str(repo))
    assert changed.returncode == 1
    comparison = ws.compare(inventory_of(ledger.read_record(str(record))))
    assert not comparison["matches"]
    assert comparison == json.loads(changed.stdout)

    # A record the CLI wrote reads the same in Python.
    cli_record = tmp_path / "cli.json"
    cli.ok("inventory", "--workspace", str(repo), "--out", str(cli_record))
    # Host-free (docs/records.md): the record's workspace is `.`, the rest is the same.
    from_cli = inventory_of(ledger.read_record(str(cli_record)))
    assert from_cli["scope"]["workspace"] == "."
    now = ws.inventory()
    assert {**from_cli, "scope": {**from_cli["scope"], "workspace": now["scope"]["workspace"]}} == now


def test_errors_carry_the_cli_code(tmp_path: Path, cli: Cli) -> None:
    write(tmp_path, "w/a.txt")
    ws = ledger.Workspace(tmp_path / "w")
    for flags, cls in [
        (["--path", "../x"], ledger.OutsideWorkspaceError),
        (["--root", "a//b"], ledger.InvalidPathError),
    ]:
        out = cli.run("fingerprint", "--workspace", str(tmp_path / "w"), *flags)
        assert out.returncode == 2 and out.stdout == ""
        kwargs: dict[str, Any] = {"paths" if flags[0] == "--path" else "roots": [flags[1]]}
        with pytest.raises(cls) as info:
            ws.fingerprint(**kwargs)
        assert out.stderr.startswith(f"error[{info.value.code}]: {info.value}")


def test_approvals_and_store_match_the_cli(workspace: Path, cli: Cli) -> None:
    place = ["--workspace", str(workspace)]
    ws = ledger.Workspace(workspace)
    # Approved in Python, read by the CLI; approved by the CLI, read in Python.
    ws.approve(CHANGE, "proposal", source="msg 1842")
    cli.ok("approve", "--change", CHANGE, "--artifact", "specs", "--source", "msg 1843", *place)
    status = ws.status(CHANGE)
    out = cli.run("status", "--change", CHANGE, "--json", *place)
    assert out.returncode == (0 if all_approved(status) else 1) == 1
    assert status == json.loads(out.stdout)
    assert [a["state"] for a in status["artifacts"]] == ["approved", "approved", "unbound", "unbound"]

    shown = cli.json("state", "show", "--change", CHANGE, "--json", *place)
    assert shown == [ws.current_state(CHANGE)]

    report = ws.store_check()
    assert {k: v for k, v in report.items() if k != "clean"} == cli.json("store", "check", "--json", *place)
    assert report["clean"] and report["records"] == 2


def test_gate_evidence_is_shared_with_the_cli(workspace: Path, cli: Cli) -> None:
    ws = ledger.Workspace(workspace)
    spec: dict[str, Any] = {"argv": ["sh", "-c", "echo ran"], "prerequisites": {"shell": {"literal": "sh"}}}
    outcome = ws.run_gate("test", **spec)
    assert not outcome["reused"] and outcome["exit_code"] == 0
    # The CLI reuses the evidence Python recorded ...
    run = cli.run("gate", "run", "--name", "test", "--workspace", str(workspace),
                  "--env", "shell=sh", "--", "sh", "-c", "echo ran", cwd=workspace)
    assert run.returncode == 0 and "reused, not run" in run.stderr, run.stderr
    # ... and both answer the freshness question identically (a check observes
    # the prerequisites it is given: it never runs or trusts the recorded ones).
    check = cli.run("gate", "check", "--name", "test", "--workspace", str(workspace),
                    "--env", "shell=sh", "--json", cwd=workspace)
    freshness = ws.check_gate("test", **spec)
    assert check.returncode == 0 and freshness["fresh"]
    assert freshness == json.loads(check.stdout)

    write(workspace, "src/app.py", "print('changed')\n")
    check = cli.run("gate", "check", "--name", "test", "--workspace", str(workspace),
                    "--env", "shell=sh", "--json", cwd=workspace)
    freshness = ws.check_gate("test", **spec)
    assert check.returncode == 1 and not freshness["fresh"]
    assert freshness == json.loads(check.stdout)


def test_tasks_and_normalize_match_the_cli(workspace: Path, cli: Cli) -> None:
    ws = ledger.Workspace(workspace)
    d = workspace / "openspec/changes" / CHANGE
    # The last line's text is not UTF-8: its exact bytes cross as base64 in both.
    write(d, "tasks.md", b"## 1. Core\n- [x] 1.1 Add login\n  * [ ] 1.1.1 Test it\n- [x] 2.1 [py] Bind\n- [ ] 2.2 [py] caf\xe9\n")
    place = ["--change", CHANGE, "--workspace", str(workspace)]
    for rule in ledger.TASK_RULES:
        assert ws.change_tasks(CHANGE, task_rule=rule) == cli.json("tasks", *place, "--task-rule", rule, "--json")
    assert ws.change_tasks(CHANGE) == cli.json("tasks", *place, "--json")
    assert ws.change_tasks(CHANGE)["tasks"][-1]["text_bytes"] == "Mi4yIFtweV0gY2Fm6Q=="
    # `ledger normalize` and normalize_tasks give the same bytes for every vector.
    for name in ("task-checkbox.json", "openspec-checkbox.json"):
        for vector in json.loads((VECTORS / name).read_text())["vectors"]:
            given = bytes.fromhex(vector["input"])
            for rule in ledger.TASK_RULES:
                out = subprocess.run(
                    [cli.path, "normalize", "--task-rule", rule], input=given, capture_output=True, check=True
                )
                assert out.stdout == ledger.normalize_tasks(given, rule=rule), (name, vector["name"], rule)


RAPID = (
    "name: rapid\nversion: 1\nartifacts:\n"
    "  - {id: proposal, generates: proposal.md}\n"
    "  - {id: tasks, generates: tasks.md, requires: [proposal]}\n"
    "apply:\n  tracks: tasks.md\n"
)


def test_schemas_and_their_records_match_the_cli(workspace: Path, cli: Cli) -> None:
    ws = ledger.Workspace(workspace)
    d = workspace / "openspec/changes" / CHANGE
    write(workspace, "openspec/schemas/rapid/schema.yaml", RAPID)
    write(d, ".openspec.yaml", "schema: rapid\n")
    place = ["--change", CHANGE, "--workspace", str(workspace)]

    def same_status(cli_flags: list[str], **kwargs: Any) -> ledger.ApprovalStatus:
        status = ws.status(CHANGE, **kwargs)
        out = cli.run("status", *place, *cli_flags, "--json")
        assert out.returncode == (0 if all_approved(status) else 1), out.stderr
        assert status == json.loads(out.stdout)
        return status

    # Declared by the change: Python approves one artifact, the CLI the other.
    ws.approve(CHANGE, "proposal", source="msg 1")
    cli.ok("approve", *place, "--artifact", "tasks", "--source", "msg 2")
    status = same_status([])
    assert all_approved(status) and status["schema"] is not None and status["schema"]["name"] == "rapid"
    envelope = ws.current_state(CHANGE)["state"]
    assert [b["schema"] for b in envelope["bindings"]] == [status["schema"], status["schema"]]
    # Named by the caller, by name and by path.
    assert all_approved(same_status(["--schema", "rapid"], schema="rapid"))
    path = str(workspace / "openspec/schemas/rapid/schema.yaml")
    assert [c["reason"] for c in same_status(["--schema", path], schema=path)["schema_changed"]] == ["other-schema"] * 2
    # Redeclared, and a changed schema file.
    write(d, ".openspec.yaml", "schema: spec-driven\n")
    assert [c.get("declared") for c in same_status([])["schema_changed"]] == ["spec-driven"] * 2
    write(d, ".openspec.yaml", "schema: rapid\n")
    write(workspace, "openspec/schemas/rapid/schema.yaml", RAPID + "# edited\n")
    assert [c["reason"] for c in same_status([])["schema_changed"]] == ["content-changed"] * 2
    # skip_specs under spec-driven: the spec set is skipped for both.
    write(d, ".openspec.yaml", "schema: spec-driven\nskip_specs: true\n")
    import shutil

    shutil.rmtree(d / "specs")
    status = same_status(["--schema", "spec-driven"], schema="spec-driven")
    assert [a["state"] for a in status["artifacts"]][1] == "skipped"
