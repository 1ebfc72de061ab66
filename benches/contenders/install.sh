#!/usr/bin/env bash
# Installs the contenders of benches/compare.py, pinned, into benches/contenders/.tools/
# (gitignored): Turborepo and Nx from npm (package-lock.json beside this script), b3sum
# from crates.io, dirhash from PyPI in a venv; hashdeep is a Debian package and goes
# through apt-get when it is not installed yet (the only system-wide install).
# Idempotent: what is already there at the pinned version is left alone. Prints what it
# installed and what was already present.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOOLS="$HERE/.tools"
B3SUM_VERSION=1.8.7
DIRHASH_VERSION=0.5.0
mkdir -p "$TOOLS"

report=()
note() { report+=("$1"); echo "install.sh: $1"; }

# npm: the lock file is the pin; `npm ci` installs exactly it. Scripts are not run: the
# native parts of both tools come as platform packages (optionalDependencies), and Nx's
# post-install would only talk to its daemon or cloud.
install_npm() {
    if ! command -v npm >/dev/null; then
        note "turbo, nx: MISSING (npm not found)"
        return
    fi
    if [[ -d "$TOOLS/node_modules" ]] && cmp -s "$HERE/package-lock.json" "$TOOLS/package-lock.json"; then
        note "turbo $("$TOOLS/node_modules/.bin/turbo" --version 2>/dev/null), nx $(node -p "require('$TOOLS/node_modules/nx/package.json').version"): already installed"
        return
    fi
    cp "$HERE/package.json" "$HERE/package-lock.json" "$TOOLS/"
    (cd "$TOOLS" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    note "turbo $("$TOOLS/node_modules/.bin/turbo" --version), nx $(node -p "require('$TOOLS/node_modules/nx/package.json').version"): installed from package-lock.json"
}

install_b3sum() {
    if [[ -x "$TOOLS/bin/b3sum" ]] && [[ "$("$TOOLS/bin/b3sum" --version)" == "b3sum $B3SUM_VERSION" ]]; then
        note "b3sum $B3SUM_VERSION: already installed"
        return
    fi
    if ! command -v cargo >/dev/null; then
        note "b3sum: MISSING (cargo not found)"
        return
    fi
    cargo install b3sum --locked --version "$B3SUM_VERSION" --root "$TOOLS" --force --quiet
    note "b3sum $B3SUM_VERSION: installed (cargo install --locked)"
}

install_dirhash() {
    local venv="$TOOLS/venv"
    if [[ -x "$venv/bin/dirhash" ]] &&
        [[ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("dirhash"))')" == "$DIRHASH_VERSION" ]]; then
        note "dirhash $DIRHASH_VERSION: already installed"
        return
    fi
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "dirhash==$DIRHASH_VERSION"
    note "dirhash $DIRHASH_VERSION: installed (venv $venv)"
}

install_hashdeep() {
    if command -v hashdeep >/dev/null; then
        note "hashdeep $(hashdeep -V): already installed"
        return
    fi
    if ! command -v apt-get >/dev/null || [[ "$(id -u)" != 0 ]]; then
        note "hashdeep: MISSING (needs apt-get as root: apt-get install hashdeep)"
        return
    fi
    # An empty or stale package list knows no candidate: update once, then install.
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hashdeep >/dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hashdeep >/dev/null
    fi
    note "hashdeep $(hashdeep -V): installed (apt-get)"
}

install_npm
install_b3sum
install_dirhash
install_hashdeep

echo
echo "contenders in $TOOLS:"
printf '  %s\n' "${report[@]}"
