# Sourced (`. .ci/tools.sh`) by the scripts that build or check the release
# artifacts: crates/ledger-node/ci.sh (the addon), tests/install/wheel.sh (the
# wheel) and tests/install/npm.sh. Sets TOOLS and defines `zig_release`.
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

# The linker of the release builds, one path for both: cargo fingerprints the
# linker's path, and the wrappers that maturin and cargo-zigbuild write for
# themselves differ (each names its own executable), so with those the wheel
# and the addon would each compile every shared dependency again (measured:
# 211 crates, four minutes). cargo-zigbuild and maturin keep a linker that is
# already set. The arguments are cargo-zigbuild's own for this target.
mkdir -p "$TOOLS/zig"
for _tool in cc c++; do
  _wrapper="$TOOLS/zig/$_tool-x86_64-linux-gnu.2.17"
  _text="#!/bin/sh
export CARGO_ZIGBUILD_PYTHON_PATH='$TOOLS/bin/python3'
exec '$TOOLS/bin/cargo-zigbuild' zig $_tool -- -g -fno-sanitize=all -target x86_64-linux-gnu.2.17 \"\$@\""
  [ "$(cat "$_wrapper" 2>/dev/null)" = "$_text" ] || { printf '%s\n' "$_text" >"$_wrapper"; chmod 755 "$_wrapper"; }
done
unset _tools_root _tool _wrapper _text

# zig_release CMD...: runs CMD (a `napi build -x` or `maturin build --zig` of
# the x86_64-unknown-linux-gnu target) with the tools on PATH (napi runs
# `cargo zigbuild`, which finds zig through the venv's python) and zig's cc as
# the target's linker and C compiler. Only the release builds get this
# environment: a linker set for the host's own triple would make every dev
# build of the test suites start over.
zig_release() {
  PATH="$TOOLS/bin:$PATH" \
    CARGO_ZIGBUILD_PYTHON_PATH="$TOOLS/bin/python3" \
    CARGO_ZIGBUILD_CACHE_DIR="$TOOLS/cache" \
    CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER="$TOOLS/zig/cc-x86_64-linux-gnu.2.17" \
    CC_x86_64_unknown_linux_gnu="$TOOLS/zig/cc-x86_64-linux-gnu.2.17" \
    CXX_x86_64_unknown_linux_gnu="$TOOLS/zig/c++-x86_64-linux-gnu.2.17" \
    "$@"
}
