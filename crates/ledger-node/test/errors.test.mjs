// Every error code reachable from JavaScript, each from a real bad input: a JS
// `Error` whose `code` is the core's code, with the path in the message and as
// `err.path`. Async calls reject (they never throw synchronously); their Sync
// twins throw the same error.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { expectCode, ledger, nativeAddon, packageDir, Sandbox, sampleCheckout, sha256hex, testHooksAddon } from './helpers.mjs'

const covered = new Set()

/** Checks `code` on the async call and on its Sync twin. */
async function both(asyncCall, syncCall, code, pathText, opts) {
  const pending = asyncCall()
  assert.ok(pending instanceof Promise, 'the async call returns a Promise')
  const rejected = await expectCode(assert, () => pending, code, pathText, opts)
  const thrown = await expectCode(assert, syncCall, code, pathText, opts)
  assert.equal(rejected.message, thrown.message)
  assert.equal(rejected.path, thrown.path)
  covered.add(code)
  return rejected
}

/** Checks `code` on a call that has no async twin. */
async function one(call, code, pathText, opts) {
  const error = await expectCode(assert, call, code, pathText, opts)
  covered.add(code)
  return error
}

/** Both flavours of fingerprint on a scope. */
const fp = (code, options, pathText) =>
  both(() => ledger.fingerprint(options), () => ledger.fingerprintSync(options), code, pathText)

test('expansion refuses: each blocking code of a real checkout', async (t) => {
  await t.test('conflict', async (t) => {
    const s = sampleCheckout(t)
    s.git('checkout', '-q', '-b', 'other')
    s.write('README.md', 'other\n')
    s.commitAll()
    s.git('checkout', '-q', 'main')
    s.write('README.md', 'main\n')
    s.commitAll()
    assert.throws(() => s.git('merge', '-q', 'other'), 'the merge must conflict')
    const e = await fp('conflict', { workspace: s.w }, 'README.md')
    assert.equal(e.path, 'README.md')
    // Out of scope, the conflict does not block.
    assert.match(await ledger.fingerprint({ workspace: s.w, roots: ['src'] }), /^sha256:/)
  })

  await t.test('special-file: a FIFO, and a directory where a file is tracked', async (t) => {
    const s = sampleCheckout(t)
    execFileSync('mkfifo', [s.path('notes.fifo')])
    await fp('special-file', { workspace: s.w, paths: ['notes.fifo'] }, 'notes.fifo')
    fs.rmSync(s.path('README.md'))
    s.write('README.md/inner', 'x')
    const e = await fp('special-file', { workspace: s.w }, 'README.md')
    assert.equal(e.path, 'README.md')
  })

  await t.test('nested-repository', async (t) => {
    const s = sampleCheckout(t)
    s.write('nested/n.txt', 'n')
    s.gitIn('nested', 'init', '-q')
    await fp('nested-repository', { workspace: s.w }, 'nested')
    // Declared, or excluded, it no longer blocks.
    const declared = await ledger.inventory({ workspace: s.w, repos: ['.', 'nested'] })
    assert.ok(declared.entries.some((e) => e.path === 'nested/n.txt'))
    assert.match(await ledger.fingerprint({ workspace: s.w, exclude: ['nested'] }), /^sha256:/)
  })

  await t.test('non-utf8-path', async (t) => {
    const s = sampleCheckout(t)
    fs.writeFileSync(Buffer.concat([Buffer.from(s.w + '/caf'), Buffer.from([0xe9]), Buffer.from('.txt')]), 'x')
    const e = await fp('non-utf8-path', { workspace: s.w }, 'caf\\351.txt')
    assert.equal(e.path, 'caf\\351.txt')
  })

  await t.test('symlinked-parent', async (t) => {
    const s = sampleCheckout(t)
    fs.renameSync(s.path('src'), s.path('real-src'))
    fs.symlinkSync('real-src', s.path('src'))
    const e = await fp('symlinked-parent', { workspace: s.w, roots: ['src'] }, 'src/deep/er/x.txt')
    assert.match(e.message, /lies below the symlink 'src'/)
  })

  await t.test('invalid-path and outside-workspace', async (t) => {
    const s = sampleCheckout(t)
    await fp('invalid-path', { workspace: s.w, paths: ['a//b'] }, 'a//b')
    await fp('invalid-path', { workspace: s.w, tasks: ['./tasks.md'] }, './tasks.md')
    await fp('outside-workspace', { workspace: s.w, paths: ['../outside'] }, '../outside')
    await fp('outside-workspace', { workspace: s.w, roots: ['/etc'] }, '/etc')
    await fp('outside-workspace', { workspace: s.w, exclude: ['/'] }, '/')
  })

  await t.test('git: a declared repository that is none', async (t) => {
    const s = new Sandbox(t)
    s.write('plain/f.txt', 'f')
    await fp('git', { workspace: s.w, repos: ['plain'] }, 'plain')
  })

  await t.test('invalid-gitfile: a .git file that names no repository', async (t) => {
    const s = new Sandbox(t)
    s.write('a.txt', 'a')
    s.write('.git', 'gitdir: /nonexistent/ledger.git\n')
    await fp('invalid-gitfile', { workspace: s.w }, '.git')
  })

  await t.test('git-environment: GIT_WORK_TREE names another directory', async (t) => {
    const s = new Sandbox(t)
    s.init()
    const elsewhere = path.join(s.dir, 'elsewhere')
    fs.mkdirSync(elsewhere)
    const saved = process.env.GIT_WORK_TREE
    process.env.GIT_WORK_TREE = elsewhere
    t.after(() => {
      if (saved === undefined) delete process.env.GIT_WORK_TREE
      else process.env.GIT_WORK_TREE = saved
    })
    const e = await fp('git-environment', { workspace: s.w })
    assert.match(e.message, /GIT_WORK_TREE/)
  })

  await t.test('unreadable: a workspace that does not exist', async (t) => {
    const s = new Sandbox(t)
    const missing = path.join(s.dir, 'nowhere')
    await fp('unreadable', { workspace: missing }, 'nowhere')
  })

  await t.test('untrusted-repository: owned by another user', async (t) => {
    if (process.getuid() !== 0) return t.skip('needs root to give the repository away')
    const s = sampleCheckout(t)
    execFileSync('chown', ['-R', '65534:65534', s.w])
    await fp('untrusted-repository', { workspace: s.w }, s.w)
  })
})

test('records refuse: malformed-record, unsupported-version, unreadable', async (t) => {
  const s = sampleCheckout(t)
  const good = (await ledger.inventory({ workspace: s.w })).toRecord()
  const bad = (edit) => {
    const v = JSON.parse(good)
    edit(v)
    return JSON.stringify(v)
  }
  const cases = [
    ['malformed-record', good.slice(0, good.length / 2)],
    ['malformed-record', bad((v) => (v.entries[0].digest = 'ef'.repeat(32)))],
    ['malformed-record', bad((v) => v.entries.reverse())],
    ['unsupported-version', bad((v) => (v.version = '2.0'))],
    ['unsupported-version', bad((v) => (v.format = 'something'))],
  ]
  for (const [code, text] of cases) {
    await one(() => ledger.Inventory.fromRecord(text, { source: 'bad.json' }), code, 'bad.json')
    const file = path.join(s.dir, 'bad.json')
    fs.writeFileSync(file, text)
    await both(() => ledger.readRecord(file), () => ledger.readRecordSync(file), code, 'bad.json')
  }
  const absent = path.join(s.dir, 'absent.json')
  await both(() => ledger.readRecord(absent), () => ledger.readRecordSync(absent), 'unreadable', 'absent.json')
})

test('fingerprintEntries refuses: bad-entry, duplicate-entry, invalid paths', async () => {
  const d = sha256hex('x')
  const e = (p, kind = 'file', mode = '100644', digest = d) => ({ path: p, kind, mode, digest })
  await one(() => ledger.fingerprintEntries([e('a', 'file', '120000')]), 'bad-entry', 'a')
  await one(() => ledger.fingerprintEntries([e('a', 'dir', '040000')]), 'bad-entry', 'a')
  await one(() => ledger.fingerprintEntries([e('a', 'file', '100644', 'XYZ')]), 'bad-entry', 'a')
  await one(() => ledger.fingerprintEntries([e('a', 'missing', '-', d)]), 'bad-entry', 'a')
  await one(() => ledger.fingerprintEntries([e('b'), e('a'), e('b')]), 'duplicate-entry', 'b')
  await one(() => ledger.fingerprintEntries([e('../a')]), 'outside-workspace', '../a')
  await one(() => ledger.fingerprintEntries([e('a/')]), 'invalid-path', 'a/')
})

const CHANGE = 'openspec/changes/add-auth'

function openspecCheckout(t) {
  const s = new Sandbox(t)
  s.init()
  s.write(`${CHANGE}/proposal.md`, '# Why\n')
  s.write(`${CHANGE}/design.md`, '# Design\n![flow](flow.svg)\n[dir](specs)\n')
  s.write(`${CHANGE}/flow.svg`, '<svg/>\n')
  s.write(`${CHANGE}/specs/auth/spec.md`, '## Requirement\n')
  s.write(`${CHANGE}/tasks.md`, '- [ ] 1.1 [core] Login\n')
  s.commitAll()
  return s
}

test('approvals refuse: materials, artifacts, graphs, sources, the store', async (t) => {
  const s = openspecCheckout(t)
  const change = { workspace: s.w, change: 'add-auth' }
  // A design document past the bound ledger reads documents with.
  const design = fs.readFileSync(s.path(`${CHANGE}/design.md`))
  fs.truncateSync(s.path(`${CHANGE}/design.md`), 17 * 1024 * 1024)
  await both(
    () => ledger.changeInventory(change, 'design'),
    () => ledger.changeInventorySync(change, 'design'),
    'too-large',
    'design.md',
  )
  fs.writeFileSync(s.path(`${CHANGE}/design.md`), design)
  // design.md links a directory: ambiguous.
  await both(
    () => ledger.changeInventory(change, 'design'),
    () => ledger.changeInventorySync(change, 'design'),
    'ambiguous-material',
    'design.md',
  )
  s.write(`${CHANGE}/design.md`, '# Design\n![flow](flow.svg)\n')
  fs.rmSync(s.path(`${CHANGE}/flow.svg`))
  const missing = await both(
    () => ledger.approve(change, 'design', 'msg 1'),
    () => ledger.approveSync(change, 'design', 'msg 1'),
    'missing-material',
    'design.md',
  )
  assert.match(missing.message, /flow\.svg/)
  await both(
    () => ledger.approve(change, 'review', 'msg 1'),
    () => ledger.approveSync(change, 'review', 'msg 1'),
    'unknown-artifact',
    'review',
    { pathProperty: false },
  )
  await both(
    () => ledger.approve(change, 'proposal', '  '),
    () => ledger.approveSync(change, 'proposal', '  '),
    'missing-source',
    'proposal',
    { pathProperty: false },
  )
  await one(() => ledger.approveSync({ ...change, change: 'a/b' }, 'proposal', 'm'), 'invalid-path', 'a/b')
  // A mistyped change, an upstream that cannot be fingerprinted, a set that is absent.
  await both(
    () => ledger.approve({ ...change, change: 'add-atuh' }, 'proposal', 'm'),
    () => ledger.approveSync({ ...change, change: 'add-atuh' }, 'proposal', 'm'),
    'unknown-change',
    'add-atuh',
  )
  await both(
    () => ledger.approve(change, 'tasks', 'm'),
    () => ledger.approveSync(change, 'tasks', 'm'),
    'upstream-blocked',
    'design',
    { pathProperty: false },
  )
  fs.rmSync(s.path(`${CHANGE}/proposal.md`))
  await both(
    () => ledger.approve(change, 'proposal', 'm'),
    () => ledger.approveSync(change, 'proposal', 'm', false),
    'absent-artifact',
    'proposal.md',
    { pathProperty: false },
  )
  s.write(`${CHANGE}/proposal.md`, '# Why\n')

  // Graphs: a cycle, an unknown requirement, a schema that is no graph.
  const cycle = 'artifacts:\n  - {id: a, generates: a.md, requires: [b]}\n  - {id: b, generates: b.md, requires: [a]}\n'
  await one(() => ledger.artifactGraph({ yaml: cycle }), 'graph-cycle', 'a, b', { pathProperty: false })
  const schema = path.join(s.dir, 'schema.yaml')
  fs.writeFileSync(schema, cycle)
  await both(
    () => ledger.status({ ...change, schema }),
    () => ledger.statusSync({ ...change, schema }),
    'graph-cycle',
    'a',
    { pathProperty: false },
  )
  const unknown = 'artifacts:\n  - {id: a, generates: a.md, requires: [zz]}\n'
  await one(() => ledger.artifactGraph({ yaml: unknown }), 'unknown-artifact', 'zz', { pathProperty: false })
  await one(() => ledger.artifactGraph({ yaml: 'artifacts: 3\n', source: 'mine.yaml' }), 'bad-schema', 'mine.yaml')
  await one(() => ledger.artifactGraph({ schema: path.join(s.dir, 'none.yaml') }), 'unreadable', 'none.yaml')
  await one(() => ledger.artifactGraph({ schema, yaml: cycle }), 'invalid-argument', 'either', { pathProperty: false })
  // Schemas by name: one that is nowhere; a change whose .openspec.yaml lacks `schema:`.
  await both(
    () => ledger.status({ ...change, schema: 'rapdi' }),
    () => ledger.statusSync({ ...change, schema: 'rapdi' }),
    'unknown-schema',
    'openspec/schemas/rapdi/schema.yaml',
  )
  s.write(`${CHANGE}/.openspec.yaml`, 'created: 2026-12-01\n')
  await both(() => ledger.status(change), () => ledger.statusSync(change), 'bad-openspec-config', '.openspec.yaml')
  fs.rmSync(s.path(`${CHANGE}/.openspec.yaml`))

  // The store: a bad ref name, a corrupt ref, an unwritable ref, an untrusted store.
  const store = ledger.Store.open(s.w)
  await both(() => store.head('../x'), () => store.headSync('../x'), 'bad-ref-name', '../x', { pathProperty: false })
  fs.mkdirSync(s.path('.ledger/refs/changes'), { recursive: true })
  fs.writeFileSync(s.path('.ledger/refs/changes/add-auth'), 'not a record id\n')
  await both(() => store.refs(), () => store.refsSync(), 'corrupt-record', 'add-auth')
  await both(
    () => ledger.currentState(change),
    () => ledger.currentStateSync(change),
    'corrupt-record',
    'add-auth',
  )
  // A ref named `changes` where the directory of the change refs belongs.
  fs.rmSync(s.path('.ledger/refs/changes'), { recursive: true })
  fs.writeFileSync(s.path('.ledger/refs/changes'), 'not a record id\n')
  await both(
    () => ledger.approve(change, 'proposal', 'msg 1'),
    () => ledger.approveSync(change, 'proposal', 'msg 1'),
    'unwritable',
    '.ledger/refs/changes',
  )
  fs.rmSync(s.path('.ledger'), { recursive: true })
  fs.writeFileSync(s.path('.ledger'), 'a file where the store directory belongs')
  await both(
    () => ledger.approve(change, 'proposal', 'msg 1'),
    () => ledger.approveSync(change, 'proposal', 'msg 1'),
    'untrusted-store',
    '.ledger',
  )
})

test('gates refuse: prerequisites, commands, names', async (t) => {
  const s = sampleCheckout(t)
  const spec = (extra) => ({ name: 'test', argv: ['true'], scope: { workspace: s.w }, ...extra })
  const failing = spec({ prerequisites: { tool: { command: 'exit 4' } } })
  await both(() => ledger.checkGate(failing), () => ledger.checkGateSync(failing), 'prerequisite-failed', 'tool', {
    pathProperty: false,
  })
  const absent = spec({ argv: ['/nonexistent/tool'] })
  await both(() => ledger.runGate(absent), () => ledger.runGateSync(absent), 'gate-not-started', '/nonexistent/tool', {
    pathProperty: false,
  })
  const twoWays = spec({ prerequisites: { tool: { literal: '1', command: 'echo 1' } } })
  await both(() => ledger.checkGate(twoWays), () => ledger.checkGateSync(twoWays), 'invalid-argument', 'tool', {
    pathProperty: false,
  })
  const badName = spec({ name: '../x' })
  await both(() => ledger.runGate(badName), () => ledger.runGateSync(badName), 'bad-ref-name', '../x', {
    pathProperty: false,
  })
  // Values that are not text are refused, never replaced by U+FFFD.
  const bytes = spec({ prerequisites: { tool: { command: "printf 'v\\377'" } } })
  await both(() => ledger.checkGate(bytes), () => ledger.checkGateSync(bytes), 'non-utf8-value', 'v\\377', {
    pathProperty: false,
  })
  const surrogate = spec({ prerequisites: { tool: { literal: 'v\uD800' } } })
  await both(() => ledger.runGate(surrogate), () => ledger.runGateSync(surrogate), 'non-utf8-value', 'v\\u{D800}', {
    pathProperty: false,
  })
  const outside = spec({ scope: { workspace: s.w, roots: ['../up'] } })
  await both(() => ledger.checkGate(outside), () => ledger.checkGateSync(outside), 'outside-workspace', '../up')
})

test('the lifecycle refuses: preconditions of a PASS, no PASS, record ids, a moved pointer', async (t) => {
  const s = new Sandbox(t)
  s.write('openspec/changes/c/proposal.md', '# Why\n')
  const change = { workspace: s.w, change: 'c' }
  const nothing = { verdict: 'PASS', source: 'review 1' }
  await both(
    () => ledger.recordValidation(change, nothing),
    () => ledger.recordValidationSync(change, nothing),
    'no-delivery',
    '--no-delivery',
    { pathProperty: false },
  )
  const pass = { verdict: 'PASS', source: 'review 1', noDelivery: 'a planning-only change' }
  await both(
    () => ledger.recordValidation(change, pass),
    () => ledger.recordValidationSync(change, pass),
    'validation-refused',
    'artifact proposal is unbound',
    { pathProperty: false },
  )
  const moved = { reviewed: `sha256:${'0'.repeat(64)}` }
  await both(
    () => ledger.approve(change, 'proposal', 'review 1', false, moved),
    () => ledger.approveSync(change, 'proposal', 'review 1', false, moved),
    'fingerprint-moved',
    'openspec/changes/c/proposal.md',
    { pathProperty: false },
  )
  await both(() => ledger.finalizeCheck(change), () => ledger.finalizeCheckSync(change), 'not-validated', 'is not validated', {
    pathProperty: false,
  })
  await both(
    () => ledger.advanceState(change, {}, 'xyz'),
    () => ledger.advanceStateSync(change, {}, 'xyz'),
    'bad-record-id',
    'xyz',
    { pathProperty: false },
  )
  const first = ledger.advanceStateSync(change, { role: 'planning' })
  ledger.advanceStateSync(change, { role: 'implementation' })
  // Each refused write leaves its own orphan, so the two messages differ.
  await one(() => ledger.advanceState(change, { role: 'validation' }, first.record), 'pointer-conflict', first.record, {
    pathProperty: false,
  })
  await one(() => ledger.advanceStateSync(change, { role: 'validation' }, first.record), 'pointer-conflict', first.record, {
    pathProperty: false,
  })
})

test('a panic becomes an Error with code panic, never a crash', async () => {
  const addon = testHooksAddon()
  const pending = addon.__panicForTest('boom on the pool')
  assert.ok(pending instanceof Promise)
  const rejected = await one(() => pending, 'panic', 'boom on the pool', { pathProperty: false })
  assert.match(rejected.message, /this is a bug in ledger/)
  await one(() => addon.__panicForTestSync('boom on the main thread'), 'panic', 'boom on the main thread', {
    pathProperty: false,
  })
  // The process is fine, and so is the next call.
  assert.equal(ledger.fingerprintEntries([]), 'sha256:8a18fdb2a6e200deb5edc4025b5b0e99becb62f3e387dc915ec196d04f65fe99')
  // The hooks are no part of the typed API, nor of the addon that is published.
  const dts = fs.readFileSync(path.join(packageDir, 'index.d.ts'), 'utf8')
  assert.ok(!dts.includes('__panicForTest'))
  assert.ok(!('__panicForTest' in nativeAddon()))
  assert.ok(!('__panicForTestSync' in nativeAddon()))
})

// Codes no call of this package can produce from a real input, and why.
const unreachable = {
  'changed-while-reading': 'needs a writer racing the read; the core tests it with a deterministic hook',
  'chain-mismatch': 'only Store::advance with a hand-made record reaches it; not exposed',
  'bad-fingerprint': 'no call parses a bare fingerprint; a record with one is malformed-record',
}

test('the ErrorCode type lists exactly the codes the core has', () => {
  const dts = fs.readFileSync(path.join(packageDir, 'index.d.ts'), 'utf8')
  const union = dts.match(/export type ErrorCode =([^;]*?)\n\n/s)
  assert.ok(union, 'index.d.ts declares ErrorCode')
  const typed = [...union[1].matchAll(/'([a-z0-9-]+)'/g)].map((m) => m[1])
  assert.deepEqual([...typed].sort(), [...ledger.errorCodes()].sort())
  assert.equal(new Set(typed).size, typed.length)
  assert.match(dts, /code: ErrorCode/)
})

test('every code of the core is covered here or explained', () => {
  const codes = ledger.errorCodes()
  assert.ok(codes.includes('conflict') && codes.includes('panic'))
  for (const code of codes) {
    assert.ok(covered.has(code) || code in unreachable, `code ${code} is neither tested nor explained`)
    assert.ok(!(covered.has(code) && code in unreachable), `code ${code} is both tested and called unreachable`)
  }
})
