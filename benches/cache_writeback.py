#!/usr/bin/env python3
"""What the digest cache's forced writeback costs (docs/performance.md, The
cache's safety rule): `ledger fingerprint` on a generated tree of small files,
each run in a fresh directory's state, in three cases:

  settled   the tree synced and older than the cache's margin: no dirty page,
            the writeback is one look at the dirty tag per file
  fresh     the tree written SETTLE_FRESH seconds before the run (older than
            the margin, pages still dirty): every recorded file is written back
  warm      a second run on the settled tree: every file answered from the cache

each with the cache (no cache file at the start: every file read and recorded)
against `--no-cache` (every file read, nothing recorded, no writeback). Prints
medians of RUNS runs. Nothing here is a test: it measures.

Usage: benches/cache_writeback.py LEDGER_BIN [--files N] [--runs N] [--dir DIR]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

SETTLE_FRESH = 0.5


def make_tree(root: str, files: int) -> None:
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(os.path.join(root, ".ledger"))
    with open(os.path.join(root, ".ledger", ".gitignore"), "w") as f:
        f.write("*\n")
    for i in range(files):
        sub = os.path.join(root, f"d{i % 100:02}")
        if i < 100:
            os.makedirs(sub)
        with open(os.path.join(sub, f"f{i}"), "wb") as f:
            f.write((b"%d\n" % i) * 100)


def run(ledger: str, root: str, *flags: str) -> float:
    started = time.perf_counter()
    subprocess.run([ledger, *flags, "fingerprint"], cwd=root, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def drop_cache_file(root: str) -> None:
    try:
        os.remove(os.path.join(root, ".ledger", "digest-cache"))
    except FileNotFoundError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("ledger")
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", default=None)
    args = parser.parse_args()
    base = tempfile.mkdtemp(dir=args.dir)
    root = os.path.join(base, "tree")
    results = {}
    try:
        for case in ("fresh", "settled"):
            for flags in ((), ("--no-cache",)):
                times = []
                for _ in range(args.runs):
                    make_tree(root, args.files)
                    if case == "settled":
                        os.sync()
                        time.sleep(2.5)
                    else:
                        time.sleep(SETTLE_FRESH)
                    drop_cache_file(root)
                    times.append(run(args.ledger, root, *flags))
                    if case == "settled" and not flags:
                        warm = results.setdefault(("warm", ()), [])
                        warm.append(run(args.ledger, root))
                results[(case, flags)] = times
        for (case, flags), times in results.items():
            label = f"{case:8} {' '.join(flags) or 'cache':10}"
            print(f"{label} median {statistics.median(times) * 1000:8.1f} ms  "
                  f"({', '.join(f'{t * 1000:.0f}' for t in times)})")
    finally:
        shutil.rmtree(base)


if __name__ == "__main__":
    main()
