// The `prepack` script of the main package (`npm pack`, `npm publish`): refuses a
// tarball that could not find its addon, one whose optionalDependencies do not
// name every platform package (npm/<platform>/package.json) at this version, or
// that lacks the generated loader or the generated API. `napi pre-publish` adds the
// optionalDependencies in a staged copy (pack.sh); the repository's package.json
// has none, or `npm ci` there would look up platform packages that are not
// published.
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const pkg = require('./package.json')
const problems = []
if (!fs.existsSync(path.join(__dirname, 'binding.js'))) problems.push('binding.js (napi build) is missing')
if (!fs.existsSync(path.join(__dirname, 'api.js'))) problems.push('api.js (the generated API, door_gen) is missing')
const platforms = fs.existsSync(path.join(__dirname, 'npm')) ? fs.readdirSync(path.join(__dirname, 'npm')) : []
if (platforms.length === 0) problems.push('no platform packages in npm/ (napi create-npm-dirs)')
for (const platform of platforms) {
  const name = require(path.join(__dirname, 'npm', platform, 'package.json')).name
  const wanted = (pkg.optionalDependencies || {})[name]
  if (wanted !== pkg.version) {
    problems.push(`optionalDependencies has ${name}@${wanted ?? '(none)'}, not @${pkg.version}`)
  }
}
if (problems.length > 0) {
  console.error(`${pkg.name}: not packing: ${problems.join('; ')}. Pack with crates/ledger-node/pack.sh.`)
  process.exit(1)
}
