// What test/types.ts lets TypeScript code do works at run time, and what it
// refuses fails at run time too: `new Store(workspace)`, the `Echo` object and
// its strings, and `RunOutcome.exit_code`.
import assert from 'node:assert/strict'
import path from 'node:path'
import { test } from 'node:test'

// Named imports, as a TypeScript or ESM user writes them: each must be a
// named export of index.js that Node's CommonJS interop finds.
import { Echo, Store, runGate, runGateSync } from '../index.js'
import { ledger, Sandbox } from './helpers.mjs'

test('new Store(workspace) is the store Store.open(workspace) gives', async (t) => {
  const s = new Sandbox(t)
  const made = new Store(s.w)
  assert.ok(made instanceof Store)
  assert.ok(made instanceof ledger.Store)
  assert.equal(made.root, path.join(s.w, '.ledger'))
  assert.equal(made.root, Store.open(s.w).root)
  assert.deepEqual(await made.refs(), [])
  assert.equal(made.headSync('gates/test'), null)
  // What the types refuse: no workspace, or not a string.
  assert.throws(() => new Store(), /into rust type `String`/)
  assert.throws(() => new Store(42), /into rust type `String`/)
})

test('Echo is a runtime object of the three strings the Echo type allows', async (t) => {
  assert.deepEqual({ ...Echo }, { Off: 'off', Passthrough: 'passthrough', Stderr: 'stderr' })
  assert.equal(ledger.Echo, Echo)
  const s = new Sandbox(t)
  s.write('in.txt', 'x')
  const spec = { name: 'echo', argv: ['sh', '-c', 'echo out; echo err >&2'], scope: { workspace: s.w } }
  const first = await runGate(spec, Echo.Off)
  assert.equal(first.reused, false)
  for (const echo of [...Object.values(Echo), undefined, null]) {
    assert.equal((await runGate(spec, echo)).reused, true, String(echo))
    assert.equal(runGateSync(spec, echo).reused, true, String(echo))
  }
  assert.throws(() => runGateSync(spec, 'loud'), (e) => e.code === 'InvalidArg')
  await assert.rejects(async () => runGate(spec, 'loud'), (e) => e.code === 'InvalidArg')
})

test('RunOutcome.exit_code is what `ledger gate run` exits with', async (t) => {
  const s = new Sandbox(t)
  s.write('in.txt', 'x')
  const scope = { workspace: s.w }
  const passing = { name: 'ok', argv: ['true'], scope }
  const ran = await runGate(passing)
  assert.equal(ran.reused, false)
  assert.equal(ran.exit_code, 0)
  const reused = runGateSync(passing)
  assert.equal(reused.reused, true)
  assert.equal(reused.exit_code, 0)
  const failing = await runGate({ name: 'three', argv: ['sh', '-c', 'exit 3'], scope })
  assert.equal(failing.evidence.exit_status, 3)
  assert.equal(failing.exit_code, 3)
  const killed = runGateSync({ name: 'usr1', argv: ['sh', '-c', 'kill -USR1 $$'], scope })
  assert.equal(killed.evidence.exit_status, null)
  assert.equal(killed.evidence.signal, 10)
  assert.equal(killed.exit_code, 128 + 10)
  const slow = await runGate({ name: 'slow', argv: ['sh', '-c', 'sleep 30'], scope }, 'off', 200)
  assert.deepEqual(slow.evidence.stopped, { by: 'timeout', after_ms: 200 })
  assert.equal(slow.exit_code, 124)
  // Every other field is the document `ledger gate run --json` prints.
  assert.deepEqual(Object.keys(ran).sort(), ['evidence', 'exit_code', 'freshness', 'record', 'reused'])
})

test('new Inventory(text) reads a record as Inventory.fromRecord does', async (t) => {
  const s = new Sandbox(t)
  s.write('a.txt', 'a\n')
  const text = ledger.inventorySync({ workspace: s.w }).toRecord()
  const made = new ledger.Inventory(text, { source: 'record.json' })
  assert.ok(made instanceof ledger.Inventory)
  assert.equal(made.fingerprint, ledger.Inventory.fromRecord(text).fingerprint)
  assert.equal((await made.compare()).matches, true)
  assert.throws(() => new ledger.Inventory(), /into rust type `String`/)
  assert.throws(() => new ledger.Inventory('{}', { source: 'bad.json' }), (e) => e.code === 'unsupported-version' && e.path === 'bad.json')
})

test('setDigestCache turns the cache off and on, never changing the answer', (t) => {
  const s = new Sandbox(t)
  for (let i = 0; i < 20; i++) s.write(`d${i % 3}/f${i}.txt`, `${i}\n`)
  s.write('.ledger/.gitignore', '*\n')
  assert.equal(ledger.digestCacheEnabled(), true)
  const answer = ledger.fingerprintSync({ workspace: s.w })
  try {
    ledger.setDigestCache(false)
    assert.equal(ledger.digestCacheEnabled(), false)
    assert.equal(ledger.fingerprintSync({ workspace: s.w }), answer)
  } finally {
    ledger.setDigestCache(true)
  }
  assert.equal(ledger.fingerprintSync({ workspace: s.w }), answer)
  const report = new ledger.Store(s.w).checkSync()
  assert.ok(report.cache === null || report.cache.intact, JSON.stringify(report.cache))
})

test('every file changed twice leaves one version of each in the digest cache', async (t) => {
  const s = new Sandbox(t)
  const names = Array.from({ length: 10 }, (_, i) => `d${i % 3}/f${i}.txt`)
  for (const name of names) s.write(name, `${name}\n`)
  s.write('.ledger/.gitignore', '*\n')
  const uncached = () => {
    try {
      ledger.setDigestCache(false)
      return ledger.fingerprintSync({ workspace: s.w })
    } finally {
      ledger.setDigestCache(true)
    }
  }
  // Old enough for the cache to record them (it skips files changed within 2 s).
  const settle = () => new Promise((resolve) => setTimeout(resolve, 2200))
  const cache = () => new ledger.Store(s.w).checkSync().cache
  await settle()
  assert.equal(ledger.fingerprintSync({ workspace: s.w }), uncached())
  assert.deepEqual({ ...cache(), bytes: 0 }, { bytes: 0, entries: names.length, intact: true })
  for (const round of [0, 1]) {
    for (const name of names) s.write(name, `${name} round ${round}\n`)
    await settle()
    assert.equal(ledger.fingerprintSync({ workspace: s.w }), uncached())
    assert.deepEqual({ ...cache(), bytes: 0 }, { bytes: 0, entries: names.length, intact: true }, `round ${round}`)
  }
})

test('setThreads changes how many threads read, never the answer', (t) => {
  const s = new Sandbox(t)
  for (let i = 0; i < 50; i++) s.write(`d${i % 5}/f${i}.txt`, `${i}\n`)
  const answer = ledger.fingerprintSync({ workspace: s.w })
  try {
    for (const count of [1, 3]) {
      ledger.setThreads(count)
      assert.equal(ledger.threads(), count)
      assert.equal(ledger.fingerprintSync({ workspace: s.w }), answer)
    }
    for (const bad of [-1, 1.5, Number.NaN, 1e9]) {
      assert.throws(() => ledger.setThreads(bad), (e) => e.code === 'invalid-argument', String(bad))
    }
    assert.equal(ledger.threads(), 3, 'a refused count changes nothing')
  } finally {
    ledger.setThreads(0)
  }
})
