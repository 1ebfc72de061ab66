"""The digest cache against a writer through a shared mapping (issue 29, part 1):
a store through `mmap(MAP_SHARED)` to a page that was still dirty when the cache
recorded the file moves no time, and every later fingerprint still sees it
(docs/performance.md, The cache's safety rule)."""

from __future__ import annotations

import mmap
import os
import time
from pathlib import Path

import ledger
from conftest import uncached, write

# Longer than the cache's timestamp margin: files older than this when a call
# starts are recorded.
AGE = 2.2


def test_a_second_write_through_a_shared_mapping_is_seen(tmp_path: Path) -> None:
    w = tmp_path / "w"
    write(w, "design.md", "# Design\n" * 8)
    write(w, "notes.md", "notes\n")
    write(w, ".ledger/.gitignore", "*\n")
    with open(w / "design.md", "r+b") as f:
        mapping = mmap.mmap(f.fileno(), 0)  # MAP_SHARED, read and write
        mapping[2:3] = b"d"
        time.sleep(AGE)
        first = ledger.Workspace(w).fingerprint()
        assert first == uncached(w)
        cache = ledger.Workspace(w).store_check()["cache"]
        assert cache is not None and (cache["entries"], cache["intact"]) == (2, True), cache
        # The same page, still dirty: the kernel moves no time for this store.
        mapping[3:4] = b"E"
        mapping.close()
        os.fsync(f.fileno())
    truth = uncached(w)
    assert truth != first
    for _ in range(2):
        assert ledger.Workspace(w).fingerprint() == truth


def test_a_write_through_a_mapping_kept_open_and_msynced_is_seen(tmp_path: Path) -> None:
    w = tmp_path / "w"
    write(w, "data.bin", "0123456789" * 100)
    write(w, ".ledger/.gitignore", "*\n")
    with open(w / "data.bin", "r+b") as f, mmap.mmap(f.fileno(), 0) as mapping:
        mapping[0:1] = b"a"
        time.sleep(AGE)
        first = ledger.Workspace(w).fingerprint()
        mapping[1:2] = b"b"
        mapping.flush()
        truth = uncached(w)
        assert truth != first
        assert ledger.Workspace(w).fingerprint() == truth
