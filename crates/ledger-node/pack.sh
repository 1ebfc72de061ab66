#!/usr/bin/env bash
# Packs the npm release the napi-rs way: the main package (ledger-fingerprint)
# and one platform package per target (npm/<platform>/, made by
# `napi create-npm-dirs`). Each addon found is copied into its platform
# package, `napi pre-publish` adds the platform packages to the main package's
# optionalDependencies, `npm pack` makes the tarballs. All of it on a staged
# copy, so the repository's files stay as they are.
#
# Usage: pack.sh OUT_DIR [ADDON_DIR]
#   ADDON_DIR holds ledger.<platform>.node built as published, without the test
#   hooks (default: this directory, where `npm run build` puts it). A platform
#   package is packed for each addon found there (the test suite builds the
#   host's only; `make dist` builds all six and checks they are all packed);
#   the main package names every platform as an optional dependency.
# Needs `npm ci` done here (the napi CLI) and git (napi pre-publish reads it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
addons="$(cd "${2:-$here}" && pwd)"
napi="$here/node_modules/.bin/napi"
test -x "$napi" || { echo "pack.sh: $napi is missing: run npm ci in $here" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# -L: the license files are links to the repository's.
cp -L "$here"/{package.json,index.js,api.js,binding.js,index.d.ts,README.md,prepack.js,LICENSE-MIT,LICENSE-APACHE} "$stage/"
cp -rL "$here/npm" "$stage/npm"
built=()
for platform_dir in "$stage"/npm/*/; do
  node_file="$(node -p "require('$platform_dir/package.json').main")"
  if [ -f "$addons/$node_file" ]; then
    # What `napi artifacts` does, for the addons there are: it refuses to
    # pack when any configured target's addon is missing.
    cp "$addons/$node_file" "$platform_dir"
    built+=("$platform_dir")
  else
    echo "pack.sh: no $node_file in $addons: its platform package is not packed"
  fi
done
[ "${#built[@]}" -gt 0 ] || { echo "pack.sh: no addon in $addons: build one (npm run build)" >&2; exit 1; }

# pre-publish reads the git log for its GitHub release, which --no-gh-release
# turns off; it still wants a repository.
git -C "$stage" init -q
"$napi" pre-publish --cwd "$stage" -t npm --skip-optional-publish --no-gh-release

for platform_dir in "${built[@]}"; do
  (cd "$platform_dir" && npm pack --silent --pack-destination "$out")
done
(cd "$stage" && npm pack --silent --pack-destination "$out")
