#!/usr/bin/env bash
# `make dist`: every release artifact, for every target of docs/platforms.md,
# into dist/ — built here by cross-compiling (rustup's standard library of each
# target, zig's cc as the linker: .ci/tools.sh):
#   ledger-VERSION-TARGET.tar.gz        the CLI, its man page and completions,
#                                       README and licenses (as ripgrep and uv
#                                       publish theirs);
#   ledger_fingerprint-*.whl            an abi3 wheel per target: manylinux2014
#                                       (glibc 2.17), musllinux_1_2, macOS;
#   ledger-fingerprint-*.tgz            the npm main package and one platform
#                                       package per target (napi-rs's layout);
#   SHA256SUMS                          the digests of all of them.
# The three builds of a target share one compiled dependency tree: they build
# into target/TARGET/release with the same linker path (zig_for), so the
# dependencies they have in common are compiled once per target.
#
# Usage: .ci/dist.sh [TARGET...]   (default: every release target)
# Not part of `make test`; make test checks the host's artifacts
# (tests/install) and the platform layer of the others (tests/platforms).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/dist"
NODE_CRATE="$ROOT/crates/ledger-node"
CARGO=${CARGO:-cargo}
step() { printf '== dist: %s (%ds)\n' "$*" "$SECONDS"; }

. "$ROOT/.ci/tools.sh"
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || read -r -a targets <<<"$RELEASE_TARGETS"
version=$("$CARGO" metadata --format-version 1 --no-deps --locked --manifest-path "$ROOT/Cargo.toml" |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "ledger-cli"))')

step "rustup: the standard library of ${targets[*]}"
rustup target add "${targets[@]}"

step "npm ci (napi CLI) in crates/ledger-node"
(cd "$NODE_CRATE" && "$ROOT/.ci/npm-ci.sh")

rm -rf "$OUT"
mkdir -p "$OUT"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

step "the man page and completions (the host's CLI; the same definitions on every target)"
"$CARGO" build --release --locked -p ledger-cli --manifest-path "$ROOT/Cargo.toml"
host="$ROOT/target/release/ledger"
mkdir -p "$stage/docs/completions"
"$host" man >"$stage/docs/ledger.1"
"$host" completions bash >"$stage/docs/completions/ledger.bash"
"$host" completions zsh >"$stage/docs/completions/_ledger"
"$host" completions fish >"$stage/docs/completions/ledger.fish"
"$host" completions elvish >"$stage/docs/completions/ledger.elv"
"$host" completions powershell >"$stage/docs/completions/_ledger.ps1"

# The wheel's platform tag for a target (maturin's --compatibility).
wheel_tag() {
  case "$1" in
    *-linux-gnu) echo manylinux2014 ;;
    *-linux-musl) echo musllinux_1_2 ;;
    *) echo "" ;;
  esac
}

# napi's target for a target: glibc targets carry the glibc version, which
# `cargo zigbuild` reads.
napi_target() {
  case "$1" in
    *-linux-gnu) echo "$1.2.17" ;;
    *) echo "$1" ;;
  esac
}

mkdir -p "$stage/addons"
for target in "${targets[@]}"; do
  start=$SECONDS
  step "$target: the CLI"
  zig_for "$target" "$CARGO" build --release --locked -p ledger-cli --target "$target" \
    --manifest-path "$ROOT/Cargo.toml"
  name="ledger-$version-$target"
  mkdir -p "$stage/$name"
  cp "$ROOT/target/$target/release/ledger" "$stage/$name/"
  cp -r "$stage/docs/." "$stage/$name/"
  cp -L "$ROOT"/{README.md,LICENSE-MIT,LICENSE-APACHE} "$stage/$name/"
  tar -C "$stage" -czf "$OUT/$name.tar.gz" "$name"

  step "$target: the wheel"
  tag=$(wheel_tag "$target")
  zig_for "$target" "$TOOLS/bin/maturin" build --release --locked --zig --target "$target" \
    ${tag:+--compatibility "$tag"} --manifest-path "$ROOT/crates/ledger-py/Cargo.toml" \
    --interpreter "$TOOLS/bin/python" --out "$OUT"

  step "$target: the addon"
  (cd "$NODE_CRATE" && zig_for "$target" ./node_modules/.bin/napi build --platform --release -x \
    --target "$(napi_target "$target")" --features napi --output-dir "$stage/addons" \
    --no-js --dts native.d.ts)
  printf 'dist: %s built in %ds\n' "$target" "$((SECONDS - start))"
done

step "the npm packages (crates/ledger-node/pack.sh)"
"$NODE_CRATE/pack.sh" "$OUT" "$stage/addons"

step "every artifact is there"
missing=0
for target in "${targets[@]}"; do
  platform=$(cd "$NODE_CRATE" && node -e '
    const [arch, , os, abi] = process.argv[1].split("-")
    const cpu = { x86_64: "x64", aarch64: "arm64" }[arch]
    process.stdout.write(os === "darwin" ? `darwin-${cpu}` : `linux-${cpu}-${abi}`)' "$target")
  for want in "ledger-$version-$target.tar.gz" "ledger-fingerprint-$platform-$version.tgz"; do
    [ -f "$OUT/$want" ] || { echo "dist: $want is missing" >&2; missing=1; }
  done
done
[ -f "$OUT/ledger-fingerprint-$version.tgz" ] || { echo "dist: the npm main package is missing" >&2; missing=1; }
wheels=("$OUT"/*.whl)
[ "${#wheels[@]}" -eq "${#targets[@]}" ] || { echo "dist: ${#wheels[@]} wheels for ${#targets[@]} targets" >&2; missing=1; }
[ "$missing" -eq 0 ]

step "the macOS artifacts' Mach-O headers: architecture and minimum macOS"
for target in "${targets[@]}"; do
  case "$target" in
    x86_64-apple-darwin) arch=x86_64 macos=10.12 platform=darwin-x64 ;;
    aarch64-apple-darwin) arch=arm64 macos=11.0 platform=darwin-arm64 ;;
    *) continue ;;
  esac
  check="$stage/macho-$target"
  mkdir -p "$check"
  tar -C "$check" -xzf "$OUT/ledger-$version-$target.tar.gz"
  python3 "$ROOT/tests/platforms/macho.py" "$check/ledger-$version-$target/ledger" "$arch" "$macos"
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("ledger/_ledger.abi3.so"))' \
    "$(ls "$OUT"/ledger_fingerprint-*macosx*"$arch".whl)" >"$check/_ledger.abi3.so"
  python3 "$ROOT/tests/platforms/macho.py" "$check/_ledger.abi3.so" "$arch" "$macos"
  tar -C "$check" -xzf "$OUT/ledger-fingerprint-$platform-$version.tgz"
  python3 "$ROOT/tests/platforms/macho.py" "$check/package/ledger.$platform.node" "$arch" "$macos"
done

(cd "$OUT" && sha256sum -- * >SHA256SUMS)
ls -l "$OUT"
step "done"
