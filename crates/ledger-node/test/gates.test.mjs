// Gate evidence: run, reuse while fresh, stale with every reason — the same
// documents as `ledger gate check --json`.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { cli, expectCode, ledger, noCli, sampleCheckout, sha256hex } from './helpers.mjs'

function setup(t) {
  const s = sampleCheckout(t)
  const counter = path.join(s.dir, 'runs')
  fs.writeFileSync(counter, '')
  const spec = {
    name: 'test',
    argv: ['sh', '-c', `echo run >> '${counter}'; echo hello from the gate`],
    scope: { workspace: s.w, roots: ['src'] },
    prerequisites: { mode: { literal: 'debug' }, shell: { command: 'echo sh-1' } },
  }
  const runs = () => fs.readFileSync(counter, 'utf8').split('\n').filter(Boolean).length
  return { s, spec, runs }
}

test('runGate runs once, then reuses fresh evidence; an input change makes it stale', async (t) => {
  const { s, spec, runs } = setup(t)
  assert.equal(await ledger.latestEvidence({ workspace: s.w, gate: 'test' }), null)
  const never = await ledger.checkGate(spec)
  assert.equal(never.fresh, false)
  assert.deepEqual(never.reasons, [{ reason: 'no-evidence' }])

  const first = await ledger.runGate(spec)
  assert.equal(first.reused, false)
  assert.equal(first.evidence.exit_status, 0)
  assert.equal(first.evidence.result, 'hello from the gate')
  assert.deepEqual(first.evidence.prerequisites, { mode: 'debug', shell: 'sh-1' })
  assert.equal(runs(), 1)
  const second = ledger.runGateSync(spec, 'off')
  assert.equal(second.reused, true)
  assert.equal(second.freshness.fresh, true)
  assert.equal(runs(), 1, 'fresh evidence was reused, the command did not run')

  const latest = ledger.latestEvidenceSync({ workspace: s.w, gate: 'test' })
  assert.equal(latest.record, first.record)
  assert.deepEqual(latest.evidence, first.evidence)

  s.write('src/lib.rs', 'changed\n')
  const stale = await ledger.checkGate({ ...spec, prerequisites: { mode: { literal: 'release' }, shell: { command: 'echo sh-1' } } })
  assert.equal(stale.fresh, false)
  assert.deepEqual(
    stale.reasons.map((r) => r.reason),
    ['prerequisite-changed', 'inputs-changed'],
  )
  const inputs = stale.reasons[1].comparison
  assert.deepEqual(
    inputs.changes.map((c) => [c.change, c.new.path]),
    [['content-changed', 'src/lib.rs']],
  )
})

test('checkGate equals ledger gate check --json', { skip: noCli }, async (t) => {
  const { s, spec } = setup(t)
  const cliSpec = { ...spec, prerequisites: { mode: { literal: 'debug' } } }
  await ledger.runGate(cliSpec)
  const args = ['gate', 'check', '--name', 'test', '--workspace', s.w, '--root', 'src', '--env', 'mode=debug', '--json']
  const fresh = JSON.parse(cli([...args, '--', ...spec.argv], { cwd: s.w }).stdout)
  assert.equal(fresh.fresh, true)
  assert.deepEqual(await ledger.checkGate(cliSpec), fresh)
  fs.chmodSync(s.path('src/lib.rs'), 0o755)
  const stale = JSON.parse(cli([...args, '--', ...spec.argv], { cwd: s.w, ok: [1] }).stdout)
  assert.deepEqual(ledger.checkGateSync(cliSpec), stale)
  assert.deepEqual(
    stale.reasons.map((r) => r.reason),
    ['inputs-changed'],
  )
  // A failing command is recorded, and never reused.
  const failing = { ...cliSpec, argv: ['sh', '-c', 'exit 3'] }
  const outcome = await ledger.runGate(failing)
  assert.equal(outcome.evidence.exit_status, 3)
  const again = await ledger.checkGate(failing)
  assert.deepEqual(
    again.reasons.map((r) => r.reason),
    ['failed'],
  )
})

test('a cwd below the workspace is one directory however it is written', async (t) => {
  const { s, spec, runs } = setup(t)
  const inSrc = { ...spec, argv: ['sh', '-c', `${spec.argv[2]}; ls lib.rs`], cwd: 'src/' }
  const first = await ledger.runGate(inSrc)
  assert.equal(first.evidence.spec.cwd, 'src')
  assert.equal(first.evidence.result, 'hello from the gate\nlib.rs')
  for (const cwd of ['src/', './src', 'src']) {
    assert.equal((await ledger.checkGate({ ...inSrc, cwd })).fresh, true, cwd)
    assert.equal(ledger.runGateSync({ ...inSrc, cwd }).reused, true, cwd)
  }
  assert.equal(runs(), 1)
  const elsewhere = await ledger.checkGate({ ...inSrc, cwd: '.' })
  assert.deepEqual(
    elsewhere.reasons.map((r) => r.reason),
    ['command-differs'],
  )
  await expectCode(assert, () => ledger.checkGate({ ...inSrc, cwd: '../up' }), 'outside-workspace', '../up')
  await expectCode(assert, () => ledger.runGate({ ...inSrc, argv: [] }), 'invalid-argument', 'argv', {
    pathProperty: false,
  })
  if (!noCli) {
    const args = ['gate', 'check', '--name', 'test', '--root', 'src', '--env', 'mode=debug', '--env-cmd', 'shell=echo sh-1']
    const out = cli([...args, '--json', '--', ...inSrc.argv], { cwd: s.path('src') })
    assert.equal(JSON.parse(out.stdout).fresh, true)
  }
})

test('an unset variable differs from an empty one', async (t) => {
  const { spec, runs } = setup(t)
  const name = 'LEDGER_NODE_TEST_FLAGS'
  delete process.env[name]
  t.after(() => delete process.env[name])
  const withFlags = { ...spec, prerequisites: { flags: { environment: name } } }
  const first = await ledger.runGate(withFlags)
  assert.deepEqual(first.evidence.prerequisites, { flags: null })
  assert.equal((await ledger.runGate(withFlags)).reused, true)
  process.env[name] = ''
  const stale = await ledger.checkGate(withFlags)
  assert.deepEqual(stale.reasons, [{ reason: 'prerequisite-changed', name: 'flags', recorded: null, now: '' }])
  const again = await ledger.runGate(withFlags)
  assert.deepEqual([again.reused, again.evidence.prerequisites], [false, { flags: '' }])
  assert.equal(runs(), 2)
})

test('values that are not text are refused, never collapsed into one', async (t) => {
  const { s, spec, runs } = setup(t)
  for (const value of ['\uD800', '\uDBFF']) {
    const lone = { ...spec, prerequisites: { tool: { literal: `v${value}` } } }
    await expectCode(assert, () => ledger.runGate(lone), 'non-utf8-value', 'prerequisite tool', { pathProperty: false })
  }
  for (const output of ["printf '\\377'", "printf '\\376'"]) {
    const bytes = { ...spec, prerequisites: { tool: { command: output } } }
    await expectCode(assert, () => ledger.checkGate(bytes), 'non-utf8-value', 'output of', { pathProperty: false })
  }
  await expectCode(assert, () => ledger.runGate({ ...spec, argv: ['echo', '\uDC00'] }), 'non-utf8-value', 'argument', {
    pathProperty: false,
  })
  assert.equal(runs(), 0)
  assert.equal(ledger.latestEvidenceSync({ workspace: s.w, gate: 'test' }), null)
})

test('evidence whose entries do not give its fingerprint is refused', async (t) => {
  const { s, spec, runs } = setup(t)
  const first = await ledger.runGate(spec)
  s.write('src/lib.rs', 'changed after the run\n')
  const now = await ledger.fingerprint(spec.scope)
  // A consistent record (it hashes to its name) whose fingerprint claims the
  // inputs as they are now, while its entries are those the gate saw.
  const store = path.join(s.w, '.ledger')
  const record = JSON.parse(fs.readFileSync(path.join(store, 'records', `${first.record}.json`), 'utf8'))
  record.previous = first.record
  record.body.inventory.fingerprint = now
  const bytes = Buffer.from(JSON.stringify(record, null, 2) + '\n')
  const lie = sha256hex(bytes)
  fs.writeFileSync(path.join(store, 'records', `${lie}.json`), bytes)
  fs.writeFileSync(path.join(store, 'refs', 'gates', 'test'), `${lie}\n`)
  for (const call of [() => ledger.checkGate(spec), () => ledger.runGate(spec)]) {
    const e = await expectCode(assert, call, 'malformed-record', `${lie}.json`)
    assert.match(e.message, /not its recorded fingerprint/)
  }
  assert.equal(runs(), 1, 'the gate did not run on a lying record')
})
