#!/usr/bin/env bash
# The Python front door as a user gets it: the release wheel (maturin --zig,
# no test hooks, linked against glibc 2.17 for the manylinux2014 tag
# pyproject.toml asks for) checked by auditwheel and by its glibc symbol
# versions, installed with pip into a fresh venv outside the repository on every CPython
# 3.9+ this machine has (pyenv's and python3), and the smoke test
# (smoke/smoke.py) run from another directory in each. A Python 3 older than
# 3.9 must refuse the wheel. Part of `make install-test`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/install"
CRATE="$ROOT/crates/ledger-py"
CARGO=${CARGO:-cargo}
step() { printf '== wheel: %s (%ds)\n' "$*" "$SECONDS"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step "build tools (pinned, .ci/tools.sh)"
. "$ROOT/.ci/tools.sh"
tools=$TOOLS

step "maturin build --release --zig (the release wheel: pyproject.toml's features and tag)"
# --zig: zig's cc links against glibc 2.17, so the wheel is manylinux2014
# (pyproject.toml's `compatibility`); maturin's own check refuses the tag if
# the binary needs more. --target and zig_release's linker: those of napi's
# release build of the addon (node-test), so that the dependencies they have
# in common are compiled once, for both.
start=$SECONDS
zig_release "$tools/bin/maturin" build --release --locked --zig --target x86_64-unknown-linux-gnu \
  --manifest-path "$CRATE/Cargo.toml" \
  --interpreter "$tools/bin/python" --out "$work/dist"
printf 'wheel: built in %ds\n' "$((SECONDS - start))"
wheels=("$work"/dist/*.whl)
[ "${#wheels[@]}" -eq 1 ] || { echo "wheel: expected one wheel, got ${wheels[*]}" >&2; exit 1; }
wheel=${wheels[0]}
version=$("$CARGO" metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "ledger-py"))')
want="ledger_fingerprint-$version-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
[ "$(basename "$wheel")" = "$want" ] || { echo "wheel: built $(basename "$wheel"), not $want" >&2; exit 1; }
printf 'wheel: %s, %s bytes\n' "$(basename "$wheel")" "$(stat -c %s "$wheel")"

step "auditwheel show: the tag is what the binary needs"
"$tools/bin/auditwheel" show "$wheel" | tee "$work/audit.txt"
tr -s ' \n' ' ' <"$work/audit.txt" | grep -q 'consistent with the following platform tag: "manylinux_2_17_x86_64"' ||
  { echo "wheel: auditwheel does not find manylinux_2_17_x86_64 consistent" >&2; exit 1; }

step "the native module's glibc symbol versions: none newer than 2.17"
"$tools/bin/python" -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("ledger/_ledger.abi3.so"))' \
  "$wheel" >"$work/_ledger.abi3.so"
"$HERE/glibc.sh" "$work/_ledger.abi3.so" 2.17

step "the wheel's metadata"
"$tools/bin/python" - "$wheel" <<'PY'
import email, sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
names = wheel.namelist()
meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
meta = email.message_from_bytes(wheel.read(meta_name))
def need(cond, what):
    if not cond:
        sys.exit(f"wheel: {what}")
need(meta["Name"] == "ledger-fingerprint", f"Name is {meta['Name']}")
need(meta["License-Expression"] == "MIT OR Apache-2.0", f"License-Expression is {meta['License-Expression']}")
need(sorted(meta.get_all("License-File") or []) == ["LICENSE-APACHE", "LICENSE-MIT"], "License-File")
for lic in ("LICENSE-APACHE", "LICENSE-MIT"):
    need(any(n.endswith(f".dist-info/licenses/{lic}") for n in names), f"{lic} not in the wheel")
need(meta["Requires-Python"] == ">=3.9", f"Requires-Python is {meta['Requires-Python']}")
urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
need(urls.get("Repository", "").startswith("https://"), f"Project-URL Repository: {urls}")
body = meta.get_payload()
need("import ledger" in body, "the description does not show `import ledger`")
for inside in ("./crates/ledger-py", "make python-test", "ci.sh"):
    need(inside not in body, f"the description says {inside!r}, which only works in the repository")
need({"ledger/__init__.py", "ledger/_api.py", "ledger/_ledger.pyi", "ledger/py.typed", "ledger/_ledger.abi3.so"} <= set(names), "files")
print("wheel: metadata ok:", meta["Name"], meta["Version"], meta["License-Expression"])
PY

step "fresh venvs outside the repository, the smoke test from another directory"
pythons=()
for py in "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/*/bin/python3 "$(command -v python3)"; do
  [ -x "$py" ] && pythons+=("$py")
done
declare -A seen=()
tested=()
mkdir "$work/elsewhere"
cp "$HERE/smoke/smoke.py" "$ROOT/tests/vectors/fingerprint-v1.json" "$work/elsewhere/"
for py in "${pythons[@]}"; do
  v=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
  [ -z "${seen[$v]:-}" ] || continue
  seen[$v]=1
  venv="$work/venv-$v"
  "$py" -m venv "$venv"
  if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel"
    (cd "$work/elsewhere" && "$venv/bin/python" smoke.py fingerprint-v1.json)
    tested+=("$v")
  elif "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel" 2>/dev/null; then
    echo "wheel: Python $v installed a wheel for 3.9+" >&2
    exit 1
  else
    echo "wheel: Python $v refuses the wheel, as it must (3.9+)"
  fi
done
printf 'wheel: smoke test passed on Python %s\n' "${tested[*]}"
newest=$(printf '%s\n' "${!seen[@]}" | sort -V | tail -1)
for must in 3.9 "$newest"; do
  printf '%s\n' "${tested[@]}" | grep -q "^${must//./\\.}" ||
    { echo "wheel: no smoke test on Python $must" >&2; exit 1; }
done
step "done"
