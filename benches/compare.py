#!/usr/bin/env python3
"""Side-by-side timing of `ledger fingerprint` against what people write by hand.

Generates two corpora in a temporary directory and, in one run, times:

  A  a Git repository of 10^5 files of 4 KiB (10% untracked, some ignored)
  B  8 files of 256 MiB

Contenders: the ledger CLI without the digest cache (`--no-cache`, every file
read) and with it warm (an unchanged tree); `git status --porcelain -uall`;
`git ls-files | xargs sha256sum` (also `-P2`); the same with `openssl dgst
-sha256`; a plain Python hashlib loop over the git listing; the Python and Node
bindings (when built); b3sum, hashdeep and dirhash when installed. Floors: `git
ls-files` alone, `openssl speed -evp sha256` for the hashing speed of one core,
and a small C program the bench builds (open/fstat/read/SHA-256 on one thread
per core, and with 16 threads). Scenarios: warm; one file in a hundred
rewritten before each cached run; cold (`--cold`: the page cache dropped before
each run, through /proc/sys/vm/drop_caches when writable, else per file with
posix_fadvise(DONTNEED)); growth (`--scale 10000,100000,1000000`: 1 KiB files,
time per file and peak RSS against `git ls-files`). Prints medians, ratios, peak
RSS (from /usr/bin/time), and checks the targets of docs/performance.md. Nothing
here is a test: it measures, it does not assert.

Usage: benches/compare.py [--runs N] [--files N] [--big-mib N] [--keep DIR]
                          [--cold] [--scale N,N,...]
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


C_FLOOR = r"""
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* Reads NUL-separated paths on stdin; N threads each open, fstat, read and
   SHA-256 their share: the per-file floor of any reader. */
static char **paths; static size_t count, next_path; static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void *work(void *arg) {
    (void)arg; static __thread unsigned char buf[262144]; unsigned char md[32]; unsigned int len;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    for (;;) {
        pthread_mutex_lock(&mu); size_t i = next_path++; pthread_mutex_unlock(&mu);
        if (i >= count) break;
        int fd = open(paths[i], O_RDONLY | O_NOFOLLOW); if (fd < 0) continue;
        struct stat st; fstat(fd, &st);
        EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
        ssize_t n; while ((n = read(fd, buf, sizeof buf)) > 0) EVP_DigestUpdate(ctx, buf, n);
        EVP_DigestFinal_ex(ctx, md, &len); close(fd);
    }
    EVP_MD_CTX_free(ctx); return NULL;
}
int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 2; size_t cap = 1024, used = 0, size = 0; char *all = NULL;
    for (;;) { all = realloc(all, size + 65536); size_t n = fread(all + size, 1, 65536, stdin); size += n; if (n == 0) break; }
    paths = malloc(cap * sizeof *paths);
    for (size_t at = 0; at < size; at += strlen(all + at) + 1) {
        if (!all[at]) continue; if (used == cap) paths = realloc(paths, (cap *= 2) * sizeof *paths); paths[used++] = all + at;
    }
    count = used; pthread_t t[1024];
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    return 0;
}
"""


def build_c_floor(base):
    """Compiles the C floor (needs a C compiler and OpenSSL's headers); None if it cannot."""
    src, exe = os.path.join(base, "floor.c"), os.path.join(base, "floor")
    with open(src, "w") as f:
        f.write(C_FLOOR)
    try:
        sh(["cc", "-O2", "-pthread", "-o", exe, src, "-lcrypto"])
        return exe
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None


def drop_caches(repo):
    """Empties the page cache: the kernel's drop_caches when writable (root), else
    posix_fadvise(DONTNEED) on every listed file (what `vmtouch -e` does)."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return "drop_caches"
    except OSError:
        out = sh(["git", "ls-files", "-coz", "--exclude-standard"], cwd=repo).stdout
        for p in out.split(b"\0"):
            if p:
                fd = os.open(os.path.join(repo.encode(), p), os.O_RDONLY)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                os.close(fd)
        return "posix_fadvise(DONTNEED)"


def rewrite_one_in_a_hundred(repo, round_=[0]):
    """Rewrites 1% of the tracked files in place, same size, new bytes (other files each round)."""
    round_[0] += 1
    out = sh(["git", "ls-files", "-z"], cwd=repo).stdout.split(b"\0")
    files = [p for p in out if p]
    for p in files[round_[0] % 100::100]:
        path = os.path.join(repo.encode(), p)
        size = os.path.getsize(path)
        with open(path, "wb") as f:
            f.write(os.urandom(size))


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


def measure(rows, cwd, runs, before=None):
    """Times every contender `runs` times (the slow `sha256sum` pipeline: fewer),
    round-robin, so that a noisy moment of the machine spreads over all of them
    instead of skewing one; each is run once first to warm the page cache (and
    the digest cache). `before(cwd)` runs before every timed run (cold runs drop
    the page cache there)."""
    counts = [max(2, runs // 2) if "sha256sum" in name and before is None else runs for name, _, _ in rows]
    samples = [[] for _ in rows]
    for _, argv, inner in rows:
        timed(argv, cwd, inner)
    for round_ in range(max(counts)):
        for i, (_, argv, inner) in enumerate(rows):
            if round_ < counts[i]:
                if before:
                    before(cwd)
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
    make_store(repo)
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


def make_store(repo):
    """An empty ledger store (ignored by Git, as ledger writes it): the digest cache
    lives there, and an expansion never creates the store itself."""
    os.makedirs(os.path.join(repo, ".ledger"), exist_ok=True)
    with open(os.path.join(repo, ".ledger", ".gitignore"), "w") as f:
        f.write("*\n")


def make_corpus_small(base, files):
    """A committed repository of `files` files of 1 KiB, 1,000 per directory."""
    repo = os.path.join(base, f"S{files}")
    if os.path.exists(repo):
        return repo
    os.makedirs(repo)
    sh(["git", "init", "-q"], cwd=repo)
    make_store(repo)
    for i in range(files):
        d = os.path.join(repo, f"d{i // 1000:04d}")
        if i % 1000 == 0:
            os.makedirs(d)
        with open(os.path.join(d, f"f{i}"), "wb") as f:
            f.write(os.urandom(1024))
    sh(["git", "add", "-A"], cwd=repo)
    sh(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "corpus"], cwd=repo)
    # The digest cache records only files that last changed over 2 s before an
    # expansion started: a corpus timed right away would show no cache at all.
    time.sleep(2.5)
    return repo


def make_corpus_b(base, count, mib):
    repo = os.path.join(base, "B")
    os.makedirs(repo)
    sh(["git", "init", "-q"], cwd=repo)
    make_store(repo)
    block = os.urandom(1 << 20)
    for i in range(count):
        with open(os.path.join(repo, f"big{i}.bin"), "wb") as f:
            for j in range(mib):
                f.write(block[j % 251:] + block[:j % 251])
    return repo


LISTING = "git ls-files -coz --exclude-standard"


def optional_contenders():
    """Other tools, when installed (never installed by this script)."""
    rows = []
    if shutil.which("b3sum"):
        rows.append(("git ls-files | xargs b3sum", ["sh", "-c", f"{LISTING} | xargs -0 b3sum >/dev/null"], False))
    if shutil.which("hashdeep"):
        rows.append(("hashdeep -r -c sha256 (no listing)", ["sh", "-c", "hashdeep -r -c sha256 . >/dev/null"], False))
    if shutil.which("dirhash"):
        rows.append(("dirhash -a sha256 (no listing)", ["sh", "-c", "dirhash -a sha256 . >/dev/null"], False))
    return rows


def c_floor_rows(floor):
    if not floor:
        return []
    return [(f"floor: C open/fstat/read/SHA-256, {n} threads",
             ["sh", "-c", f"{LISTING} | {floor} {n}"], False) for n in (CORES, 16)]


def contenders(repo, floor=None):
    listing = LISTING
    rows = [
        ("ledger fingerprint --no-cache", [LEDGER, "--no-cache", "fingerprint"], False),
        ("ledger fingerprint, cache warm", [LEDGER, "fingerprint"], False),
        ("git status --porcelain -uall", ["sh", "-c", "git status --porcelain -uall >/dev/null"], False),
        ("git ls-files | xargs sha256sum", ["sh", "-c", f"{listing} | xargs -0 sha256sum >/dev/null"], False),
        ("git ls-files | xargs -P2 sha256sum", ["sh", "-c", f"{listing} | xargs -0 -P2 -n 500 sha256sum >/dev/null"], False),
        ("git ls-files | xargs openssl dgst", ["sh", "-c", f"{listing} | xargs -0 openssl dgst -sha256 >/dev/null"], False),
        ("python hashlib loop", [sys.executable, "-c", HASHLIB_LOOP], False),
        ("floor: git ls-files", ["sh", "-c", f"{listing} >/dev/null"], False),
        *c_floor_rows(floor),
        *optional_contenders(),
    ]
    if os.path.exists(PYTHON):
        rows.append(("python binding (in process)", [PYTHON, "-c", PY_BINDING, repo], True))
    if any(n.endswith(".node") for n in os.listdir(NODE_PKG)):
        rows.append(("node binding (in process)", ["node", "-e", NODE_BINDING, NODE_PKG, repo], True))
    return rows


def scale_run(base, files, runs):
    """Time per file and peak RSS of a full expansion against `git ls-files` alone."""
    repo = make_corpus_small(base, files)
    rows = [("ledger fingerprint --no-cache", [LEDGER, "--no-cache", "fingerprint"], False),
            ("ledger fingerprint, cache warm", [LEDGER, "fingerprint"], False),
            ("git ls-files", ["sh", "-c", f"{LISTING} >/dev/null"], False),
            ("git status --porcelain -uall", ["sh", "-c", "git status --porcelain -uall >/dev/null"], False)]
    res = measure(rows, repo, runs)
    table(f"{files} files of 1 KiB", res, res[0]["median"])
    git_rss = res[2]["rss_mib"]
    for r in res[:2]:
        print(f"  {r['name']}: {r['median'] / files * 1e6:.2f} us per file, RSS {r['rss_mib'] / git_rss:.2f} x git ls-files")


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
    ap.add_argument("--cold", action="store_true", help="also time with the page cache dropped")
    ap.add_argument("--scale", default="", help="comma-separated file counts for the growth runs")
    ap.add_argument("--only-scale", action="store_true", help="skip corpora A and B")
    args = ap.parse_args()
    if not os.path.exists(LEDGER):
        sys.exit(f"{LEDGER} is missing: cargo build --release -p ledger-cli")
    base = args.keep or tempfile.mkdtemp(prefix="ledger-compare-")
    try:
        print(f"machine: {CORES} cores, {os.uname().release}; corpora in {base}")
        speed = sha256_core_speed()
        print(f"floor: openssl speed -evp sha256 = {speed / 1e9:.2f} GB/s per core")
        print(f"load: {os.getloadavg()[0]:.2f} (1-minute average at the start)")
        floor = build_c_floor(base)
        for files in [int(n) for n in args.scale.split(",") if n]:
            scale_run(base, files, args.runs)
        if args.only_scale:
            return
        a = os.path.join(base, "A") if os.path.exists(os.path.join(base, "A")) else make_corpus_a(base, args.files)
        b = os.path.join(base, "B") if os.path.exists(os.path.join(base, "B")) else make_corpus_b(base, args.big_files, args.big_mib)
        bytes_a = sum(os.path.getsize(os.path.join(a, p.decode())) for p in
                      sh(["git", "ls-files", "-coz", "--exclude-standard"], cwd=a).stdout.split(b"\0") if p)
        bytes_b = args.big_files * args.big_mib << 20

        res_a = measure(contenders(a, floor), a, args.runs)
        res_b = measure([row for row in contenders(b, floor) if row[0] != "floor: git ls-files"], b, args.runs)
        cached_rows = [row for row in contenders(a) if row[0].startswith("ledger")]
        res_rewrite = measure(cached_rows, a, args.runs, before=rewrite_one_in_a_hundred)
        table("corpus A, one file in a hundred rewritten before each run", res_rewrite, res_rewrite[0]["median"])
        if args.cold:
            for name, repo in (("A", a), ("B", b)):
                method = drop_caches(repo)
                cold_rows = [r for r in contenders(repo, floor) if r[0].startswith(("ledger fingerprint --no-cache",
                             "git ls-files | xargs -P2", "git ls-files | xargs openssl", "floor: C", "git ls-files | xargs b3sum"))]
                cold_rows.append(("openssl dgst, one file after another", ["sh", "-c",
                                  f"{LISTING} | xargs -0 -n1 openssl dgst -sha256 >/dev/null"], False))
                res = measure(cold_rows, repo, max(2, args.runs // 2), before=drop_caches)
                table(f"corpus {name}, cold ({method} before each run)", res, res[0]["median"])
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
        status_a = next(r["median"] for r in res_a if r["name"].startswith("git status"))
        cached_a = next(r["median"] for r in res_a if r["name"] == "ledger fingerprint, cache warm")
        cached_b = next(r["median"] for r in res_b if r["name"] == "ledger fingerprint, cache warm")
        verdict("A unchanged, cache warm <= 1.5 x git status --porcelain -uall", cached_a <= 1.5 * status_a,
                f"{cached_a:.3f} s vs {status_a:.3f} s ({cached_a / status_a:.2f}x)")
        print(f"  [INFO] B unchanged, cache warm: {cached_b:.3f} s ({led_b / cached_b:.0f}x faster than reading)")
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
