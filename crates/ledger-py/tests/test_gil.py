"""The GIL is released while ledger expands and hashes: other Python threads run.

A counter thread increments as fast as it can. Its rate is measured first while
the main thread sleeps; then a large fingerprint runs in the main thread. Were
the GIL held during the call, the counter could only advance in the few
milliseconds before it (one switch interval, 5 ms): a small fraction of what it
does when it is free. Released, it keeps a good share of its free rate even
while the hashing threads take both cores.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

import ledger

FILES = 16
FILE_MB = 16  # 256 MB in all: long enough to measure, quick to create


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big")
    block = os.urandom(1 << 20)
    for i in range(FILES):
        with open(root / f"blob-{i:02}.bin", "wb") as f:
            for j in range(FILE_MB):
                f.write(block[j:] + block[:j])  # distinct content per MB
    return root


class Counter:
    def __init__(self) -> None:
        self.count = 0
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop:
            self.count += 1

    def __enter__(self) -> Counter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop = True
        self._thread.join()


def progress_during(work: Callable[[], object], min_seconds: float = 0.3) -> tuple[float, float]:
    """(counter increments per second while `work` runs, while the caller sleeps)."""
    with Counter() as counter:
        time.sleep(0.05)
        start, t0 = counter.count, time.perf_counter()
        time.sleep(0.3)
        free_rate = (counter.count - start) / (time.perf_counter() - t0)

        start, t0 = counter.count, time.perf_counter()
        while time.perf_counter() - t0 < min_seconds:
            work()
        busy_rate = (counter.count - start) / (time.perf_counter() - t0)
    return busy_rate, free_rate


def test_another_thread_runs_during_a_large_fingerprint(big_tree: Path) -> None:
    ws = ledger.Workspace(big_tree)
    t0 = time.perf_counter()
    expected = ws.fingerprint()
    single = time.perf_counter() - t0

    results: list[str] = []
    busy, free = progress_during(lambda: results.append(ws.fingerprint()))
    assert set(results) == {expected}
    print(f"one fingerprint of {FILES * FILE_MB} MB: {single:.3f} s; "
          f"counter {busy:,.0f}/s during the calls vs {free:,.0f}/s free")
    assert busy > 0.15 * free, (busy, free)


def test_compare_and_inventory_release_the_gil_too(big_tree: Path) -> None:
    ws = ledger.Workspace(big_tree)
    inventory = ws.inventory()
    busy, free = progress_during(lambda: ws.compare(inventory))
    assert busy > 0.15 * free, (busy, free)
    busy, free = progress_during(lambda: ws.inventory())
    assert busy > 0.15 * free, (busy, free)


def test_threads_fingerprint_concurrently(big_tree: Path) -> None:
    ws = ledger.Workspace(big_tree)
    expected = ws.fingerprint(roots=["blob-00.bin", "blob-01.bin"])
    out: list[str] = []
    threads = [
        threading.Thread(target=lambda: out.append(ws.fingerprint(roots=["blob-00.bin", "blob-01.bin"])))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [expected] * 4
