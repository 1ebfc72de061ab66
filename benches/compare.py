#!/usr/bin/env python3
"""Side-by-side timing of `ledger fingerprint` against what people write by hand.

Generates two corpora in a temporary directory and, in one run, times:

  A  a Git repository of 10^5 files of 4 KiB (10% untracked, some ignored)
  B  a Git repository of 8 committed files of 256 MiB
  S1, S<n>  committed repositories of 1 KiB files: one (the fixed cost), n (--scale)

Both corpora are also a one-package npm workspace with a committed package.json and
turbo.json (one task, `hash`, whose inputs are Turborepo's default: every file Git
does not ignore), so that `turbo run hash --dry=json` hashes the same files.

Contenders: the ledger CLI without the digest cache (`--no-cache`, every file
read) and with it warm (an unchanged tree); `git status --porcelain -uall` (run
directly, not through a shell); `git ls-files | xargs sha256sum` (also `-P2`);
the same with `openssl dgst -sha256`; a plain Python hashlib loop over the git
listing; the Python and Node bindings (when built). Installed by
benches/contenders/install.sh (or found on PATH): Nx's native hasher
(benches/contenders/nx-hash.js: `WorkspaceContext`, xxh3, with a fresh archive
and with its archive warm; its in-process time), `turbo run hash --dry=json`
(the native binary) on the clean tree (Turborepo takes Git's index hashes for
clean tracked files), b3sum, hashdeep and dirhash; the ones missing are named
at the start. Floors: `git ls-files` alone, `openssl speed -evp sha256` for the
hashing speed of one core, and a small C program the bench builds
(open/fstat/read/SHA-256 on one thread per core, and with 16 threads).

Scenarios: the fixed cost T(1), always (a repository of one committed 1 KiB
file: ledger cached and `--no-cache` against `git status --porcelain`, 30 times
the runs, each a few ms); warm; one file in a hundred rewritten since the
cached run's previous run (each run, with it and without, preceded by a sync
and a pause of SETTLE seconds); cold
(`--cold`: the page cache dropped before each run, through
/proc/sys/vm/drop_caches when writable, else per file with
posix_fadvise(DONTNEED)); every tracked file modified, not committed (the first
byte of each flipped: Turborepo then hashes every file itself); growth (`--scale
10000,100000,1000000`: 1 KiB files, time per file, marginal cost per file
(T(n) - T(1)) / n and its spread over the sizes, peak RSS of ledger with and
without the cache against `git ls-files`). Every time is wall clock from fork
to exit and peak RSS from wait4, by a small C timer the script builds (as
/usr/bin/time reports it); every table shows medians of runs taken round-robin.
Issue 47's two scenarios, in every run (alone with `--only-47`): the
large-file distribution (four 256 MiB files in a plain directory, warm,
`--no-cache`, `--large-runs` consecutive runs: min, median and max as a share
of cores x one core's SHA-256, and `--threads 1`), and the resume call's
scaling (`ledger check` on `--check-files` files with each count of
`--check-changes` active changes, four artifacts approved and one declared
gate each, against `git status --porcelain -uall`; the cost per additional
change). Prints the tables, ratios, the targets of docs/performance.md and tables of the
targets of issues 19, 33 and 47 as ratios (a target not measured in the run
says why); `--json OUT` writes every result. Nothing here is a test: it
measures, it does not assert.

Usage: benches/compare.py [--runs N] [--files N] [--big-files N] [--big-mib N]
                          [--keep DIR] [--cold] [--scale N,N,...] [--only-scale]
                          [--large-runs N] [--check-files N] [--check-changes N,N,...]
                          [--only-47] [--json OUT]
Build first: cargo build --release -p ledger-cli (and, for the bindings,
`LEDGER_PY_RELEASE=1 make python-test` / `make node-test`, which leave release
builds behind);
benches/contenders/install.sh for the other tools.
"""

import argparse
import glob
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
CONTENDERS = os.path.join(ROOT, "benches", "contenders")
TOOLS = os.path.join(CONTENDERS, ".tools")
NX_HASH = os.path.join(CONTENDERS, "nx-hash.js")
CORES = os.cpu_count() or 1
# Turborepo would otherwise report telemetry and look for updates over the network.
# Ledger's own switches are left out: a LEDGER_NO_CACHE in the caller's shell would
# turn every row into another one.
LEDGER_SWITCHES = ("LEDGER_NO_CACHE", "LEDGER_THREADS")
GIT_ENV = dict({k: v for k, v in os.environ.items() if k not in LEDGER_SWITCHES},
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
               TURBO_TELEMETRY_DISABLED="1", TURBO_NO_UPDATE_NOTIFIER="1", DO_NOT_TRACK="1")
# Files every corpus commits for Turborepo; the scenarios that rewrite files leave them alone.
CORPUS_META = {b".gitignore", b"package.json", b"package-lock.json", b"turbo.json"}
# The pause before each run of the rewrite scenario: longer than ledger's rule that
# reads a file changed within the last second twice (a write may be in progress)
# and its racy-entry granularity (100 ms), so that the rewritten files count as
# changed since the last check, not as being written now. The bench's writes are
# flushed (sync) first: the kernel writing them back during the run cost any
# program run then 10-30 ms on corpus A, the noise that hid ledger's own cost.
SETTLE = 1.1
# Everything measured, for --json.
REPORT = {"tables": {}, "targets": [], "targets_issue_33": [], "targets_issue_47": [], "scale": {}, "fixed_cost": {}, "marginal": {}}
# The names of the ledger rows that several functions look up.
NO_CACHE = "ledger fingerprint --no-cache"
CACHED = "ledger fingerprint, cache warm"
# Runs of the one-file repository per --runs: each takes a few ms.
FIXED_RUNS = 30

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
t = time.perf_counter(); fp = ledger.Workspace(sys.argv[1]).fingerprint(); dt = time.perf_counter() - t
print(fp); print(dt)
"""

# The package's API is `new Workspace(path).fingerprint()` (api.js); there is no
# free `fingerprint` function (the bench called one, and the row always failed).
NODE_BINDING = r"""
const { Workspace } = require(process.argv[1]);
const t = process.hrtime.bigint();
new Workspace(process.argv[2]).fingerprint().then((fp) => {
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


def data_files(repo):
    """The tracked files a scenario may rewrite: all but the corpus's own metadata."""
    out = sh(["git", "ls-files", "-z"], cwd=repo).stdout.split(b"\0")
    return [p for p in out if p and p not in CORPUS_META]


class OneInAHundred:
    """Rewrites 1% of the tracked files in place before a run, same size, new
    bytes (other files each round), and counts the bytes it rewrote: the hashing
    time those bytes need is the allowance of the target. Then flushes what was
    written and pauses SETTLE seconds; `unchanged` only flushes and pauses."""

    def __init__(self):
        self.round = 0
        self.bytes = []

    def unchanged(self, repo):
        os.sync()
        time.sleep(SETTLE)

    def __call__(self, repo):
        self.rewrite(repo)
        os.sync()
        time.sleep(SETTLE)

    def rewrite(self, repo):
        self.round += 1
        written = 0
        for p in data_files(repo)[self.round % 100::100]:
            path = os.path.join(repo.encode(), p)
            size = os.path.getsize(path)
            with open(path, "wb") as f:
                f.write(os.urandom(size))
            written += size
        self.bytes.append(written)


def flip_first_bytes(repo):
    """Flips the first byte of every tracked data file in place: every file is then
    modified against Git's index (Turborepo must hash each one itself), at the cost
    of one byte per file. Flipping again restores the committed bytes."""
    for p in data_files(repo):
        with open(os.path.join(repo.encode(), p), "r+b") as f:
            first = f.read(1)
            if first:
                f.seek(0)
                f.write(bytes([first[0] ^ 0xFF]))


def restore_clean(repo):
    """Makes a reused corpus clean again (an earlier run rewrote files): tracked files
    back to their committed bytes, Git's stat cache refreshed. True if anything changed."""
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=repo, env=GIT_ENV, capture_output=True)
    if subprocess.run(["git", "diff", "--quiet"], cwd=repo, env=GIT_ENV).returncode == 0:
        return False
    sh(["git", "checkout", "-q", "--", "."], cwd=repo)
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=repo, env=GIT_ENV, capture_output=True)
    return True


def let_age():
    """The digest cache records only files that last changed over 2 s before an
    expansion started: a corpus timed right after it was written would show no cache."""
    time.sleep(2.5)


def sh(cmd, cwd=None, env=None):
    return subprocess.run(cmd, cwd=cwd, env=env or GIT_ENV, check=True, capture_output=True)


# Times one command from its fork to its exit and reports its peak RSS (that of
# it and of every descendant it waited for, as /usr/bin/time does), written to
# the file its first argument names. A C program, so that neither the start of
# another timing process (about 1 ms, a twentieth of a run of 10^4 files) nor a
# large parent's memory before the exec is counted.
C_TIMER = r"""
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
    if (argc < 3) return 125;
    struct timespec a, b; struct rusage ru; int status;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid == 0) { execvp(argv[2], argv + 2); _exit(127); }
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) return 126;
    clock_gettime(CLOCK_MONOTONIC, &b);
    FILE *out = fopen(argv[1], "w");
    if (!out) return 126;
    fprintf(out, "%.9f %ld\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, ru.ru_maxrss);
    fclose(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
"""
# The timer once built (build_timer), else None: /usr/bin/time is used instead.
TIMER = None


def build_timer(base):
    """Compiles C_TIMER; None (and /usr/bin/time instead) if it cannot."""
    src, exe = os.path.join(base, "timer.c"), os.path.join(base, "timer")
    with open(src, "w") as f:
        f.write(C_TIMER)
    try:
        sh(["cc", "-O2", "-o", exe, src])
        return exe
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None


def timed(argv, cwd, inner=False):
    """Wall seconds and peak RSS (KiB) of one run, by the C timer (else
    /usr/bin/time, whose own start is then in the time). With `inner`, the
    command prints its own in-process time as its last line (binding calls),
    and that is the time reported."""
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        timer = [TIMER, report.name] if TIMER else ["/usr/bin/time", "-f", "%M", "-o", report.name]
        out = subprocess.run([*timer, *argv], cwd=cwd, env=GIT_ENV, check=True,
                             capture_output=True, text=True)
        wall = time.perf_counter() - start
        fields = report.read().split()
        if TIMER:
            wall, peak = float(fields[0]), int(fields[1])
        else:
            peak = int(fields[-1])
    if inner:
        wall = float(out.stdout.strip().splitlines()[-1])
    return wall, peak, out.stdout


# A row is (name, argv, inner): `inner` when the command prints its own in-process
# time last.


class Results(list):
    """What `measure` returns: a result per row that ran, and `unavailable`, the
    (name, why) of each row that did not, which its table prints as such."""
    unavailable = ()


def error_line(stderr):
    """The line of a failed run's stderr that says what failed: its first `error`
    line (clap's usage error, ledger's `error[code]:`), else its last line."""
    lines = (stderr or "").strip().splitlines()
    errors = [l for l in lines if l.lower().startswith("error")]
    return (errors or lines or ["no message"])[0 if errors else -1].strip()


def working_rows(rows, cwd):
    """Runs every contender once (warming the page cache, the digest cache and Nx's
    archive) and keeps those that succeed: a contender that fails here is named and
    left out instead of ending the whole run. Returns the rows kept and the (name,
    why) of the others."""
    kept, skipped = [], []
    for row in rows:
        try:
            timed(row[1], cwd, row[2])
            kept.append(row)
        except subprocess.CalledProcessError as err:
            why = f"exit {err.returncode}: {error_line(err.stderr)}"
            print(f"  [SKIP] {row[0]}: {why}")
            skipped.append((row[0], why))
    return kept, skipped


def measure(rows, cwd, runs, before=None):
    """Times every contender `runs` times (the slow `sha256sum` pipeline: fewer),
    round-robin, so that a noisy moment of the machine spreads over all of them
    instead of skewing one; each is run once first to warm the page cache (and
    the digest cache). `before(cwd)` runs before every timed run (cold runs drop
    the page cache there); a dict of them, by row name, gives each row its own.
    Returns Results: the rows that failed their first run are its `unavailable`."""
    rows, skipped = working_rows(rows, cwd)
    counts = [max(2, runs // 2) if "sha256sum" in row[0] and before is None else runs for row in rows]
    samples = [[] for _ in rows]
    for round_ in range(max(counts, default=0)):
        for i, row in enumerate(rows):
            if round_ < counts[i]:
                hook = before.get(row[0]) if isinstance(before, dict) else before
                if hook:
                    hook(cwd)
                samples[i].append(timed(row[1], cwd, row[2]))
    results = Results()
    results.unavailable = skipped
    for row, runs_of in zip(rows, samples):
        walls = [s[0] for s in runs_of]
        results.append({"name": row[0], "median": statistics.median(walls), "min": min(walls),
                        "rss_mib": max(s[1] for s in runs_of) / 1024, "stdout": runs_of[-1][2],
                        "samples": walls})
    return results


def sha256_core_speed():
    """Bytes per second of one core, from `openssl speed -evp sha256` (16 KiB blocks)."""
    out = sh(["openssl", "speed", "-evp", "sha256", "-bytes", "16384", "-seconds", "3"]).stdout.decode()
    line = [l for l in out.splitlines() if l.lower().startswith("sha256")][-1]
    kbytes = float(re.findall(r"([\d.]+)k", line)[-1])
    return kbytes * 1000


def write_turbo_workspace(repo):
    """Makes the corpus a one-package npm workspace with one Turborepo task, `hash`,
    whose inputs are Turborepo's default (every file Git does not ignore; an explicit
    `**` would take .git/ too). No npm install is needed: `turbo` is the installed
    binary, the lock file is what `npm install` writes for a package without
    dependencies, and `--dry` runs no script."""
    npm = shutil.which("npm")
    version = sh([npm, "--version"]).stdout.decode().strip() if npm else "10.9.2"
    files = {
        "package.json": {"name": "corpus", "version": "0.0.0", "private": True,
                         "packageManager": f"npm@{version}", "scripts": {"hash": "true"}},
        "package-lock.json": {"name": "corpus", "version": "0.0.0", "lockfileVersion": 3, "requires": True,
                              "packages": {"": {"name": "corpus", "version": "0.0.0"}}},
        "turbo.json": {"$schema": "https://turborepo.com/schema.json", "tasks": {"hash": {"cache": False}}},
    }
    for name, content in files.items():
        with open(os.path.join(repo, name), "w") as f:
            json.dump(content, f, indent=2)
            f.write("\n")


def write_gitignore(repo):
    """Build outputs and logs ignored; so are Turborepo's cache and ledger's store (which
    ignores itself, a rule Turborepo does not apply to that .gitignore file)."""
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("build/\n*.log\n.turbo/\nnode_modules/\n.ledger/\n")


def commit_listed(repo, paths):
    """Commits the given files, read from the worktree, through `git fast-import`:
    one pack, stored without zlib (`core.compression=0`) and without deltas for large
    blobs, which is quick at 10^6 files and at 2 GiB where `git add` would write and
    deflate one loose object per file. `git reset` then reads the index from the
    commit and refreshes its stat data, so the tree is clean."""
    ref = sh(["git", "symbolic-ref", "HEAD"], cwd=repo).stdout.strip()
    proc = subprocess.Popen(["git", "-c", "core.compression=0", "-c", "pack.compression=0", "fast-import",
                             "--quiet", "--big-file-threshold=1m"], cwd=repo, env=GIT_ENV,
                            stdin=subprocess.PIPE)
    out = proc.stdin
    out.write(b"commit %s\ncommitter bench <b@b> 0 +0000\ndata 6\ncorpus\n" % ref)
    for path in paths:
        with open(os.path.join(repo, path), "rb") as f:
            size = os.fstat(f.fileno()).st_size
            out.write(b"M 100644 inline %s\ndata %d\n" % (path.encode(), size))
            shutil.copyfileobj(f, out, 1 << 20)
        out.write(b"\n")
    out.close()
    if proc.wait():
        raise subprocess.CalledProcessError(proc.returncode, "git fast-import")
    sh(["git", "reset", "-q"], cwd=repo)


def make_corpus_a(base, files):
    repo = os.path.join(base, "A")
    os.makedirs(repo)
    sh(["git", "init", "-q"], cwd=repo)
    make_store(repo)
    write_gitignore(repo)
    write_turbo_workspace(repo)
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


def install_ledger(base):
    """The CLI as `cargo install` leaves it, and as every contender is installed: a
    copy of the release build, in `base`/bin. The linker's own output file starts
    slower on this kernel, whichever linker option writes it (18 more page faults
    of its text, 0.2 to 0.7 ms a start; docs/performance.md, The fixed cost of a
    run); a copy of it does not. Returns the copy's path."""
    bin_dir = os.path.join(base, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    installed = os.path.join(bin_dir, "ledger")
    shutil.copy2(LEDGER, installed + ".new")
    os.replace(installed + ".new", installed)
    print(f"ledger: {LEDGER} copied to {installed}, as cargo install does")
    REPORT["ledger_installed"] = installed
    return installed


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
    started = time.perf_counter()
    os.makedirs(repo)
    sh(["git", "init", "-q"], cwd=repo)
    make_store(repo)
    paths = []
    for i in range(files):
        d = f"d{i // 1000:04d}"
        if i % 1000 == 0:
            os.makedirs(os.path.join(repo, d))
        paths.append(f"{d}/f{i}")
        with open(os.path.join(repo, paths[-1]), "wb") as f:
            f.write(os.urandom(1024))
    commit_listed(repo, paths)
    print(f"  made and committed {files} file{'s' if files != 1 else ''} in {time.perf_counter() - started:.1f} s")
    let_age()
    return repo


def make_corpus_b(base, count, mib):
    repo = os.path.join(base, "B")
    os.makedirs(repo)
    sh(["git", "init", "-q"], cwd=repo)
    make_store(repo)
    write_gitignore(repo)
    write_turbo_workspace(repo)
    block = os.urandom(1 << 20)
    for i in range(count):
        with open(os.path.join(repo, f"big{i}.bin"), "wb") as f:
            for j in range(mib):
                f.write(block[j % 251:] + block[:j % 251])
    commit_listed(repo, [".gitignore", "package.json", "package-lock.json", "turbo.json",
                         *[f"big{i}.bin" for i in range(count)]])
    return repo


LISTING = "git ls-files -coz --exclude-standard"
# dirhash walks by itself: the same ignores as the corpora's .gitignore, and Git's and
# ledger's own directories.
DIRHASH_IGNORES = "'.git/' '.ledger/' '.turbo/' 'node_modules/' 'build/' '*.log'"


def find_tool(name, *subdirs):
    """The tool installed by benches/contenders/install.sh, else the one on PATH.
    `subdirs` are globs under .tools."""
    for sub in subdirs:
        for path in sorted(glob.glob(os.path.join(TOOLS, sub, name))):
            if os.access(path, os.X_OK):
                return path
    return shutil.which(name)


def tool_version(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError, IndexError):
        return None


def discover_tools():
    """Which optional contenders are here ({name: (path, version)}, path None when
    missing), printed so that a missing row is never a silent one."""
    found = {}
    for name, subdirs, version_arg in (("b3sum", ["bin"], "--version"), ("hashdeep", [], "-V"),
                                       ("dirhash", ["venv/bin"], "--version"),
                                       # Turborepo's native binary: node_modules/.bin/turbo is a
                                       # Node script that starts it, 60 ms more per run here.
                                       ("turbo", ["node_modules/@turbo/*/bin"], "--version")):
        path = find_tool(name, *subdirs)
        version = tool_version([path, version_arg]) if path else None
        found[name] = (path if version else None, version)
    node = shutil.which("node")
    nx = tool_version([node, NX_HASH, "--check"]) if node else None
    found["nx"] = (NX_HASH if nx else None, f"nx {nx}" if nx else None)
    print("contenders:")
    for name, (path, version) in found.items():
        print(f"  {name:15} {version + ' (' + path + ')' if path else 'MISSING: run benches/contenders/install.sh'}")
    bindings = {"python binding": (os.path.exists(PYTHON), "make python-test"),
                "node binding": (any(n.endswith(".node") for n in os.listdir(NODE_PKG)), "make node-test")}
    for name, (built, how) in bindings.items():
        print(f"  {name:15} {'built' if built else 'MISSING: ' + how}")
    REPORT["tools"] = {name: version for name, (path, version) in found.items()}
    REPORT["tools"].update({name: built for name, (built, _) in bindings.items()})
    return {name: path for name, (path, _) in found.items()}


def nx_rows(repo, tools):
    """Nx's native hasher twice: with its archive deleted first (every file read, Nx's
    first run) and with the archive of its last walk (stat only, Nx's warm state). The
    archives live beside the corpus, outside the workspace. The time is the hasher's
    own, in process (Node's start and loading the native module, about 70 ms here,
    left out), as for ledger's binding rows."""
    if not tools["nx"]:
        return []
    return [("nx WorkspaceContext, fresh (in process)", ["node", NX_HASH, repo, repo + ".nx-fresh", "--fresh"], True),
            ("nx WorkspaceContext, warm (in process)", ["node", NX_HASH, repo, repo + ".nx-warm"], True)]


def turbo_row(tools, label="clean tree"):
    if not tools["turbo"]:
        return []
    return [(f"turbo run --dry=json, {label}", ["sh", "-c", f"{tools['turbo']} run hash --dry=json >/dev/null"], False)]


def optional_contenders(tools):
    """The tools of benches/contenders, when installed."""
    rows = []
    if tools["b3sum"]:
        b3 = tools["b3sum"]
        rows.append(("git ls-files | xargs b3sum", ["sh", "-c", f"{LISTING} | xargs -0 {b3} >/dev/null"], False))
        rows.append((f"git ls-files | xargs -P{CORES} b3sum",
                     ["sh", "-c", f"{LISTING} | xargs -0 -P{CORES} -n 500 {b3} >/dev/null"], False))
    if tools["hashdeep"]:
        rows.append(("git ls-files | xargs hashdeep -c sha256",
                     ["sh", "-c", f"{LISTING} | xargs -0 {tools['hashdeep']} -c sha256 -j {CORES} >/dev/null"], False))
    if tools["dirhash"]:
        rows.append((f"dirhash -a sha256 -j {CORES} (own walk)",
                     ["sh", "-c", f"{tools['dirhash']} . -a sha256 -j {CORES} -i {DIRHASH_IGNORES} >/dev/null"], False))
    return rows


def c_floor_rows(floor):
    if not floor:
        return []
    return [(f"floor: C open/fstat/read/SHA-256, {n} threads",
             ["sh", "-c", f"{LISTING} | {floor} {n}"], False) for n in (CORES, 16)]


def contenders(repo, tools, floor=None):
    listing = LISTING
    rows = [
        (NO_CACHE, [LEDGER, "--no-cache", "fingerprint"], False),
        (CACHED, [LEDGER, "fingerprint"], False),
        git_status_row("-uall"),
        ("git ls-files | xargs sha256sum", ["sh", "-c", f"{listing} | xargs -0 sha256sum >/dev/null"], False),
        ("git ls-files | xargs -P2 sha256sum", ["sh", "-c", f"{listing} | xargs -0 -P2 -n 500 sha256sum >/dev/null"], False),
        ("git ls-files | xargs openssl dgst", ["sh", "-c", f"{listing} | xargs -0 openssl dgst -sha256 >/dev/null"], False),
        ("python hashlib loop", [sys.executable, "-c", HASHLIB_LOOP], False),
        ("floor: git ls-files", ["sh", "-c", f"{listing} >/dev/null"], False),
        *c_floor_rows(floor),
        *turbo_row(tools),
        *nx_rows(repo, tools),
        *optional_contenders(tools),
    ]
    if os.path.exists(PYTHON):
        rows.append(("python binding (in process)", [PYTHON, "-c", PY_BINDING, repo], True))
    if any(n.endswith(".node") for n in os.listdir(NODE_PKG)):
        rows.append(("node binding (in process)", ["node", "-e", NODE_BINDING, NODE_PKG, repo], True))
    return rows


def git_status_row(*flags):
    """`git status --porcelain` run directly, its output read by the bench like
    ledger's: through `sh -c '... >/dev/null'` the shell's own start (about 1 ms
    here, a third of a one-file `git status`) was counted in git's time."""
    return (" ".join(["git status --porcelain", *flags]), ["git", "status", "--porcelain", *flags], False)


def file_sets(name, repo, tools):
    """How many files each kind of contender hashes on a corpus: the Git listing
    (ledger, the xargs pipelines), Nx's walk and Turborepo's task inputs."""
    counts = {"git listing": len([p for p in sh(["sh", "-c", LISTING], cwd=repo).stdout.split(b"\0") if p])}
    if tools["nx"]:
        out = sh(["node", NX_HASH, repo, repo + ".nx-count", "--fresh"], cwd=repo).stdout.decode().split()
        counts["nx"] = int(out[0])
    if tools["turbo"]:
        dry = json.loads(sh([tools["turbo"], "run", "hash", "--dry=json"], cwd=repo).stdout)
        counts["turbo"] = sum(len(t["inputs"]) for t in dry["tasks"])
    print(f"  [INFO] files hashed on {name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    REPORT.setdefault("file_sets", {})[name] = counts


def fixed_cost_run(base, runs):
    """T(1), the fixed cost of a run: a committed repository of one 1 KiB file (the
    growth corpora's shape, S1), ledger with the cache warm and with --no-cache
    against `git status --porcelain` in it; FIXED_RUNS times the runs, since each
    takes a few ms. Returns the medians ({"cache", "no_cache", "git_status"})."""
    repo = make_corpus_small(base, 1)
    rows = [(CACHED, [LEDGER, "fingerprint"], False), (NO_CACHE, [LEDGER, "--no-cache", "fingerprint"], False),
            git_status_row()]
    res = measure(rows, repo, FIXED_RUNS * runs)
    table(f"fixed cost T(1): a repository of one committed 1 KiB file ({FIXED_RUNS * runs} runs)", res,
          median_of(res, CACHED) or res[0]["median"])
    t1 = {"cache": median_of(res, CACHED), "no_cache": median_of(res, NO_CACHE),
          "git_status": median_of(res, "git status --porcelain")}
    for key, name in (("cache", CACHED), ("no_cache", NO_CACHE)):
        if t1[key] is not None and t1["git_status"]:
            print(f"  {name}: {t1[key] * 1e3:.2f} ms = {t1[key] / t1['git_status']:.2f} x git status --porcelain "
                  f"({t1['git_status'] * 1e3:.2f} ms)")
    REPORT["fixed_cost"] = t1
    return t1


def scale_run(base, files, runs, t1):
    """Time per file, marginal cost per file ((T(n) - T(1)) / n, T(1) from this
    run's fixed-cost table) and peak RSS of a full expansion against `git ls-files`
    alone."""
    repo = make_corpus_small(base, files)
    # A run of 10^4 files takes some 20 ms, where the machine's noise is a few ms:
    # smaller sizes get more runs (up to ten times as many), so that each median
    # stands on about as much measured time.
    runs = max(runs, min(10 * runs, runs * 100_000 // files))
    rows = [(NO_CACHE, [LEDGER, "--no-cache", "fingerprint"], False),
            (CACHED, [LEDGER, "fingerprint"], False),
            ("git ls-files", ["sh", "-c", f"{LISTING} >/dev/null"], False),
            git_status_row("-uall")]
    res = measure(rows, repo, runs)
    table(f"{files} files of 1 KiB", res, res[0]["median"])
    git = next(r for r in res if r["name"] == "git ls-files")
    point = {"git_ls_files_rss_mib": git["rss_mib"], "git_ls_files_us_per_file": git["median"] / files * 1e6}
    for key, name in (("no_cache", NO_CACHE), ("cache", CACHED)):
        r = next(r for r in res if r["name"] == name)
        marginal = (r["median"] - t1[key]) / files * 1e6 if t1.get(key) is not None else None
        print(f"  {name}: {r['median'] / files * 1e6:.2f} us per file"
              + (f", marginal {marginal:.2f} us per file" if marginal is not None else "")
              + f", RSS {r['rss_mib']:.1f} MiB = {r['rss_mib'] / git['rss_mib']:.2f} x git ls-files")
        point[key] = {"median": r["median"], "us_per_file": r["median"] / files * 1e6, "marginal_us": marginal,
                      "rss_mib": r["rss_mib"], "rss_vs_git": r["rss_mib"] / git["rss_mib"]}
    REPORT["scale"][files] = point


def marginal_sizes(scale_sizes):
    """The sizes the marginal-cost target covers (10^4 to 10^6) when two of them were
    run, else every size run; and whether those are the target's."""
    inside = sorted(n for n in scale_sizes if 10**4 <= n <= 10**6)
    return (inside, True) if len(inside) >= 2 else (sorted(scale_sizes), False)


def marginal_summary(scale_sizes, t1):
    """(T(n) - T(1)) / n per file at each size, cached and --no-cache, and its spread:
    the largest deviation from the smallest size's value (of the sizes 10^4 to 10^6
    when two of them ran). Returns {mode: spread} (empty without two sizes)."""
    if not scale_sizes:
        return {}
    print(f"\nmarginal cost per file, (T(n) - T(1)) / n; T(1): cache warm "
          + " / ".join(f"{t1[k] * 1e3:.2f} ms" if t1.get(k) is not None else "-" for k in ("cache", "no_cache"))
          + " --no-cache (the fixed-cost table)")
    print(f"  {'files':>9} {'--no-cache us':>14} {'vs first':>9} {'cache warm us':>14} {'vs first':>9}")
    sizes, _ = marginal_sizes(scale_sizes)
    first = {mode: REPORT["scale"][sizes[0]][mode]["marginal_us"] for mode in ("no_cache", "cache")}
    for n in sorted(scale_sizes):
        cells = []
        for mode in ("no_cache", "cache"):
            value = REPORT["scale"][n][mode]["marginal_us"]
            dev = f"{value / first[mode] - 1:+.0%}" if value is not None and first[mode] and n in sizes else "-"
            cells.append(f"{value:14.2f} {dev:>9}" if value is not None else f"{'-':>14} {dev:>9}")
        print(f"  {n:>9} {cells[0]} {cells[1]}")
    spreads = {}
    if len(sizes) >= 2:
        for mode in ("no_cache", "cache"):
            values = [REPORT["scale"][n][mode]["marginal_us"] for n in sizes]
            if None not in values and values[0] > 0:
                spreads[mode] = max(abs(v / values[0] - 1) for v in values)
        print(f"  spread from {sizes[0]} to {sizes[-1]} (largest deviation from {sizes[0]}): "
              + (", ".join(f"{mode} {spread:.0%}" for mode, spread in spreads.items()) or "-"))
    REPORT["marginal"] = {"t1": t1, "sizes": sizes, "spread": spreads,
                          "us_per_file": {n: {mode: REPORT["scale"][n][mode]["marginal_us"]
                                              for mode in ("no_cache", "cache")} for n in scale_sizes}}
    return spreads


def table(title, results, reference):
    print(f"\n{title}")
    print(f"{'contender':42} {'median s':>9} {'min s':>8} {'x ledger':>9} {'peak RSS MiB':>13}")
    for r in results:
        print(f"{r['name']:42} {r['median']:9.3f} {r['min']:8.3f} {r['median'] / reference:9.2f} {r['rss_mib']:13.1f}")
    for name, why in getattr(results, "unavailable", ()):
        print(f"{name:42} unavailable: {why}")
    missing = getattr(results, "unavailable", ())
    REPORT["tables"][title] = ([{key: r[key] for key in ("name", "median", "min", "rss_mib", "samples")}
                                for r in results] + [{"name": name, "unavailable": why} for name, why in missing])


def verdict(label, ok, detail):
    print(f"  [{'PASS' if ok else 'MISS'}] {label}: {detail}")
    return ok


def median_of(results, name, prefix=False):
    """The median of the named row, None when that contender did not run."""
    for r in results or []:
        if r["name"] == name or (prefix and r["name"].startswith(name)):
            return r["median"]
    return None


def target_row(scenario, ledger, reference, ratio, limit, at_most=True, note=None, into="targets"):
    """One line of a targets table: `ratio` against `limit` (at most, or at least),
    or n/a with the reason in `reference` when it could not be measured. With
    `note` (measured, but not at the size the target names), the note instead of a
    verdict. Kept in REPORT[into]."""
    if ratio is None:
        state = "n/a"
    elif note:
        state = f"({note})"
    else:
        state = "PASS" if (ratio <= limit if at_most else ratio >= limit) else "MISS"
    row = {"scenario": scenario, "ledger": ledger, "reference": reference, "ratio": ratio,
           "target": f"{'<=' if at_most else '>='} {limit:g}", "state": state}
    REPORT[into].append(row)
    return row


def compared(scenario, led, ref_name, ref, limit, missing, at_most=True, **kw):
    """A target row from two medians: ledger / reference (at most `limit`), or
    reference / ledger (at least `limit`: ledger's share of a floor); n/a with the
    reason `missing` when either was not measured."""
    ratio = None if led is None or ref is None else (led / ref if at_most else ref / led)
    return target_row(scenario, f"{led:.3f} s" if led is not None else "-",
                      f"{ref_name} {ref:.3f} s" if ratio is not None else missing, ratio, limit, at_most, **kw)


def print_targets(title, rows):
    print(f"\n{title}")
    print(f"  {'scenario':42} {'ledger':>26}  {'reference':60} {'ratio':>6}  {'target':7} state")
    for r in rows:
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "-"
        print(f"  {r['scenario']:42} {r['ledger']:>26}  {r['reference']:60} {ratio:>6}  {r['target']:7} {r['state']}")


def issue_19_targets(m, speed, scale_sizes):
    """The ratios the Targets section of issue 19 names, from this run's tables
    (`m`: the medians they need, empty with --only-scale)."""
    def why(reason):
        return reason if m else "corpora A and B not run (--only-scale)"

    a_cached = m.get("a_cached")
    unchanged = m.get("rewrite_unchanged")
    allowance, hashing = None, "cached + hashing the rewritten bytes"
    if unchanged is not None and m.get("rewrite_bytes") is not None:
        allowance = unchanged + m["rewrite_bytes"] / speed
        hashing = (f"cached, nothing rewritten, {unchanged:.3f} s + {m['rewrite_bytes'] / 1e6:.1f} MB at one "
                   f"core's SHA-256 ({m['rewrite_bytes'] / speed * 1e3:.1f} ms) =")
    rows = [
        compared("A unchanged, cache warm", a_cached, "git status --porcelain -uall", m.get("a_status"), 1.5, why("-")),
        compared("B unchanged, cache warm", m.get("b_cached"), "turbo --dry=json, clean tree", m.get("b_turbo"),
                 1.0, why("turbo not installed")),
        compared("A, 1 file in 100 rewritten", m.get("rewrite_cached"), hashing, allowance, 1.0, why("-")),
        compared("B cold (large files)", m.get("cold_b"), "openssl dgst, one file after another",
                 m.get("cold_b_ref"), 0.8, why("no --cold run")),
        compared("A cold (small files)", m.get("cold_a"), "xargs -P2 sha256sum", m.get("cold_a_ref"), 0.35,
                 why("no --cold run")),
        compared("A warm, --no-cache", m.get("a_no_cache"), f"C floor + listing ({CORES} threads)", m.get("a_floor"),
                 1.1, why("no C floor (needs cc and OpenSSL's headers)")),
        compared("B warm, --no-cache: share of the C floor", m.get("b_no_cache"), f"C floor ({CORES} threads)",
                 m.get("b_floor"), 0.85, why("no C floor (needs cc and OpenSSL's headers)"), at_most=False),
    ]
    scales = sorted(scale_sizes)
    if scales:
        top = REPORT["scale"][scales[-1]]
        worst = max(top["no_cache"]["rss_vs_git"], top["cache"]["rss_vs_git"])
        rows.append(target_row(f"{scales[-1]} files: peak RSS{'' if scales[-1] >= 10**6 else ' (not 10^6)'}",
                               f"{top['no_cache']['rss_mib']:.1f} / {top['cache']['rss_mib']:.1f} MiB",
                               f"git ls-files {top['git_ls_files_rss_mib']:.1f} MiB", worst, 1.5))
    else:
        rows.append(target_row("10^6 files: peak RSS", "-", "no --scale run", None, 1.5))
    if len(scales) >= 2:
        spread = 0.0
        for mode in ("no_cache", "cache"):
            first = REPORT["scale"][scales[0]][mode]["us_per_file"]
            spread = max(spread, *(abs(REPORT["scale"][n][mode]["us_per_file"] / first - 1) for n in scales))
        ends = [REPORT["scale"][n][mode]["us_per_file"] for mode in ("no_cache", "cache") for n in (scales[0], scales[-1])]
        rows.append(target_row(f"time per file, {scales[0]} to {scales[-1]}",
                               "{:.2f}->{:.2f} / {:.2f}->{:.2f} us".format(*ends),
                               "largest deviation from the smallest size, --no-cache / cache", spread, 0.2))
    else:
        rows.append(target_row("time per file, 10^4 to 10^6", "-", "fewer than two --scale sizes", None, 0.2))
    print_targets("targets of issue 19 (ratio = ledger / reference; B --no-cache: floor / ledger)", rows)


ISSUE_33 = {"into": "targets_issue_33"}
BINDINGS = {"python binding (in process)": "not built (LEDGER_PY_RELEASE=1 make python-test)",
            "node binding (in process)": "not built (make node-test)"}


def issue_33_targets(m, speed, scale_sizes, t1, spreads):
    """The ratios the Targets section of issue 33 names, from this run's tables (`m`:
    the medians of corpora A and B and `why`, the reasons of their rows that did not
    run, empty with --only-scale; `t1`: the fixed-cost medians; `spreads`: the
    marginal cost's, by mode). A target not measured says so, and why."""
    def why(reason):
        return "not measured: " + (reason if m else "corpora A and B not run (--only-scale)")

    reasons = m.get("why", {})
    a_note = f"A has {m['a_files']} files, not 10^5" if m and m.get("a_files") != 10**5 else None
    rows = [
        compared("A unchanged, cache warm", m.get("a_cached"), "git status --porcelain -uall", m.get("a_status"),
                 1.0, why(reasons.get(CACHED, "-")), note=a_note, **ISSUE_33),
        # 1.3 since issue 44: a position-independent binary entered at std's start.
        compared("T(1): one-file repository, cache warm", t1.get("cache"), "git status --porcelain, same repository",
                 t1.get("git_status"), 1.3, "not measured: a fixed-cost row failed", **ISSUE_33),
        *marginal_targets(scale_sizes, spreads),
        b_throughput_target(m, speed, why),
        compared("A cold (small files)", m.get("cold_a"), "xargs -P2 sha256sum", m.get("cold_a_ref"), 0.35,
                 why("no --cold run"), **ISSUE_33),
        compared("B cold (large files)", m.get("cold_b"), "openssl dgst, one file after another",
                 m.get("cold_b_ref"), 0.8, why("no --cold run"), **ISSUE_33),
        rss_target(scale_sizes),
        *[compared(f"A, {name}", m.get(name), "CLI, cache warm", m.get("a_cached"), 1.1,
                   why(reasons.get(name, default)), **ISSUE_33) for name, default in BINDINGS.items()],
    ]
    print_targets("targets of issue 33 (ratio = ledger / reference; B --no-cache: share of cores x SHA-256)", rows)


def marginal_targets(scale_sizes, spreads):
    """Marginal cost flat, cached and --no-cache: the spread of (T(n) - T(1)) / n."""
    sizes, _ = marginal_sizes(scale_sizes)
    note = None if sizes[:1] == [10**4] and sizes[-1:] == [10**6] else "not 10^4 to 10^6"
    rows = []
    for mode, label in (("cache", "cache warm"), ("no_cache", "--no-cache")):
        if len(sizes) < 2:
            rows.append(target_row(f"marginal cost, {label}", "-", "not measured: fewer than two --scale sizes",
                                   None, 0.2, **ISSUE_33))
            continue
        ends = [REPORT["scale"][n][mode]["marginal_us"] for n in (sizes[0], sizes[-1])]
        rows.append(target_row(f"marginal cost, {label}, {sizes[0]} to {sizes[-1]}",
                               "{:.2f}->{:.2f} us".format(*ends) if None not in ends else "-",
                               "largest deviation from the smallest size" if mode in spreads
                               else "not measured: no T(1), or a marginal cost <= 0", spreads.get(mode), 0.2,
                               note=note, **ISSUE_33))
    return rows


def b_throughput_target(m, speed, why):
    """B --no-cache at least 85% of the cores' SHA-256 speed (`openssl speed`)."""
    name = "B warm, --no-cache: share of cores x SHA-256"
    led, size = m.get("b_no_cache"), m.get("b_bytes")
    if not led or not size:
        return target_row(name, "-", why("-"), None, 0.85, at_most=False, **ISSUE_33)
    return target_row(name, f"{size / led / 1e9:.2f} GB/s", f"{CORES} x openssl speed {speed / 1e9:.2f} GB/s",
                      size / led / (CORES * speed), 0.85, at_most=False, **ISSUE_33)


def rss_target(scale_sizes):
    """10^6 files: peak RSS at most 1.5 x `git ls-files`'s (cached and --no-cache)."""
    if not scale_sizes:
        return target_row("10^6 files: peak RSS", "-", "not measured: no --scale run", None, 1.5, **ISSUE_33)
    n = max(scale_sizes)
    top = REPORT["scale"][n]
    return target_row(f"{n} files: peak RSS",
                      f"{top['no_cache']['rss_mib']:.1f} / {top['cache']['rss_mib']:.1f} MiB",
                      f"git ls-files {top['git_ls_files_rss_mib']:.1f} MiB",
                      max(top["no_cache"]["rss_vs_git"], top["cache"]["rss_vs_git"]), 1.5,
                      note=None if n == 10**6 else f"{n} files, not 10^6", **ISSUE_33)


def every_file_modified(name, repo, tools, runs):
    """Every tracked data file modified and not committed: Turborepo must hash each
    file itself, where ledger and Nx hash them once and then answer from their caches.
    The first bytes are flipped back afterwards and Git's stat cache refreshed."""
    flip_first_bytes(repo)
    try:
        let_age()
        rows = [(NO_CACHE, [LEDGER, "--no-cache", "fingerprint"], False),
                (CACHED, [LEDGER, "fingerprint"], False),
                *turbo_row(tools, "every file modified"),
                *[r for r in nx_rows(repo, tools) if "warm" in r[0]],
                git_status_row("-uall")]
        res = measure(rows, repo, runs)
        table(f"corpus {name}, every tracked file modified (not committed)", res, res[0]["median"])
        return res
    finally:
        flip_first_bytes(repo)
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=repo, env=GIT_ENV, capture_output=True)


UNCHANGED = "ledger fingerprint, cache warm, nothing rewritten"
REWRITTEN = "ledger fingerprint, cache warm, 1% rewritten"


def rewrite_runs(repo, rewrite, runs):
    """The cached run with one tracked file in a hundred rewritten since its previous
    run, alternating with the same run on a tree rewritten in nothing since: every
    run follows a pause of SETTLE s, so both meet the same write-back and the
    difference is the cost of the rewritten files (a few ms: three times the runs,
    for medians that can tell)."""
    rows = [(UNCHANGED, [LEDGER, "fingerprint"], False), (REWRITTEN, [LEDGER, "fingerprint"], False)]
    res = measure(rows, repo, 3 * runs, before={UNCHANGED: rewrite.unchanged, REWRITTEN: rewrite})
    table(f"corpus A, cache warm, one file in a hundred rewritten (sync and a pause of {SETTLE} s before each run)",
          res, res[0]["median"])
    return res


def cold_runs(name, repo, tools, floor, runs):
    method = drop_caches(repo)
    cold_rows = [r for r in contenders(repo, tools, floor) if r[0].startswith((
        "ledger fingerprint --no-cache", "git ls-files | xargs -P2", "git ls-files | xargs openssl", "floor: C",
        "git ls-files | xargs b3sum", "nx WorkspaceContext, fresh"))]
    # One process per file: the sequential pipeline of the large-file target, but
    # minutes per run on 10^5 small files, so only where files are few.
    if len(sh(["git", "ls-files", "-co", "--exclude-standard"], cwd=repo).stdout.splitlines()) <= 1000:
        cold_rows.append(("openssl dgst, one file after another", ["sh", "-c",
                          f"{LISTING} | xargs -0 -n1 openssl dgst -sha256 >/dev/null"], False))
    res = measure(cold_rows, repo, runs, before=drop_caches)
    table(f"corpus {name}, cold ({method} before each run)", res, res[0]["median"])
    return res


def earlier_targets(speed, res_a, res_b, sizes, bytes_a, bytes_b):
    """The targets of docs/performance.md (the issues before 19)."""
    led_a, led_b = res_a[0]["median"], res_b[0]["median"]
    listing = median_of(res_a, "floor: git ls-files")
    xargs = median_of(res_a, "git ls-files | xargs sha256sum")
    floor_a = listing + bytes_a / (CORES * speed)
    print("\ntargets of docs/performance.md")
    verdict("B throughput >= 85% of cores x SHA-256", bytes_b / led_b >= 0.85 * CORES * speed,
            f"{bytes_b / led_b / 1e9:.2f} GB/s vs {0.85 * CORES * speed / 1e9:.2f} GB/s "
            f"({bytes_b / led_b / (CORES * speed):.0%} of {CORES} x {speed / 1e9:.2f})")
    dgst_b = median_of(res_b, "git ls-files | xargs openssl dgst")
    print(f"  [INFO] B against OpenSSL reading the files itself (`openssl dgst`, one process, "
          f"{bytes_b / dgst_b / 1e9:.2f} GB/s): {bytes_b / led_b / (CORES * bytes_b / dgst_b):.0%} of {CORES} x that")
    verdict("A wall <= 1.5 x (listing + bytes / (cores x SHA-256))", led_a <= 1.5 * floor_a,
            f"{led_a:.3f} s vs {1.5 * floor_a:.3f} s (floor {floor_a:.3f} s = {listing:.3f} listing + "
            f"{bytes_a / (CORES * speed):.3f} hashing; ratio {led_a / floor_a:.2f})")
    cached_b = median_of(res_b, "ledger fingerprint, cache warm")
    print(f"  [INFO] B unchanged, cache warm: {cached_b:.3f} s ({led_b / cached_b:.0f}x faster than reading)")
    verdict("A at least 4x faster than xargs sha256sum", xargs >= 4 * led_a, f"{xargs / led_a:.1f}x")
    verdict("peak RSS <= 64 MiB on A and B", max(res_a[0]["rss_mib"], res_b[0]["rss_mib"]) <= 64,
            f"A {res_a[0]['rss_mib']:.1f} MiB, B {res_b[0]['rss_mib']:.1f} MiB")
    verdict("4 GiB file with the peak RSS of a 4 KiB one", sizes["huge"]["rss_mib"] <= sizes["small"]["rss_mib"] + 2,
            f"{sizes['huge']['rss_mib']:.1f} MiB vs {sizes['small']['rss_mib']:.1f} MiB")
    # The bindings run with the digest cache on, as the CLI's cache-warm row does
    # (against the --no-cache row, the first one, they always passed).
    cli = median_of(res_a, CACHED) or led_a
    for r in res_a:
        if "binding" in r["name"]:
            verdict(f"{r['name']} within 1.1 x CLI (cache warm) on A", r["median"] <= 1.1 * cli,
                    f"{r['median']:.3f} s vs {cli:.3f} s ({r['median'] / cli:.2f}x)")
    fps = {r["stdout"].strip().splitlines()[0] for r in res_a if "binding" in r["name"] or r["name"].startswith("ledger")}
    print(f"  [{'PASS' if len(fps) == 1 else 'MISS'}] CLI and bindings agree on A: {sorted(fps)}")


def large_file_runs(base, runs):
    """Issue 47: four 256 MiB files in a plain directory, warm, `--no-cache`,
    default settings, `runs` consecutive runs (not round-robin: the runs an
    agent makes one after another), each as a share of cores x one core's
    SHA-256; and the same with an explicit `--threads 1` (one thread hashes)."""
    d = os.path.join(base, "large")
    if not os.path.exists(d):
        os.makedirs(d)
        block = os.urandom(1 << 20)
        for i in range(4):
            with open(os.path.join(d, f"big{i}.bin"), "wb") as f:
                for j in range(256):
                    f.write(block[j % 251:] + block[:j % 251])
    total = 4 * (256 << 20)
    argv = [LEDGER, "fingerprint", "--no-cache", "--root", ".", "--workspace", d]
    timed(argv, d)  # warm the page cache
    walls = [timed(argv, d)[0] for _ in range(runs)]
    one = [timed([*argv, "--threads", "1"], d)[0] for _ in range(3)]
    return {"bytes": total, "walls": walls, "threads_1": one}


def write_change(repo, i):
    change = os.path.join(repo, "openspec", "changes", f"c{i:03d}")
    for rel, text in (("proposal.md", "## Why\nx\n"), ("design.md", "# Design\n"),
                      ("tasks.md", "## 1. Work\n- [x] 1.1 Done\n"),
                      (f"specs/cap{i}/spec.md", "## ADDED Requirements\n### Requirement: R\n"
                       "The system SHALL x.\n#### Scenario: s\n- **WHEN** a\n- **THEN** b\n")):
        os.makedirs(os.path.dirname(os.path.join(change, rel)), exist_ok=True)
        with open(os.path.join(change, rel), "w") as f:
            f.write(text)


def add_changes(repo, have, want):
    """Changes `have`..`want` of the check scaling corpus: each approved (four
    artifacts) with a declared gate over its directory that ran."""
    for i in range(have, want):
        write_change(repo, i)
    with open(os.path.join(repo, "ledger.toml"), "w") as f:
        for i in range(want):
            f.write(f'[gates.g{i}]\ncommand = ["true"]\nroots = ["openspec/changes/c{i:03d}"]\n\n')
    sh(["git", "add", "-A"], cwd=repo)
    sh(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm",
        f"{want} changes"], cwd=repo)
    for i in range(have, want):
        for artifact in ("proposal", "specs", "design", "tasks"):
            sh([LEDGER, "approve", "--change", f"c{i:03d}", "--artifact", artifact, "--source", "bench"], cwd=repo)
    sh([LEDGER, "gate", "run", "--all", "--quiet"], cwd=repo)


def check_scaling(base, files, counts, runs):
    """Issue 47: `ledger check` (the resume call) on a repository of `files`
    files of 1 KiB with N active changes (four artifacts approved, one declared
    gate each), against `git status --porcelain -uall` on the same tree, medians
    of `runs` taken round-robin. `ledger check` exits 1 there (work is left:
    no change is validated), so it runs under `sh -c` that takes 0 and 1 as
    success: the shell's start (about a millisecond) counts against ledger."""
    tree = os.path.join(base, f"check-{files}")
    if not os.path.exists(tree):
        os.makedirs(tree)
        sh(["git", "init", "-q"], cwd=tree)
        for i in range(files):
            d = os.path.join(tree, "src", f"d{i // 100:04d}")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"f{i}.txt"), "wb") as f:
                f.write(os.urandom(512).hex().encode())
        sh(["git", "add", "-A"], cwd=tree)
        sh(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "tree"],
           cwd=tree)
    rows = {}
    for n in sorted(counts):
        # One repository per count (a copy of the tree): `check` evaluates every change on disk.
        repo = f"{tree}-{n}-changes"
        if not os.path.exists(repo):
            sh(["cp", "-a", tree, repo])
            add_changes(repo, 0, n)
        let_age()
        res = measure([(f"ledger check, {n} changes", ["sh", "-c", f"{LEDGER} check >/dev/null; test $? -le 1"], False),
                       ("git status --porcelain -uall", ["git", "status", "--porcelain", "-uall"], False)],
                      repo, runs)
        table(f"ledger check: {files} files, {n} active changes", res, res[1]["median"])
        rows[n] = (res[0]["median"], res[1]["median"])
    return rows


def issue_47_targets(speed, large, scaling):
    """The targets of issue 47 as ratios, with the distribution and the cost
    per change."""
    rows = []
    floor = CORES * speed
    shares = [large["bytes"] / w / floor for w in large["walls"]]
    walls = sorted(large["walls"])
    print(f"\nlarge files, {len(walls)} consecutive runs (4 x 256 MiB, warm, --no-cache): "
          f"min {walls[0]:.3f} s, median {statistics.median(walls):.3f} s, max {walls[-1]:.3f} s; "
          f"share of {CORES} x {speed / 1e9:.2f} GB/s: min {min(shares):.0%}, median "
          f"{statistics.median(shares):.0%}, max {max(shares):.0%}")
    one = statistics.median(large["threads_1"])
    print(f"  --threads 1: median {one:.3f} s ({large['bytes'] / one / speed:.0%} of one core)")
    rows.append(target_row("large files, every run (worst of 10)", f"{walls[-1]:.3f} s",
                           f"{CORES} x SHA-256 {large['bytes'] / floor:.3f} s", min(shares), 0.85, at_most=False,
                           into="targets_issue_47"))
    if scaling:
        first = min(scaling)
        for n, (led, status) in sorted(scaling.items()):
            limit = {20: 1.5, 100: 2.0}.get(n)
            row = target_row(f"check, {n} changes", f"{led:.3f} s", f"git status -uall {status:.3f} s",
                             led / status, limit or 1.0, note=None if limit else "no target", into="targets_issue_47")
            rows.append(row)
        last = max(scaling)
        if last > first:
            per = (scaling[last][0] - scaling[first][0]) / (last - first)
            print(f"  check: {per * 1e6:.0f} us per additional change ({first} -> {last} changes)")
            REPORT["check_per_change_us"] = per * 1e6
    print_targets("targets of issue 47", rows)


def sizes_run(base):
    """Bounded memory: one 4 GiB file against one 4 KiB file."""
    sizes = {}
    for name, size in (("small", 4096), ("huge", 4 << 30)):
        d = os.path.join(base, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "f"), "wb") as f:
            f.truncate(size)  # sparse: the read path is the same
        sizes[name] = measure([(name, [LEDGER, "fingerprint", "--workspace", d, "--root", "."], False)], d, 1)[0]
    return sizes


def corpus(base, name, make):
    """The corpus `name` under `base`: made, or reused (--keep) and made clean again."""
    repo = os.path.join(base, name)
    if not os.path.exists(repo):
        make()
        let_age()
    elif restore_clean(repo):
        let_age()
    return repo


def main():
    global LEDGER
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--big-files", type=int, default=8)
    ap.add_argument("--big-mib", type=int, default=256)
    ap.add_argument("--keep", help="build the corpora here and keep them")
    ap.add_argument("--cold", action="store_true", help="also time with the page cache dropped")
    ap.add_argument("--scale", default="", help="comma-separated file counts for the growth runs")
    ap.add_argument("--only-scale", action="store_true", help="skip corpora A and B")
    ap.add_argument("--json", metavar="OUT", help="also write every result to this JSON file")
    ap.add_argument("--large-runs", type=int, default=10, help="consecutive runs of the large-file distribution")
    ap.add_argument("--check-files", type=int, default=50_000, help="files of the check scaling corpus")
    ap.add_argument("--check-changes", default="1,20,100", help="active changes the check scaling measures")
    ap.add_argument("--only-47", action="store_true", help="only the large-file distribution and check scaling")
    args = ap.parse_args()
    if not os.path.exists(LEDGER):
        sys.exit(f"{LEDGER} is missing: cargo build --release -p ledger-cli")
    base = args.keep or tempfile.mkdtemp(prefix="ledger-compare-")
    os.makedirs(base, exist_ok=True)
    LEDGER = install_ledger(base)
    try:
        print(f"machine: {CORES} cores, {os.uname().release}; corpora in {base}")
        tools = discover_tools()
        speed = sha256_core_speed()
        print(f"floor: openssl speed -evp sha256 = {speed / 1e9:.2f} GB/s per core")
        print(f"load: {os.getloadavg()[0]:.2f} (1-minute average at the start)")
        REPORT["machine"] = {"cores": CORES, "kernel": os.uname().release, "load": os.getloadavg()[0],
                             "sha256_bytes_per_s_one_core": speed, "args": vars(args)}
        floor = build_c_floor(base)
        global TIMER
        TIMER = build_timer(base)
        print(f"timer: {'the C timer (fork to exit)' if TIMER else '/usr/bin/time (its own start included)'}")
        if args.only_47:
            large = large_file_runs(base, args.large_runs)
            counts = [int(n) for n in args.check_changes.split(",") if n]
            issue_47_targets(speed, large, check_scaling(base, args.check_files, counts, args.runs))
            return
        t1 = fixed_cost_run(base, args.runs)
        scale_sizes = [int(n) for n in args.scale.split(",") if n]
        for files in scale_sizes:
            scale_run(base, files, args.runs, t1)
        spreads = marginal_summary(scale_sizes, t1)
        if args.only_scale:
            issue_19_targets({}, speed, scale_sizes)
            issue_33_targets({}, speed, scale_sizes, t1, spreads)
            return
        a = corpus(base, "A", lambda: make_corpus_a(base, args.files))
        b = corpus(base, "B", lambda: make_corpus_b(base, args.big_files, args.big_mib))
        bytes_a = sum(os.path.getsize(os.path.join(a, p.decode())) for p in
                      sh(["sh", "-c", LISTING], cwd=a).stdout.split(b"\0") if p)
        bytes_b = sum(os.path.getsize(os.path.join(b, p.decode())) for p in
                      sh(["sh", "-c", LISTING], cwd=b).stdout.split(b"\0") if p)
        file_sets("A", a, tools)
        file_sets("B", b, tools)

        res_a = measure(contenders(a, tools, floor), a, args.runs)
        res_b = measure([row for row in contenders(b, tools, floor) if row[0] != "floor: git ls-files"], b, args.runs)
        rewrite = OneInAHundred()
        res_rewrite = rewrite_runs(a, rewrite, args.runs)
        cold = {}
        if args.cold:
            cold["a"] = cold_runs("A", a, tools, floor, args.runs)
            cold["b"] = cold_runs("B", b, tools, floor, args.runs)
        every_file_modified("A", a, tools, args.runs)
        every_file_modified("B", b, tools, args.runs)
        table(f"corpus A: {args.files} files, {bytes_a / 1e6:.0f} MB", res_a, res_a[0]["median"])
        table(f"corpus B: {args.big_files} x {args.big_mib} MiB, {bytes_b / 1e9:.2f} GB", res_b, res_b[0]["median"])

        sizes = sizes_run(base)
        earlier_targets(speed, res_a, res_b, sizes, bytes_a, bytes_b)
        floor_name = f"floor: C open/fstat/read/SHA-256, {CORES} threads"
        m = {
            "a_cached": median_of(res_a, "ledger fingerprint, cache warm"),
            "a_status": median_of(res_a, "git status --porcelain -uall"),
            "b_cached": median_of(res_b, "ledger fingerprint, cache warm"),
            "b_turbo": median_of(res_b, "turbo run --dry=json, clean tree"),
            "rewrite_cached": median_of(res_rewrite, REWRITTEN),
            "rewrite_unchanged": median_of(res_rewrite, UNCHANGED),
            # Every round rewrites about as much; the median round is the allowance.
            "rewrite_bytes": statistics.median(rewrite.bytes),
            "cold_a": median_of(cold.get("a"), "ledger fingerprint --no-cache"),
            "cold_a_ref": median_of(cold.get("a"), "git ls-files | xargs -P2 sha256sum"),
            "cold_b": median_of(cold.get("b"), "ledger fingerprint --no-cache"),
            "cold_b_ref": median_of(cold.get("b"), "openssl dgst, one file after another"),
            "a_no_cache": median_of(res_a, "ledger fingerprint --no-cache"),
            "a_floor": median_of(res_a, floor_name),
            "b_no_cache": median_of(res_b, "ledger fingerprint --no-cache"),
            "b_floor": median_of(res_b, floor_name),
            "a_files": args.files,
            "b_bytes": bytes_b,
            **{name: median_of(res_a, name) for name in BINDINGS},
            "why": dict(res_a.unavailable),
        }
        issue_19_targets(m, speed, scale_sizes)
        issue_33_targets(m, speed, scale_sizes, t1, spreads)
        counts = [int(n) for n in args.check_changes.split(",") if n]
        issue_47_targets(speed, large_file_runs(base, args.large_runs),
                         check_scaling(base, args.check_files, counts, args.runs))
    finally:
        if args.json:
            with open(args.json, "w") as f:
                json.dump(REPORT, f, indent=2, default=str)
            print(f"\nresults written to {args.json}")
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
