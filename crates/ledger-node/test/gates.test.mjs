// Gate evidence: run, reuse while fresh, stale with every reason — the same
// documents as `ledger gate check --json`.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { cli, ledger, noCli, sampleCheckout } from './helpers.mjs'

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
