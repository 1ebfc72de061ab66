"""Shared fixtures: isolated Git sandboxes, the `ledger` CLI, the shared vectors.

ledger runs in this process, so the Git isolation (no user or system config) is
set on the process environment for the whole session: both the `git` commands
that build the fixtures and ledger's own Git reading see the same, empty config.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

import pytest

import ledger

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[2]
VECTORS = REPO_ROOT / "tests" / "vectors"


@pytest.fixture(scope="session", autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "LC_ALL": "C",
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    (home / ".gitconfig").write_text("")
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True)
    assert out.returncode == 0, f"git {args}: {out.stderr}"
    return out.stdout


def uncached(w: Path) -> str:
    """The workspace's fingerprint without the digest cache (so without the walk
    memo either): every file read."""
    return ledger.Workspace(w, digest_cache=False).fingerprint()


def write(root: Path, rel: str, content: bytes | str = "x\n", mode: int | None = None) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    if mode is not None:
        path.chmod(mode)
    return path


def init_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return path


def commit_all(path: Path, message: str = "c") -> None:
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed checkout with every kind of entry: plain, executable, symlink,
    nested dirs, an ignored file, an untracked file and a deleted tracked file."""
    w = init_repo(tmp_path / "w")
    write(w, "README.md", "# demo\n")
    write(w, "run.sh", "#!/bin/sh\necho hi\n", mode=0o755)
    write(w, "src/main.rs", "fn main() {}\n")
    write(w, "src/lib.rs", "pub fn f() {}\n")
    write(w, "src/generated/out.rs", "// generated\n")
    write(w, "a.b", "dot\n")
    write(w, "a/b", "slash\n")
    write(w, "gone.md", "soon gone\n")
    write(w, "tasks.md", "- [x] 1.1 [core] Do it\n- [ ] 1.2 [py] Bind it\n")
    write(w, ".gitignore", "build/\n*.log\n")
    write(w, "build/config.ignored", "ignored but wanted\n")
    write(w, "debug.log", "noise\n")
    (w / "link").symlink_to("README.md")
    commit_all(w)
    (w / "gone.md").unlink()
    write(w, "untracked.txt", "new\n")
    return w


@dataclass
class Cli:
    """The `ledger` binary built from this workspace."""

    path: str

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.path, *args], capture_output=True, text=True, cwd=cwd)

    def ok(self, *args: str, cwd: Path | None = None) -> str:
        out = self.run(*args, cwd=cwd)
        assert out.returncode == 0, f"ledger {args}: exit {out.returncode}: {out.stderr}"
        return out.stdout

    def json(self, *args: str, cwd: Path | None = None) -> Any:
        return json.loads(self.ok(*args, cwd=cwd))


@pytest.fixture(scope="session")
def cli() -> Cli:
    """`$LEDGER_BIN` (set by ci.sh), else a CLI built in this workspace's target dir."""
    candidates = [os.environ.get("LEDGER_BIN", "")]
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO_ROOT / "target"))
    candidates += [str(target / "debug" / "ledger"), str(target / "release" / "ledger")]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Cli(c)
    if os.environ.get("CI"):
        pytest.fail("no ledger CLI found: set LEDGER_BIN (ci.sh builds it)")
    pytest.skip("no ledger CLI found: set LEDGER_BIN or `cargo build -p ledger-cli`")


CHANGE = "add-auth"

# The states in which an artifact's approval stands (docs/approvals.md, States).
STANDING = {"approved", "archived", "skipped"}


def all_approved(status: ledger.ApprovalStatus) -> bool:
    """Whether every approval of the change stands, made with the schema in use:
    what `ledger status` exits 0 on (test_cli_parity checks the two agree)."""
    return all(a["state"] in STANDING for a in status["artifacts"]) and not status["schema_changed"]


def states(status: ledger.ApprovalStatus) -> dict[str, str]:
    """Each artifact's state, by artifact, in graph order."""
    return {a["artifact"]: a["state"] for a in status["artifacts"]}


def conforms(value: object, typed: Any, where: str = "result") -> None:
    """`value` is what its generated type says, at every depth: a TypedDict's
    keys are those it declares (every required one, none it does not declare),
    each value of the declared type; a union holds when one member does."""
    import typing

    import ledger._api as api

    origin, args = typing.get_origin(typed), typing.get_args(typed)
    if typed is Any or typed is object:
        return
    if typed is type(None):
        assert value is None, (where, value)
    elif origin is typing.Union:
        failures = []
        for member in args:
            try:
                conforms(value, member, where)
                return
            except AssertionError as e:
                failures.append(str(e))
        raise AssertionError(f"{where}: no member of {typed} holds: {failures}")
    elif origin is typing.Literal:
        assert value in args, (where, value, args)
    elif origin is list:
        assert isinstance(value, list), (where, value)
        for n, item in enumerate(value):
            conforms(item, args[0], f"{where}[{n}]")
    elif origin is dict:
        assert isinstance(value, dict), (where, value)
        for key, item in value.items():
            assert isinstance(key, str), (where, key)
            conforms(item, args[1], f"{where}[{key!r}]")
    elif typing.is_typeddict(typed):
        assert isinstance(value, dict), (where, value)
        declared = typed.__required_keys__ | typed.__optional_keys__
        assert set(value) <= declared, (where, typed.__name__, "undeclared", set(value) - declared)
        assert typed.__required_keys__ <= set(value), (where, typed.__name__, "missing", typed.__required_keys__ - set(value))
        hints = typing.get_type_hints(typed, vars(api))
        for key, item in value.items():
            conforms(item, hints[key], f"{where}.{key}")
    elif typed is int:
        assert isinstance(value, int) and not isinstance(value, bool), (where, value)
    elif typed is float:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), (where, value)
    else:
        assert isinstance(value, typed), (where, value, typed)


def make_change(ws: Path, change: str = CHANGE) -> Path:
    """An OpenSpec change with every spec-driven artifact and a linked material."""
    d = ws / "openspec" / "changes" / change
    write(d, "proposal.md", "# Why\nLogins.\n")
    write(d, "specs/auth/spec.md", "## Requirement: login\n")
    write(d, "design.md", "# Design\nSee [the flow](diagrams/flow.svg).\n")
    write(d, "diagrams/flow.svg", "<svg/>\n")
    write(d, "tasks.md", "- [ ] 1.1 [core] Add login\n- [ ] 1.2 [py] Bind it\n")
    return d


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A committed checkout holding one OpenSpec change."""
    w = init_repo(tmp_path / "ws")
    write(w, "src/app.py", "print('hi')\n")
    make_change(w)
    commit_all(w)
    return w
