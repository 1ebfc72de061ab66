#!/usr/bin/env bash
# Packs the npm release the napi-rs way: the main package (ledger-fingerprint)
# and one platform package per target (npm/<platform>/, made by
# `napi create-npm-dirs`). Each addon found is copied into its platform
# package, every platform package becomes an optional dependency of the main
# one, `npm pack` makes the tarballs. All of it on a staged copy, so the
# repository's files stay as they are.
#
# Usage: pack.sh OUT_DIR [ADDON_DIR]
#   ADDON_DIR holds ledger.<platform>.node built as published, without the test
#   hooks (default: this directory, where `npm run build` puts it). A platform
#   package is packed for each addon found there (the test suite builds the
#   host's only; `make dist` builds all six and checks they are all packed);
#   the main package names every platform as an optional dependency.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
addons="$(cd "${2:-$here}" && pwd)"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# -L: the license files are links to the repository's.
cp -L "$here"/{package.json,index.js,api.js,binding.js,index.d.ts,opencode.mjs,opencode.d.mts,README.md,prepack.js,LICENSE-MIT,LICENSE-APACHE} "$stage/"
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

# What `napi pre-publish --skip-optional-publish` does, which also refuses a
# platform package without its addon: every platform package, at the main
# package's version, becomes an optional dependency of the main package.
node -e '
  const fs = require("node:fs"), path = require("node:path")
  const [stage] = process.argv.slice(1)
  const file = path.join(stage, "package.json")
  const main = JSON.parse(fs.readFileSync(file, "utf8"))
  main.optionalDependencies = {}
  for (const dir of fs.readdirSync(path.join(stage, "npm")).sort()) {
    const platform = JSON.parse(fs.readFileSync(path.join(stage, "npm", dir, "package.json"), "utf8"))
    main.optionalDependencies[platform.name] = main.version
  }
  fs.writeFileSync(file, JSON.stringify(main, null, 2) + "\n")' "$stage"

for platform_dir in "${built[@]}"; do
  (cd "$platform_dir" && npm pack --silent --pack-destination "$out")
done
(cd "$stage" && npm pack --silent --pack-destination "$out")
