"""The walk memo and the opt-in watcher, in process: with `set_watchman(True)`
and a private Watchman server named by `WATCHMAN_SOCK`, `fingerprint()`
answers what it answers without the cache after every kind of change, after
the server restarted and once it is gone; an unreachable Watchman changes
nothing (docs/performance.md, The walk memo, The watcher)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterator, Optional

import pytest

import ledger
from conftest import commit_all, init_repo, uncached, write

# A step of the wait for a tree to age past the cache's timestamp granularity
# (a tenth of a second where times keep fractions, two seconds where not).
STEP = 0.12

# The most steps waited: well past two seconds, so a wait that ends here failed.
STEPS = 100

needs_watchman = pytest.mark.skipif(
    shutil.which("watchman") is None,
    reason="no watchman on PATH to run a private server (CI installs it: apt-get install watchman)",
)


class WatchmanServer:
    """A private Watchman server: socket, state, log and pid files in `dir`,
    the machine's configuration left out (as ledger_testkit's)."""

    def __init__(self, dir: Path) -> None:
        self.dir = dir
        (dir / "config.json").write_text("{}")
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.start()

    @property
    def sock(self) -> Path:
        return self.dir / "sock"

    def start(self) -> None:
        d = self.dir
        self.proc = subprocess.Popen(
            [
                "watchman",
                "--foreground",
                "--no-save-state",
                f"--sockname={d / 'sock'}",
                f"--statefile={d / 'state'}",
                f"--logfile={d / 'log'}",
                f"--pidfile={d / 'pid'}",
            ],
            env={**os.environ, "WATCHMAN_CONFIG_FILE": str(d / "config.json")},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Bounded: until the socket accepts a connection.
        for _ in range(3000):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                try:
                    probe.connect(str(self.sock))
                    return
                except OSError:
                    pass
            if self.proc.poll() is not None:
                raise AssertionError(f"watchman exited ({self.proc.returncode}) before listening: {self.log()}")
            time.sleep(0.01)
        raise AssertionError(f"watchman did not listen within 30 s: {self.log()}")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def restart(self) -> None:
        """A fresh instance on the same socket: the clocks kept name a server that is gone."""
        self.stop()
        self.start()

    def watched(self) -> list[str]:
        """The roots this server watches (`watch-list`), asked without spawning one."""
        out = subprocess.run(
            ["watchman", f"--sockname={self.sock}", "--no-spawn", "--no-pretty", "watch-list"],
            capture_output=True,
            check=True,
            timeout=60,
        )
        return list(json.loads(out.stdout)["roots"])

    def log(self) -> str:
        try:
            return (self.dir / "log").read_text(errors="replace")
        except OSError:
            return "(no log)"


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[WatchmanServer]:
    """A private server, named by `WATCHMAN_SOCK` (the core reads it at each call); killed at teardown."""
    # A short directory: a Unix socket's path has at most 107 bytes.
    server = WatchmanServer(tmp_path_factory.mktemp("wm"))
    try:
        monkeypatch.setenv("WATCHMAN_SOCK", str(server.sock))
        yield server
    finally:
        server.stop()


@pytest.fixture
def watcher_on() -> Iterator[None]:
    """The watcher on for the test, as it was afterwards."""
    before = ledger.watchman_enabled()
    ledger.set_watchman(True)
    try:
        yield
    finally:
        ledger.set_watchman(before)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """Tracked, untracked and ignored files, a `.gitignore` and a store (which
    the cache, and so the walk memo, needs)."""
    w = init_repo(tmp_path / "w")
    write(w, ".ledger/.gitignore", "*\n")
    write(w, ".gitignore", "build/\n*.log\n")
    write(w, "src/lib.rs", "pub fn f() {}\n")
    write(w, "docs/guide.md", "guide\n")
    commit_all(w)
    write(w, "notes.txt", "notes\n")
    write(w, "new/a.txt", "a\n")
    write(w, "new/deeper/b.txt", "b\n")
    write(w, "build/out.bin", "ignored\n")
    write(w, "run.log", "ignored\n")
    return w


def check(w: Path, what: str) -> str:
    """The answer with the cache (and the watcher when on) equals the one without."""
    cached = ledger.Workspace(w).fingerprint()
    truth = uncached(w)
    assert cached == truth, what
    return truth


def memo(w: Path) -> Optional[bytes]:
    try:
        return (w / ".ledger" / "walk-memo").read_bytes()
    except FileNotFoundError:
        return None


def settle(w: Path, checked: Callable[[], object]) -> None:
    """Waits (bounded) until the tree is old enough for a call to remember its
    walk: `checked` runs each step until the memo is written anew, then once
    more, which replays it."""
    before = memo(w)
    for _ in range(STEPS):
        time.sleep(STEP)
        checked()
        now = memo(w)
        if now is not None and now != before:
            checked()
            return
    raise AssertionError("no call remembered the walk of an aged tree")


# The change that leaves the answer as it was.
UNSEEN = "a new file in an ignored directory"

# Each kind of change: contents alone, and what the walk depends on.
CHANGES: list[tuple[str, Callable[[Path], object]]] = [
    ("an untracked file rewritten", lambda w: write(w, "notes.txt", "notes, rewritten\n")),
    ("a new untracked file", lambda w: write(w, "new/c.txt", "c\n")),
    ("a removed untracked file", lambda w: (w / "new/a.txt").unlink()),
    ("a removed tracked file", lambda w: (w / "docs/guide.md").unlink()),
    ("a new directory", lambda w: write(w, "fresh/f.txt", "f\n")),
    ("a .gitignore rewritten", lambda w: write(w, ".gitignore", "build/\n*.log\n*.txt\n")),
    (UNSEEN, lambda w: write(w, "build/more/new.bin", "more\n")),
    ("a directory ignored no more", lambda w: write(w, ".gitignore", "*.log\n*.txt\n")),
]


def test_set_watchman_round_trips() -> None:
    before = ledger.watchman_enabled()
    try:
        ledger.set_watchman(True)
        assert ledger.watchman_enabled() is True
        ledger.set_watchman(False)
        assert ledger.watchman_enabled() is False
    finally:
        ledger.set_watchman(before)
    assert ledger.watchman_enabled() is before


@needs_watchman
def test_the_watcher_answers_as_without_the_cache_after_every_change(
    checkout: Path, server: WatchmanServer, watcher_on: None
) -> None:
    w = checkout
    settle(w, lambda: check(w, "aged"))
    # The core asked this server to watch the worktree: the watcher is on.
    assert str(w.resolve()) in server.watched()
    last = check(w, "nothing changed")
    for what, change in CHANGES:
        change(w)
        # At once: the memo is stale and the change too recent to be remembered.
        now = check(w, what)
        if what != UNSEEN:
            assert now != last, f"{what} changes the answer"
        settle(w, lambda: check(w, what))
        last = check(w, f"{what}, settled")

    # A fresh instance knows no clock the memo kept: the directories are looked at instead.
    server.restart()
    check(w, "the server restarted")
    write(w, "after-restart.txt", "r\n")
    check(w, "a new file after the restart")
    settle(w, lambda: check(w, "after the restart"))

    # Gone: the same answers, by looking at the directories.
    server.stop()
    check(w, "the server gone")
    write(w, "new/after-stop.txt", "d\n")
    check(w, "a new file with the server gone")
    settle(w, lambda: check(w, "with the server gone"))
    write(w, "new/deeper/b.txt", "b, rewritten\n")
    check(w, "a rewrite with the server gone")


def test_an_unreachable_watchman_changes_nothing(
    checkout: Path,
    watcher_on: None,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    w = checkout
    nowhere = tmp_path_factory.mktemp("nowhere")
    # Set after the repository is built: git needs PATH, the checks do not.
    # An empty PATH leaves no `watchman get-sockname` to fall back on.
    monkeypatch.setenv("PATH", str(nowhere))
    for n, sock in enumerate([str(nowhere / "no-such-sock"), None, ""]):
        if sock is None:
            monkeypatch.delenv("WATCHMAN_SOCK", raising=False)
        else:
            monkeypatch.setenv("WATCHMAN_SOCK", sock)
        # A new file each round, so that each round's wait sees a memo written anew.
        settle(w, lambda: check(w, f"aged, WATCHMAN_SOCK={sock!r}"))
        write(w, f"new/deeper/c{n}.txt", "c\n")
        check(w, f"a new untracked file, WATCHMAN_SOCK={sock!r}")
    # Not a word from the core: the watcher never warns.
    assert capfd.readouterr().err == ""


def test_the_walk_memo_replays_only_an_unchanged_tree(checkout: Path) -> None:
    w = checkout
    before_switch = ledger.watchman_enabled()
    ledger.set_watchman(False)
    try:
        settle(w, lambda: check(w, "aged"))
        before = check(w, "nothing changed")
        # A new entry moves only its own directory's times, not its parents'.
        write(w, "new/deeper/c.txt", "c\n")
        after = check(w, "a new untracked file")
        assert after != before
        settle(w, lambda: check(w, "settled"))
        assert check(w, "settled, unchanged") == after
    finally:
        ledger.set_watchman(before_switch)
