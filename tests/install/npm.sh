#!/usr/bin/env bash
# The npm front door as a user gets it: the release tarballs (the main package
# and its platform package, crates/ledger-node/pack.sh) installed with
# `npm install` into a fresh project outside the repository, then the smoke
# test (smoke/) under Node as CommonJS and as ESM, and under Bun (pinned in
# bun/package-lock.json); last, without the platform package, the loader's
# error must name it. Part of `make install-test`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/install"
NODE_CRATE="$ROOT/crates/ledger-node"
CARGO=${CARGO:-cargo}
step() { printf '== npm: %s (%ds)\n' "$*" "$SECONDS"; }

step "npm ci (napi CLI) in crates/ledger-node"
(cd "$NODE_CRATE" && "$ROOT/.ci/npm-ci.sh")

step "the addon as published (release, zig, glibc 2.17, no test hooks)"
# `make node-test` builds it (ci.sh) just before: reused unless a source is newer.
addon="$NODE_CRATE/ledger.linux-x64-gnu.node"
if [ ! -f "$addon" ] || [ -n "$(find "$ROOT/crates/ledger-core/src" "$NODE_CRATE/src" \
  "$ROOT/Cargo.lock" "$ROOT"/Cargo.toml "$ROOT"/crates/*/Cargo.toml -newer "$addon" -print -quit)" ]; then
  . "$ROOT/.ci/tools.sh"
  (cd "$NODE_CRATE" && zig_release npm run build --silent)
fi
# It must load where glibc is 2.17 (manylinux2014, like the wheel): an addon
# linked by the machine's own linker needs this machine's glibc.
"$HERE/glibc.sh" "$addon" 2.17
node -e '
  const addon = require(process.argv[1])
  if ("__panicForTest" in addon) { console.error("npm: the addon has the test hooks"); process.exit(1) }
' "$addon"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step "pack (crates/ledger-node/pack.sh) into $work/dist"
"$NODE_CRATE/pack.sh" "$work/dist"
version=$(node -p "require('$NODE_CRATE/package.json').version")
main="$work/dist/ledger-fingerprint-$version.tgz"
platform="$work/dist/ledger-fingerprint-linux-x64-gnu-$version.tgz"
for t in "$main" "$platform"; do printf 'npm: %s, %s bytes\n' "$(basename "$t")" "$(stat -c %s "$t")"; done

step "the tarballs' contents and manifests"
node - "$main" "$platform" "$NODE_CRATE" <<'JS'
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const assert = require('node:assert/strict')
const [main, platform, crate] = process.argv.slice(2)
const list = (t) => execFileSync('tar', ['tzf', t], { encoding: 'utf8' }).trim().split('\n').sort()
const manifest = (t) => JSON.parse(execFileSync('tar', ['xzf', t, '-O', 'package/package.json'], { encoding: 'utf8' }))
const file = (t, f) => execFileSync('tar', ['xzf', t, '-O', `package/${f}`], { maxBuffer: 1 << 28 })
assert.deepEqual(list(main), ['LICENSE-APACHE', 'LICENSE-MIT', 'README.md', 'api.js', 'binding.js', 'index.d.ts', 'index.js', 'opencode.d.mts', 'opencode.mjs', 'package.json'].map((f) => `package/${f}`))
assert.deepEqual(list(platform), ['LICENSE-APACHE', 'LICENSE-MIT', 'README.md', 'ledger.linux-x64-gnu.node', 'package.json'].map((f) => `package/${f}`))
const m = manifest(main)
const p = manifest(platform)
assert.equal(m.private, undefined, 'the main package is publishable')
// Every platform of docs/platforms.md, at this version; npm installs the one
// whose os, cpu and libc match (here: the tarball given beside the main one).
const platforms = ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64']
assert.deepEqual(m.optionalDependencies, Object.fromEntries(platforms.map((n) => [`${m.name}-${n}`, m.version])))
assert.equal(p.version, m.version)
assert.deepEqual([p.os, p.cpu, p.libc], [['linux'], ['x64'], ['glibc']])
assert.equal(m.license, 'MIT OR Apache-2.0')
assert.equal(p.license, m.license)
// OpenCode loads the package's plugin from exports["./server"]; a plugin file
// of one's own imports it as ledger-fingerprint/opencode.
assert.equal(m.exports['./server'].default, './opencode.mjs')
assert.equal(m.exports['./opencode'].default, './opencode.mjs')
assert.deepEqual(m.peerDependenciesMeta, { '@opencode-ai/plugin': { optional: true } })
for (const f of ['index.js', 'api.js', 'binding.js', 'index.d.ts', 'opencode.mjs', 'opencode.d.mts', 'README.md']) {
  assert.ok(file(main, f).equals(fs.readFileSync(`${crate}/${f}`)), `${f} is packed as committed`)
}
assert.ok(file(platform, 'ledger.linux-x64-gnu.node').equals(fs.readFileSync(`${crate}/ledger.linux-x64-gnu.node`)))
JS

step "npm install both tarballs into a fresh project"
app="$work/app"
mkdir "$app"
(cd "$app" && npm init -y >/dev/null &&
  npm install --no-audit --no-fund --loglevel=error "$main" "$platform")
test -f "$app/node_modules/ledger-fingerprint-linux-x64-gnu/ledger.linux-x64-gnu.node"
! ls "$app"/node_modules/ledger-fingerprint/*.node 2>/dev/null
cp "$HERE"/smoke/{checks.cjs,smoke.cjs,smoke.mjs} "$ROOT/tests/vectors/fingerprint-v1.json" "$app/"

step "smoke under Node: CommonJS and ESM"
(cd "$app" && node smoke.cjs && node smoke.mjs)

step "smoke under Bun (npm ci in tests/install/bun)"
(cd "$HERE/bun" && "$ROOT/.ci/npm-ci.sh")
bun="$HERE/bun/node_modules/.bin/bun"
(cd "$app" && "$bun" smoke.cjs && "$bun" smoke.mjs)

step "the OpenCode plugin under Bun, as OpenCode 1.18 calls it (tests/install/opencode/harness.mts)"
# The plugin's host package and Node's types, pinned, as a project that
# uses OpenCode has them; the harness is type-checked first (tsc of the
# crate's dev dependencies), then run by Bun. The real OpenSpec CLI archives
# the change (tests/openspec, as make openspec-test installs it).
(cd "$app" && npm install --no-audit --no-fund --loglevel=error --save-exact \
  '@opencode-ai/plugin@1.18.33' '@types/node@20.19.43')
if [ ! -x "$ROOT/tests/openspec/node_modules/.bin/openspec" ]; then
  (cd "$ROOT/tests/openspec" && "$ROOT/.ci/npm-ci.sh")
fi
cp "$HERE/opencode/harness.mts" "$HERE/opencode/tsconfig.json" "$app/"
(cd "$app" && "$NODE_CRATE/node_modules/.bin/tsc" -p tsconfig.json)
(cd "$app" && LEDGER_OPENSPEC_BIN="$ROOT/tests/openspec/node_modules/.bin/openspec" "$bun" harness.mts)

step "a platform package whose addon does not load, then none: the error says which"
expect_error() { # WANT...: requiring the package fails, under Node and Bun, saying each WANT
  for runtime in node "$bun"; do
    if out=$(cd "$app" && "$runtime" -e 'require("ledger-fingerprint")' 2>&1); then
      echo "npm: ledger-fingerprint loaded ($runtime)" >&2
      exit 1
    fi
    for want in ERR_LEDGER_NATIVE_BINDING "$@"; do
      grep -qF "$want" <<<"$out" || { printf 'npm: %s: the error lacks "%s":\n%s\n' "$runtime" "$want" "$out" >&2; exit 1; }
    done
  done
}
echo 'not an ELF file' >"$app/node_modules/ledger-fingerprint-linux-x64-gnu/ledger.linux-x64-gnu.node"
expect_error "ledger-fingerprint-linux-x64-gnu is installed but its addon cannot be loaded on linux-x64-gnu (it needs glibc 2.17 or newer)"
rm -rf "$app/node_modules/ledger-fingerprint-linux-x64-gnu"
expect_error "ledger-fingerprint-linux-x64-gnu@$version is not installed" \
  "npm install ledger-fingerprint-linux-x64-gnu@$version"
step "done"
