// The package's entry point. First the loader napi generates (binding.js),
// which finds the addon next to it (a build in a checkout) or in the platform
// package (ledger-fingerprint-<platform>, an optional dependency), with an
// error that says which platform package is missing and how to get it; then
// the typed API generated from the core's description (api.js: `Workspace`,
// the free functions, `LedgerError`, `ErrorCode`), which calls the addon's one
// `call`/`callSync`. The reexport stays `module.exports = require(...)`, the
// form Node's CommonJS-to-ESM detection follows, so
// `import { Workspace } from 'ledger-fingerprint'` works.
'use strict'

try {
  require('./binding.js')
} catch (err) {
  throw missingBinding(err)
}
module.exports = require('./api.js')

/** The napi platform name of this process (`linux-x64-gnu`, …), as binding.js picks it. */
function platformName() {
  const { platform, arch } = process
  if (platform !== 'linux') return `${platform}-${arch}`
  let report = null
  try {
    report = process.report && process.report.getReport()
  } catch {
    // No report (some runtimes): glibc, the common case, is assumed.
  }
  const musl = report && report.header && !report.header.glibcVersionRuntime
  return `linux-${arch}-${musl ? 'musl' : 'gnu'}`
}

/** What the addon built for `platform` needs of the system (docs/platforms.md). */
function needs(platform) {
  return {
    'linux-x64-gnu': 'glibc 2.17 or newer',
    'linux-arm64-gnu': 'glibc 2.17 or newer',
    'linux-x64-musl': 'musl libc',
    'linux-arm64-musl': 'musl libc',
    'darwin-x64': 'macOS 10.12 or newer',
    'darwin-arm64': 'macOS 11 or newer',
  }[platform] || 'its platform'
}

/** The error thrown when binding.js found no addon that loads, with `cause` the loader's. */
function missingBinding(cause) {
  const pkg = require('./package.json')
  const platform = platformName()
  const name = `${pkg.name}-${platform}`
  const build =
    'build the addon in a checkout of the repository: ' +
    '`cd crates/ledger-node && npm ci && npm run build`'
  const prebuilt = Object.keys(pkg.optionalDependencies || {})
  let message
  if (isInstalled(name)) {
    message =
      `${name} is installed but its addon cannot be loaded on ${platform} (it needs ${needs(platform)}): ` +
      `${loadError(name)}; reinstall it with \`npm install ${name}@${pkg.version}\`, or ${build}`
  } else if (prebuilt.includes(name)) {
    message =
      `the native addon for ${platform} is missing: the platform package ${name}@${pkg.version} ` +
      'is not installed (an install with --omit=optional or --no-optional skips it). ' +
      `Install it with \`npm install ${name}@${pkg.version}\`, or ${build}`
  } else {
    const list = prebuilt.map((p) => p.slice(pkg.name.length + 1)).join(', ') || 'none'
    message =
      `no native addon for ${platform}: none is built in ${__dirname} and this package has ` +
      `no platform package for it (it has: ${list}). To ${build}`
  }
  const error = new Error(`${pkg.name}: ${message}`)
  error.code = 'ERR_LEDGER_NATIVE_BINDING'
  error.cause = cause
  return error
}

function isInstalled(name) {
  try {
    require.resolve(`${name}/package.json`)
    return true
  } catch {
    return false
  }
}

/** Why the installed platform package `name` does not load (its own error's message). */
function loadError(name) {
  try {
    require(name)
    return 'it loads now, after the loader failed'
  } catch (err) {
    return err && err.message ? err.message : String(err)
  }
}
