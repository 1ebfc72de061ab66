// Shared by the test files: the built package, isolated Git sandboxes, the
// `ledger` CLI for parity checks (its `--json` documents re-cased the way the
// package cases results), and an independent v1 stream.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const repoRoot = path.resolve(packageDir, '../..')
export const vectorsDir = path.join(repoRoot, 'tests/vectors')

/** The built package, through its entry point (index.js). */
export const ledger = require('../index.js')
export const { Workspace, LedgerError } = ledger

/** The built `.node` file itself, as the loader finds it. */
export function nativeAddon() {
  const file = fs.readdirSync(packageDir).find((f) => f.endsWith('.node'))
  if (!file) throw new Error(`no .node file in ${packageDir}: build the package first`)
  return require(path.join(packageDir, file))
}

/**
 * The addon built with the `test-hooks` feature (ci.sh builds it next to the
 * release one and names it in LEDGER_TEST_HOOKS_ADDON): the only build that has
 * the panic hooks.
 */
export function testHooksAddon() {
  const file = process.env.LEDGER_TEST_HOOKS_ADDON
  if (!file) throw new Error('LEDGER_TEST_HOOKS_ADDON is not set: run the suite with ci.sh')
  return require(file)
}

// The core reads Git configuration in this very process (gix), and the CLI and
// git in child processes: isolate all of them from the machine's config.
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-node-home-'))
Object.assign(process.env, {
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, '.config'),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.invalid',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.invalid',
})
process.on('exit', () => fs.rmSync(home, { recursive: true, force: true }))

/** Runs a command; throws with its stderr unless it exits with one of `ok`. */
export function run(cmd, args, { cwd, ok = [0], input } = {}) {
  const out = spawnSync(cmd, args, { cwd, input, encoding: 'utf8', maxBuffer: 1 << 28 })
  if (out.error) throw out.error
  if (!ok.includes(out.status)) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${out.status}: ${out.stderr}`)
  }
  return out
}

/** A temp dir holding the workspace `w/`, removed when the test ends. */
export class Sandbox {
  constructor(t) {
    this.dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-node-')))
    this.w = path.join(this.dir, 'w')
    fs.mkdirSync(this.w)
    t?.after(() => fs.rmSync(this.dir, { recursive: true, force: true }))
  }

  path(rel) {
    return path.join(this.w, rel)
  }

  /** The workspace `w/` as the package opens it: `new Workspace(path)`. */
  get ws() {
    return new Workspace(this.w)
  }

  write(rel, content, mode) {
    const file = this.path(rel)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, content)
    if (mode !== undefined) fs.chmodSync(file, mode)
  }

  git(...args) {
    return run('git', ['-C', this.w, ...args]).stdout
  }

  /** Like `git`, in a subdirectory of the workspace. */
  gitIn(rel, ...args) {
    return run('git', ['-C', this.path(rel), ...args]).stdout
  }

  init() {
    this.git('init', '-q', '-b', 'main')
  }

  commitAll() {
    this.git('add', '-A')
    this.git('commit', '-q', '-m', 'c')
  }
}

/** The checkout every CLI test starts from: tracked, executable, symlink,
 * untracked, ignored and oddly named files. */
export function sampleCheckout(t) {
  const s = new Sandbox(t)
  s.init()
  s.write('README.md', '# hi\n')
  s.write('src/lib.rs', 'pub fn f() {}\n')
  s.write('src/deep/er/x.txt', 'x')
  s.write('.gitignore', 'target/\n*.log\n')
  s.write('run.sh', '#!/bin/sh\n', 0o755)
  fs.symlinkSync('README.md', s.path('link'))
  s.commitAll()
  s.write('untracked.txt', 'new')
  s.write('target/out.bin', 'ignored')
  s.write('debug.log', 'ignored')
  s.write('tab\there name', 'odd')
  return s
}

/** The `ledger` binary for parity checks: `LEDGER_BIN` (ci.sh sets it), else
 * the workspace's debug build; `undefined` when neither exists. */
export function ledgerBin() {
  const bin = process.env.LEDGER_BIN || path.join(repoRoot, 'target/debug/ledger')
  return fs.existsSync(bin) ? bin : undefined
}

/** Skip reason for parity tests when there is no CLI to compare with. */
export const noCli = ledgerBin() ? false : 'no ledger binary: set LEDGER_BIN (ci.sh builds one)'

/** Runs the CLI; `ok` lists the accepted exit codes. */
export function cli(args, { cwd, ok = [0] } = {}) {
  return run(ledgerBin(), args, { cwd, ok })
}

/** The last line of a CLI's stdout. */
export function lastLine(text) {
  return text.trimEnd().split('\n').at(-1)
}

export function sha256hex(bytes) {
  return createHash('sha256').update(bytes).digest('hex')
}

/** The v1 fingerprint computed here, independently of the core: the entries
 * are hashed in the order given (docs/format.md: the magic, NUL, then per entry
 * path, kind, mode and digest, each NUL-terminated). */
export function v1InOrder(entries) {
  const hash = createHash('sha256')
  hash.update('wealth-ledger-input-v1\0')
  for (const e of entries) {
    for (const field of [e.path, e.kind, e.mode, e.digest]) {
      hash.update(Buffer.from(field, 'utf8'))
      hash.update(Buffer.from([0]))
    }
  }
  return `sha256:${hash.digest('hex')}`
}

/** Entries sorted by the UTF-8 bytes of their paths. */
export function byUtf8(entries) {
  return [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
}

/** Asserts that `fn` throws (or rejects with) a ledger error with `code`,
 * whose message names `pathText` — and so does its `path` property, unless
 * the error concerns no path (`pathProperty: false`). Returns the error. */
export async function expectCode(assert, fn, code, pathText, { pathProperty = true } = {}) {
  let error
  try {
    await fn()
  } catch (e) {
    error = e
  }
  assert.ok(error, `expected error[${code}], got a result`)
  assert.ok(error instanceof LedgerError, `not a LedgerError: ${error && error.stack}`)
  assert.ok(error instanceof Error, `not an Error: ${error}`)
  assert.equal(error.code, code, `${error.code}: ${error.message}`)
  if (pathText !== undefined) {
    assert.ok(error.message.includes(pathText), `message must name ${pathText}: ${error.message}`)
  }
  if (pathText !== undefined && pathProperty) {
    assert.ok(
      typeof error.path === 'string' && error.path.includes(pathText),
      `err.path must name ${pathText}: ${error.path}`,
    )
  }
  return error
}

// The fields of the documents whose values are maps: their keys are data
// (paths, prerequisite and metadata names, artifact ids), never re-cased.
const MAP_FIELDS = new Set(['task_rules', 'upstream', 'prerequisites', 'tools', 'meta', 'gate_prerequisites'])

/** `snake_case` -> `camelCase`, as the package names struct fields (only `_` separates words). */
export function camelName(name) {
  return name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())
}

/**
 * A CLI `--json` document as the package returns it: every struct field name
 * camelCased at any depth, the keys of map-valued fields (MAP_FIELDS) kept as
 * they are, every string value kept. So `deepEqual(await ws.status(c),
 * camel(cliJson))` compares the same document field for field.
 */
export function camel(value, isMap = false) {
  if (Array.isArray(value)) return value.map((v) => camel(v))
  if (value === null || typeof value !== 'object') return value
  const out = {}
  for (const [key, v] of Object.entries(value)) {
    out[isMap ? key : camelName(key)] = camel(v, !isMap && MAP_FIELDS.has(key))
  }
  return out
}

/** The inventory part of an inventory record (what `ws.compare` takes). */
export function inventoryOf(record) {
  const { scope, walkedRoots, entries, fingerprint } = record
  return { scope, walkedRoots, entries, fingerprint }
}
