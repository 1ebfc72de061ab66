#!/usr/bin/env python3
"""Side-by-side timing of `ledger fingerprint` against what people write by hand.

Generates two corpora in a temporary directory and, in one run, times:

  A  a Git repository of 10^5 files of 4 KiB (10% untracked, some ignored)
  B  8 files of 256 MiB

Contenders: the ledger CLI; `git ls-files | xargs sha256sum`; the same with
`openssl dgst -sha256`; a plain Python hashlib loop over the git listing; the
Python and Node bindings (when built). Floors: `git ls-files` alone, and
`openssl speed -evp sha256` for the hashing speed of one core. Prints medians,
ratios, peak RSS (from /usr/bin/time), and checks the targets of
docs/performance.md. Nothing here is a test: it measures, it does not assert.

Usage: benches/compare.py [--runs N] [--files N] [--big-mib N] [--keep DIR]
Build first: cargo build --release -p ledger-cli (and `make python-test` /
`make node-test` for the bindings, which leave release builds behind).
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEDGER = os.path.join(ROOT, "target", "release", "ledger")
PYTHON = os.path.join(ROOT, "crates", "ledger-py", ".venv", "bin", "python")
NODE_PKG = os.path.join(ROOT, "crates", "ledger-node")
CORES = os.cpu_count() or 1
GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")

HASHLIB_LOOP = r"""
import hashlib, subprocess, sys
out = subprocess.run(["git", "ls-files", "-coz", "--exclude-standard"], capture_output=True, check=True).stdout
h = hashlib.sha256()
for p in sorted(set(out.split(b"\0")) - {b""}):
    with open(p, "rb") as f:
        d = hashlib.file_digest(f, "sha256").hexdigest()
    h.update(p + b"\0" + d.encode() + b"\0")
print(h.hexdigest())
"""

PY_BINDING = r"""
import sys, time, ledger
t = time.perf_counter(); fp = ledger.fingerprint(sys.argv[1]); dt = time.perf_counter() - t
print(fp); print(dt)
"""

NODE_BINDING = r"""
const { fingerprint } = require(process.argv[1]);
const t = process.hrtime.bigint();
fingerprint({ workspace: process.argv[2] }).then((fp) => {
  console.log(fp); console.log(Number(process.hrtime.bigint() - t) / 1e9);
});
"""


def sh(cmd, cwd=None, env=None):
    return subprocess.run(cmd, cwd=cwd, env=env or GIT_ENV, check=True, capture_output=True)


def timed(argv, cwd, inner=False):
    """Wall seconds and peak RSS (KiB) of one run. With `inner`, the command
    prints its own in-process time as its last line (binding calls), and that
    is the time reported."""
    with tempfile.NamedTemporaryFile("r") as rss:
        start = time.perf_counter()
        out = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, *argv], cwd=cwd,
                             env=GIT_ENV, check=True, capture_output=True, text=True)
        wall = time.perf_counter() - start
        peak = int(rss.read().strip().splitlines()[-1])
    if inner:
        wall = float(out.stdout.strip().splitlines()[-1])
    return wall, peak, out.stdout


def measure(rows, cwd, runs):
    """Times every contender `runs` times (the slow `sha256sum` pipeline: fewer),
    round-robin, so that a noisy moment of the machine spreads over all of them
    instead of skewing one; each is run once first to warm the page cache."""
    counts = [max(2, runs // 2) if "sha256sum" in name else runs for name, _, _ in rows]
    samples = [[] for _ in rows]
    for _, argv, inner in rows:
        timed(argv, cwd, inner)
    for round_ in range(max(counts)):
        for i, (_, argv, inner) in enumerate(rows):
            if round_ < counts[i]:
                samples[i].append(timed(argv, cwd, inner))
    results = []
    for (name, _, _), runs_of in zip(rows, samples):
        walls = [s[0] for s in runs_of]
        results.append({"name": name, "median": statistics.median(walls), "min": min(walls),
                        "rss_mib": max(s[1] for s in runs_of) / 1024, "stdout": runs_of[-1][2]})
    return results


def sha256_core_speed():
    """Bytes per second of one core, from `openssl speed -evp sha256` (16 KiB blocks)."""
    out = sh(["openssl", "speed", "-evp", "sha256", "-bytes", "16384", "-seconds", "3"]).stdout.decode()
    line = [l for l in out.splitlines() if l.lower().startswith("sha256")][-1]
    kbytes = float(re.findall(r"([\d.]+)k", line)[-1])
    return kbytes * 1000


def make_corpus_a(base, files):
    repo = os.path.join(base, "A")
    os.makedirs(repo)
    sh(["git", "init", "-q"], cwd=repo)
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("build/\n*.log\n")
    tracked = files - files // 10
    for i in range(files):
        d = os.path.join(repo, f"d{i % 100:02d}", f"s{(i // 100) % 10}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i:06d}.txt"), "wb") as f:
            f.write(os.urandom(4096))
        if i + 1 == tracked:
            sh(["git", "add", "-A"], cwd=repo)
            sh(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "corpus"], cwd=repo)
    os.makedirs(os.path.join(repo, "build"))
    for i in range(files // 100):
        with open(os.path.join(repo, "build", f"o{i}.bin"), "wb") as f:
            f.write(os.urandom(4096))
        with open(os.path.join(repo, f"d{i % 100:02d}", f"run{i}.log"), "w") as f:
            f.write("ignored\n")
    return repo


def make_corpus_b(base, count, mib):
    repo = os.path.join(base, "B")
    os.makedirs(repo)
    sh(["git", "init", "-q"], cwd=repo)
    block = os.urandom(1 << 20)
    for i in range(count):
        with open(os.path.join(repo, f"big{i}.bin"), "wb") as f:
            for j in range(mib):
                f.write(block[j % 251:] + block[:j % 251])
    return repo


def contenders(repo):
    listing = "git ls-files -coz --exclude-standard"
    rows = [
        ("ledger fingerprint", [LEDGER, "fingerprint"], False),
        ("git ls-files | xargs sha256sum", ["sh", "-c", f"{listing} | xargs -0 sha256sum >/dev/null"], False),
        ("git ls-files | xargs openssl dgst", ["sh", "-c", f"{listing} | xargs -0 openssl dgst -sha256 >/dev/null"], False),
        ("python hashlib loop", [sys.executable, "-c", HASHLIB_LOOP], False),
        ("floor: git ls-files", ["sh", "-c", f"{listing} >/dev/null"], False),
    ]
    if os.path.exists(PYTHON):
        rows.append(("python binding (in process)", [PYTHON, "-c", PY_BINDING, repo], True))
    if any(n.endswith(".node") for n in os.listdir(NODE_PKG)):
        rows.append(("node binding (in process)", ["node", "-e", NODE_BINDING, NODE_PKG, repo], True))
    return rows


def table(title, results, reference):
    print(f"\n{title}")
    print(f"{'contender':36} {'median s':>9} {'min s':>8} {'x ledger':>9} {'peak RSS MiB':>13}")
    for r in results:
        print(f"{r['name']:36} {r['median']:9.3f} {r['min']:8.3f} {r['median'] / reference:9.2f} {r['rss_mib']:13.1f}")


def verdict(label, ok, detail):
    print(f"  [{'PASS' if ok else 'MISS'}] {label}: {detail}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--big-files", type=int, default=8)
    ap.add_argument("--big-mib", type=int, default=256)
    ap.add_argument("--keep", help="build the corpora here and keep them")
    args = ap.parse_args()
    if not os.path.exists(LEDGER):
        sys.exit(f"{LEDGER} is missing: cargo build --release -p ledger-cli")
    base = args.keep or tempfile.mkdtemp(prefix="ledger-compare-")
    try:
        print(f"machine: {CORES} cores, {os.uname().release}; corpora in {base}")
        speed = sha256_core_speed()
        print(f"floor: openssl speed -evp sha256 = {speed / 1e9:.2f} GB/s per core")
        a = os.path.join(base, "A") if os.path.exists(os.path.join(base, "A")) else make_corpus_a(base, args.files)
        b = os.path.join(base, "B") if os.path.exists(os.path.join(base, "B")) else make_corpus_b(base, args.big_files, args.big_mib)
        bytes_a = sum(os.path.getsize(os.path.join(a, p.decode())) for p in
                      sh(["git", "ls-files", "-coz", "--exclude-standard"], cwd=a).stdout.split(b"\0") if p)
        bytes_b = args.big_files * args.big_mib << 20

        res_a = measure(contenders(a), a, args.runs)
        res_b = measure([row for row in contenders(b) if "floor" not in row[0]], b, args.runs)
        led_a = res_a[0]["median"]
        led_b = res_b[0]["median"]
        table(f"corpus A: {args.files} files, {bytes_a / 1e6:.0f} MB", res_a, led_a)
        table(f"corpus B: {args.big_files} x {args.big_mib} MiB, {bytes_b / 1e9:.2f} GB", res_b, led_b)

        # Bounded memory: one 4 GiB file against one 4 KiB file.
        sizes = {}
        for name, size in (("small", 4096), ("huge", 4 << 30)):
            d = os.path.join(base, name)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "f"), "wb") as f:
                f.truncate(size)  # sparse: the read path is the same
            sizes[name] = measure([(name, [LEDGER, "fingerprint", "--workspace", d, "--root", "."], False)], d, 1)[0]

        listing = next(r["median"] for r in res_a if r["name"] == "floor: git ls-files")
        xargs = next(r["median"] for r in res_a if r["name"].endswith("sha256sum"))
        floor_a = listing + bytes_a / (CORES * speed)
        print("\ntargets")
        verdict("B throughput >= 85% of cores x SHA-256", bytes_b / led_b >= 0.85 * CORES * speed,
                f"{bytes_b / led_b / 1e9:.2f} GB/s vs {0.85 * CORES * speed / 1e9:.2f} GB/s "
                f"({bytes_b / led_b / (CORES * speed):.0%} of {CORES} x {speed / 1e9:.2f})")
        dgst_b = next(r["median"] for r in res_b if r["name"].endswith("openssl dgst"))
        print(f"  [INFO] B against OpenSSL reading the files itself (`openssl dgst`, one process, "
              f"{bytes_b / dgst_b / 1e9:.2f} GB/s): {bytes_b / led_b / (CORES * bytes_b / dgst_b):.0%} of {CORES} x that")
        verdict("A wall <= 1.5 x (listing + bytes / (cores x SHA-256))", led_a <= 1.5 * floor_a,
                f"{led_a:.3f} s vs {1.5 * floor_a:.3f} s (floor {floor_a:.3f} s = {listing:.3f} listing + "
                f"{bytes_a / (CORES * speed):.3f} hashing; ratio {led_a / floor_a:.2f})")
        verdict("A at least 4x faster than xargs sha256sum", xargs >= 4 * led_a, f"{xargs / led_a:.1f}x")
        verdict("peak RSS <= 64 MiB on A and B", max(res_a[0]["rss_mib"], res_b[0]["rss_mib"]) <= 64,
                f"A {res_a[0]['rss_mib']:.1f} MiB, B {res_b[0]['rss_mib']:.1f} MiB")
        verdict("4 GiB file with the peak RSS of a 4 KiB one", sizes["huge"]["rss_mib"] <= sizes["small"]["rss_mib"] + 2,
                f"{sizes['huge']['rss_mib']:.1f} MiB vs {sizes['small']['rss_mib']:.1f} MiB")
        for r in res_a:
            if "binding" in r["name"]:
                verdict(f"{r['name']} within 1.1 x CLI on A", r["median"] <= 1.1 * led_a,
                        f"{r['median']:.3f} s vs {led_a:.3f} s ({r['median'] / led_a:.2f}x)")
        fps = {r["stdout"].strip().splitlines()[0] for r in res_a if "binding" in r["name"] or r["name"].startswith("ledger")}
        print(f"  [{'PASS' if len(fps) == 1 else 'MISS'}] CLI and bindings agree on A: {sorted(fps)}")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
