# Sourced (`. .ci/tools.sh`) by the scripts that build or check the release
# artifacts: crates/ledger-node/ci.sh (the addon), tests/install/wheel.sh (the
# wheel), tests/install/npm.sh and .ci/dist.sh (`make dist`). Sets TOOLS and
# RELEASE_TARGETS, and defines `zig_for` and `zig_release`.
#
# TOOLS is a venv inside cargo's target directory (made again when missing or
# broken) with the pinned tools of the release builds:
#   maturin, auditwheel     the wheel, and the check of its manylinux tag;
#   cargo-zigbuild, ziglang zig's cc as the linker against glibc 2.17
#                           (manylinux2014), so that the wheel and the addon
#                           load on any x86_64 Linux with glibc 2.17 or newer,
#                           not only on this machine's glibc (2.36).
# cargo-zigbuild is the version maturin 1.16.0 embeds (0.24.0), so that
# `maturin --zig` and napi's `cargo zigbuild` run the same code.

_tools_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$("${CARGO:-cargo}" metadata --format-version 1 --no-deps --locked \
  --manifest-path "$_tools_root/Cargo.toml" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/tools"
"$TOOLS/bin/python" -c '' 2>/dev/null || { rm -rf "$TOOLS"; python3 -m venv "$TOOLS"; }
"$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check \
  'maturin==1.16.0' 'auditwheel==6.8.2' 'cargo-zigbuild==0.24.0' 'ziglang==0.17.1'

# The release targets (docs/platforms.md): Rust's triple, and zig's target
# for it (the oldest glibc or macOS each build is linked for).
RELEASE_TARGETS="x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl x86_64-apple-darwin aarch64-apple-darwin"
zig_target() {
  case "$1" in
    x86_64-unknown-linux-gnu) echo x86_64-linux-gnu.2.17 ;;
    aarch64-unknown-linux-gnu) echo aarch64-linux-gnu.2.17 ;;
    x86_64-unknown-linux-musl) echo x86_64-linux-musl ;;
    aarch64-unknown-linux-musl) echo aarch64-linux-musl ;;
    x86_64-apple-darwin) echo x86_64-macos.10.12 ;;
    aarch64-apple-darwin) echo aarch64-macos.11.0 ;;
    *) echo "tools.sh: no zig target for $1" >&2; return 1 ;;
  esac
}

# The linker of the release builds of a target, one path for all three
# artifacts: cargo fingerprints the linker's path, and the wrappers that
# maturin and cargo-zigbuild write for themselves differ (each names its own
# executable), so with those the CLI, the wheel and the addon would each
# compile every shared dependency again (measured: 211 crates, four minutes).
# cargo-zigbuild and maturin keep a linker that is already set. The arguments
# are cargo-zigbuild's own for the target.
zig_wrappers() {
  local zig tool wrapper text
  zig="$(zig_target "$1")" || return 1
  mkdir -p "$TOOLS/zig"
  for tool in cc c++; do
    wrapper="$TOOLS/zig/$tool-$zig"
    # rustc links a static musl executable with `-static-pie`, which zig's
    # linker takes as plain `-static` unless `-pie` comes too: without it the
    # CLI would lose its address-space randomization on musl.
    text="#!/bin/sh
case \" \$* \" in *' -static-pie '*) set -- \"\$@\" -pie ;; esac
export CARGO_ZIGBUILD_PYTHON_PATH='$TOOLS/bin/python3'
exec '$TOOLS/bin/cargo-zigbuild' zig $tool -- -g -fno-sanitize=all -target $zig \"\$@\""
    [ "$(cat "$wrapper" 2>/dev/null)" = "$text" ] || { printf '%s\n' "$text" >"$wrapper"; chmod 755 "$wrapper"; }
  done
}

# zig_for TARGET CMD...: runs CMD (a `cargo build --target TARGET`, a
# `napi build -x` or a `maturin build --zig` of TARGET) with the tools on PATH
# (napi runs `cargo zigbuild`, which finds zig through the venv's python) and
# zig's cc as TARGET's linker and C compiler. Only the release builds get
# this environment: a linker set for the host's own triple would make every
# dev build of the test suites start over.
zig_for() {
  local target="$1" zig upper lower
  shift
  zig_wrappers "$target" || return 1
  zig="$(zig_target "$target")"
  # rustc, maturin (the wheel's tag) and zig agree on the oldest macOS.
  case "$zig" in
    *-macos.*) set -- env MACOSX_DEPLOYMENT_TARGET="${zig##*-macos.}" "$@" ;;
  esac
  upper="$(printf '%s' "$target" | tr 'a-z-' 'A-Z_')"
  lower="$(printf '%s' "$target" | tr '-' '_')"
  env PATH="$TOOLS/bin:$PATH" \
    CARGO_ZIGBUILD_PYTHON_PATH="$TOOLS/bin/python3" \
    CARGO_ZIGBUILD_CACHE_DIR="$TOOLS/cache" \
    "CARGO_TARGET_${upper}_LINKER=$TOOLS/zig/cc-$zig" \
    "CC_${lower}=$TOOLS/zig/cc-$zig" \
    "CXX_${lower}=$TOOLS/zig/c++-$zig" \
    "$@"
}

# zig_release CMD...: zig_for the x86_64 glibc target, what the test suites'
# release artifacts are built for.
zig_release() {
  zig_for x86_64-unknown-linux-gnu "$@"
}
