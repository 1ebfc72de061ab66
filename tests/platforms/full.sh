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
#   - the same fingerprints: the aarch64 and musl CLIs answer this checkout's
#     fingerprint as the host's does.
# Needs root for apt-get and binfmt_misc (as on the CI machine).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CARGO=${CARGO:-cargo}
step() { printf '== platforms-full: %s (%ds)\n' "$*" "$SECONDS"; }
. "$ROOT/.ci/tools.sh"

step "qemu-user, the aarch64 C library, binfmt_misc"
dpkg -s qemu-user libc6-arm64-cross >/dev/null 2>&1 ||
  apt-get install -y -q --no-install-recommends qemu-user libc6-arm64-cross >/dev/null
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
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="$(command -v qemu-aarch64)" \
  zig_for aarch64-unknown-linux-gnu "$CARGO" test --locked -p ledger-core -p ledger-cli \
  --features ledger-core/fuzzing --target aarch64-unknown-linux-gnu --manifest-path "$ROOT/Cargo.toml"

step "the same fingerprint of this checkout on every platform"
"$CARGO" build --locked -p ledger-cli --manifest-path "$ROOT/Cargo.toml"
want=$(cd "$ROOT" && "$ROOT/target/debug/ledger" fingerprint)
for target in x86_64-unknown-linux-musl aarch64-unknown-linux-gnu; do
  got=$(cd "$ROOT" && "$ROOT/target/$target/debug/ledger" fingerprint)
  [ "$got" = "$want" ] || { echo "platforms-full: $target answers $got, the host $want" >&2; exit 1; }
  echo "platforms-full: $target: $got"
done
step "done"
