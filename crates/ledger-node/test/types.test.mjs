// What test/types.ts lets TypeScript code do works at run time, and what it
// refuses fails at run time too: `new Workspace(path)`, the three echoes,
// `exitCode`, each workspace's threads and digest cache.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

// Named imports, as a TypeScript or ESM user writes them: each must be a
// named export of index.js that Node's CommonJS interop finds.
import { ErrorCode, LedgerError, Workspace, normalizeTasks, workspaceSettings } from '../index.js'
import { expectCode, ledger, Sandbox } from './helpers.mjs'

test('the named ESM exports are the package’s own', () => {
  assert.equal(Workspace, ledger.Workspace)
  assert.equal(LedgerError, ledger.LedgerError)
  assert.equal(ErrorCode, ledger.ErrorCode)
  assert.equal(normalizeTasks, ledger.normalizeTasks)
  assert.equal(workspaceSettings, ledger.workspaceSettings)
})

test('new Workspace(path) refuses what the types refuse, through the Promise', async (t) => {
  const s = new Sandbox(t)
  s.write('a.txt', 'a\n')
  const ws = new Workspace(s.w)
  assert.ok(ws instanceof Workspace)
  assert.deepEqual(await ws.refs(), [])
  assert.equal(ws.headSync('gates/test'), null)
  // What types.ts refuses: a workspace that is no string, the change given as an option.
  await expectCode(assert, () => new Workspace(42).fingerprint(), 'invalid-argument', undefined)
  await expectCode(assert, () => ws.status({ change: 'add-auth' }), 'invalid-argument', 'change', { pathProperty: false })
  await expectCode(assert, () => ws.approve('add-auth', 'proposal', {}), 'invalid-argument', 'source', { pathProperty: false })
})

test('echo is one of three strings', async (t) => {
  const s = new Sandbox(t)
  s.write('in.txt', 'x')
  const ws = s.ws
  const spec = { argv: ['sh', '-c', 'echo out; echo err >&2'] }
  const first = await ws.runGate('echo', { ...spec, echo: 'off' })
  assert.equal(first.reused, false)
  for (const echo of ['off', 'passthrough', 'stderr', undefined]) {
    assert.equal((await ws.runGate('echo', { ...spec, echo })).reused, true, String(echo))
    assert.equal(ws.runGateSync('echo', { ...spec, echo }).reused, true, String(echo))
  }
  assert.throws(() => ws.runGateSync('echo', { ...spec, echo: 'loud' }), (e) => e instanceof LedgerError && e.code === 'invalid-argument')
  await expectCode(assert, () => ws.runGate('echo', { ...spec, echo: 'loud' }), 'invalid-argument', 'echo', { pathProperty: false })
})

test('exitCode is what `ledger gate run` exits with', async (t) => {
  const s = new Sandbox(t)
  s.write('in.txt', 'x')
  const ws = s.ws
  const ran = await ws.runGate('ok', { argv: ['true'] })
  assert.equal(ran.reused, false)
  assert.equal(ran.exitCode, 0)
  const reused = ws.runGateSync('ok', { argv: ['true'] })
  assert.equal(reused.reused, true)
  assert.equal(reused.exitCode, 0)
  const failing = await ws.runGate('three', { argv: ['sh', '-c', 'exit 3'] })
  assert.equal(failing.evidence.exitStatus, 3)
  assert.equal(failing.exitCode, 3)
  const killed = ws.runGateSync('usr1', { argv: ['sh', '-c', 'kill -USR1 $$'] })
  assert.equal(killed.evidence.exitStatus, null)
  assert.equal(killed.evidence.signal, 10)
  assert.equal(killed.exitCode, 128 + 10)
  const slow = await ws.runGate('slow', { argv: ['sh', '-c', 'sleep 30'], echo: 'off', timeoutMs: 200 })
  assert.deepEqual(slow.evidence.stopped, { by: 'timeout', afterMs: 200 })
  assert.equal(slow.exitCode, 124)
  // Every other field is the document `ledger gate run --json` prints, camelCased.
  assert.deepEqual(Object.keys(ran).sort(), ['evidence', 'exitCode', 'freshness', 'record', 'reused'])
  assert.equal(ran.exit_code, undefined)
})

test('a record read from its text is the inventory it was written from', async (t) => {
  const s = new Sandbox(t)
  s.write('a.txt', 'a\n')
  const ws = s.ws
  const inventory = ws.inventorySync()
  const text = ledger.inventoryRecordSync(inventory)
  const record = ledger.parseRecordSync(text, { source: 'record.json' })
  assert.equal(record.fingerprint, inventory.fingerprint)
  assert.deepEqual(record.entries, inventory.entries)
  assert.equal((await ws.compare(inventory)).matches, true)
  await expectCode(assert, () => ledger.parseRecord(), 'invalid-argument', 'text', { pathProperty: false })
  const e = await expectCode(assert, () => ledger.parseRecord('{}', { source: 'bad.json' }), 'unsupported-version', 'bad.json')
  assert.equal(e.path, 'bad.json')
})

test('a workspace without the digest cache answers the same', (t) => {
  const s = new Sandbox(t)
  for (let i = 0; i < 20; i++) s.write(`d${i % 3}/f${i}.txt`, `${i}\n`)
  s.write('.ledger/.gitignore', '*\n')
  const ws = s.ws
  assert.equal(ws.settings().digestCache, true)
  const answer = ws.fingerprintSync()
  const off = new Workspace(s.w, { digestCache: false })
  assert.equal(off.settings().digestCache, false)
  assert.equal(off.fingerprintSync(), answer)
  assert.equal(ws.fingerprintSync(), answer)
  const report = ws.storeCheckSync()
  assert.ok(report.cache === null || report.cache.intact, JSON.stringify(report.cache))
})

test('every file changed twice leaves one version of each in the digest cache', async (t) => {
  const s = new Sandbox(t)
  const names = Array.from({ length: 10 }, (_, i) => `d${i % 3}/f${i}.txt`)
  for (const name of names) s.write(name, `${name}\n`)
  s.write('.ledger/.gitignore', '*\n')
  const ws = s.ws
  const uncached = () => new Workspace(s.w, { digestCache: false }).fingerprintSync()
  // Old enough for the cache to record them (it skips files changed within 2 s).
  const settle = () => new Promise((resolve) => setTimeout(resolve, 2200))
  const cache = () => ws.storeCheckSync().cache
  await settle()
  assert.equal(ws.fingerprintSync(), uncached())
  assert.deepEqual({ ...cache(), bytes: 0 }, { bytes: 0, entries: names.length, intact: true })
  for (const round of [0, 1]) {
    for (const name of names) s.write(name, `${name} round ${round}\n`)
    await settle()
    assert.equal(ws.fingerprintSync(), uncached())
    assert.deepEqual({ ...cache(), bytes: 0 }, { bytes: 0, entries: names.length, intact: true }, `round ${round}`)
  }
})

test('a workspace\'s thread count changes how many threads read, never the answer', async (t) => {
  const s = new Sandbox(t)
  for (let i = 0; i < 50; i++) s.write(`d${i % 5}/f${i}.txt`, `${i}\n`)
  const answer = s.ws.fingerprintSync()
  for (const threads of [1, 3]) {
    const ws = new Workspace(s.w, { threads })
    assert.equal(ws.settings().threads, threads)
    assert.equal(ws.fingerprintSync(), answer)
    assert.equal(await ws.fingerprint(), answer)
  }
  for (const bad of [-1, 1.5, Number.NaN, 1e9, '2']) {
    assert.throws(() => new Workspace(s.w, { threads: bad }), (e) => e.code === 'invalid-argument', String(bad))
    await assert.rejects(workspaceSettings({ threads: bad }), (e) => e.code === 'invalid-argument', String(bad))
  }
})

test('two workspaces in one process keep their own settings', async (t) => {
  // Issue 44: made one after the other and used at once, each keeps its own.
  const dirs = [new Sandbox(t), new Sandbox(t)]
  for (const s of dirs) {
    for (let i = 0; i < 20; i++) s.write(`f${i}.txt`, `${i}\n`)
    s.write('.ledger/.gitignore', '*\n')
  }
  const cached = new Workspace(dirs[0].w, { threads: 1, digestCache: true, environment: false })
  const uncached = new Workspace(dirs[1].w, { threads: 3, digestCache: false, signingKey: '/k', environment: false })
  assert.deepEqual(cached.settings(), { threads: 1, digestCache: true, signingKey: null, allowedSigners: null })
  assert.deepEqual(uncached.settings(), { threads: 3, digestCache: false, signingKey: '/k', allowedSigners: null })
  // Old enough for the cache to record them (it skips files changed within 2 s).
  await new Promise((resolve) => setTimeout(resolve, 2200))
  const [a, b] = await Promise.all([cached.fingerprint(), uncached.fingerprint()])
  assert.equal(a, b)
  const has = (s) => fs.existsSync(path.join(s.w, '.ledger', 'digest-cache'))
  assert.equal(has(dirs[1]), false, 'off in that workspace only')
  if (process.platform === 'linux') assert.equal(has(dirs[0]), true, 'the other workspace\'s setting leaked')
})

test('a workspace reads the environment once, when it is made', (t) => {
  const s = new Sandbox(t)
  const saved = process.env.LEDGER_THREADS
  try {
    process.env.LEDGER_THREADS = '2'
    const made = new Workspace(s.w)
    process.env.LEDGER_THREADS = '5'
    assert.equal(made.settings().threads, 2, 'read when it was made, never again')
    assert.equal(new Workspace(s.w).settings().threads, 5)
    assert.equal(new Workspace(s.w, { threads: 1 }).settings().threads, 1, 'given wins')
    process.env.LEDGER_THREADS = 'many'
    assert.throws(() => new Workspace(s.w), (e) => e.code === 'invalid-argument' && /LEDGER_THREADS/.test(e.message))
  } finally {
    if (saved === undefined) delete process.env.LEDGER_THREADS
    else process.env.LEDGER_THREADS = saved
  }
})
