// What a PASS must hold and what a write was based on, through the Node
// binding (docs/lifecycle.md, docs/approvals.md): noDelivery, exclusions under
// any spelling, phase records at every check, gate prerequisites in a
// validation, and reviewed/expected on every write.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'

import { cli, ledger, noCli, Sandbox } from './helpers.mjs'

const DIR = 'openspec/changes/add-auth'

async function approved(t, prerequisites) {
  const s = new Sandbox(t)
  s.init()
  s.write(`${DIR}/proposal.md`, '# Why\n')
  s.write(`${DIR}/design.md`, '# Design\n')
  s.write(`${DIR}/specs/auth/spec.md`, '## ADDED Requirements\n')
  s.write(`${DIR}/tasks.md`, '- [x] 1.1 Login\n')
  s.write(`${DIR}/.openspec.yaml`, 'schema: spec-driven\n')
  s.write('openspec/specs/auth/spec.md', '# auth\n')
  s.write('src/login.js', 'export const login = () => {}\n')
  const change = { workspace: s.w, change: 'add-auth' }
  for (const artifact of ['proposal', 'specs', 'design', 'tasks']) ledger.approveSync(change, artifact, 'review 1')
  await ledger.runGate({
    name: 'test',
    argv: ['cat', 'src/login.js'],
    scope: { workspace: s.w, roots: ['src'] },
    prerequisites,
  })
  return { s, change }
}

const head = (change) => ledger.currentStateSync(change).record

test('a PASS names its delivery or records why there is none', async (t) => {
  const { change } = await approved(t)
  const before = head(change)
  await assert.rejects(ledger.recordValidation(change, { verdict: 'PASS', source: 'r', gates: ['test'] }), {
    code: 'no-delivery',
  })
  assert.equal(head(change), before)
  const pass = await ledger.recordValidation(change, {
    verdict: 'PASS',
    source: 'r',
    gates: ['test'],
    noDelivery: 'a planning-only change',
  })
  assert.equal(pass.state.validation.no_delivery, 'a planning-only change')
  const check = ledger.checkValidationSync(change)
  assert.equal(check.stands, true)
  assert.equal(check.no_delivery, 'a planning-only change')
})

test('nothing the PASS must hold is excluded, under any spelling', async (t) => {
  const { change } = await approved(t)
  const base = { verdict: 'PASS', source: 'r', roots: ['src'], gates: ['test'] }
  for (const [options, code] of [
    [{ exclude: ['openspec/specs/auth/spec.md'] }, 'invalid-argument'],
    [{ exclude: ['./openspec/specs/auth/'] }, 'invalid-argument'],
    [{ phaseRecords: [`${DIR}/.openspec.yaml`] }, 'invalid-argument'],
    [{ phaseRecords: [`./${DIR}/tasks.md`] }, 'invalid-argument'],
    [{ exclude: ['openspec//specs/auth/spec.md'] }, 'invalid-path'],
  ]) {
    assert.throws(() => ledger.recordValidationSync(change, { ...base, ...options }), { code }, JSON.stringify(options))
  }
  assert.equal(ledger.currentStateSync(change).state.validation, null)
})

test('a phase record is one regular file when recorded and at every check', async (t) => {
  const { s, change } = await approved(t)
  const record = '.agents/phases/add-auth.md'
  const options = { verdict: 'PASS', source: 'r', roots: ['src'], gates: ['test'], phaseRecords: [record] }
  await assert.rejects(ledger.recordValidation(change, options), (e) => {
    assert.equal(e.code, 'invalid-argument')
    assert.ok(e.message.includes('missing'), e.message)
    return true
  })
  s.write(record, 'validated\n')
  await ledger.recordValidation(change, options)
  assert.equal(ledger.checkValidationSync(change).stands, true)
  fs.rmSync(s.path(record))
  s.write(`${record}/smuggled.js`, 'export {}\n')
  const check = await ledger.checkValidation(change)
  assert.equal(check.stands, false)
  assert.deepEqual(check.phase_records, [
    { path: record, kind: 'directory', inside: [`${record}/smuggled.js`] },
  ])
  const done = ledger.finalizeCheckSync(change)
  assert.equal(done.clean, false)
  assert.deepEqual(
    done.new_changes.map((c) => [c.change, c.new.path]),
    [['added', `${record}/smuggled.js`]],
  )
  if (!noCli) {
    const shown = JSON.parse(cli(['finalize', 'check', '--change', 'add-auth', '--json', '--workspace', s.w], { ok: [1] }).stdout)
    assert.deepEqual(shown, done)
  }
})

test('a validation observes its gates\u2019 prerequisites as checkRecordedGate does', async (t) => {
  const { change } = await approved(t, { toolchain: { literal: '1.80' } })
  const base = { verdict: 'PASS', source: 'r', roots: ['src'], gates: ['test'] }
  await assert.rejects(ledger.recordValidation(change, base), (e) => {
    assert.equal(e.code, 'validation-refused')
    assert.ok(e.message.includes('toolchain'), e.message)
    return true
  })
  const observed = { test: { toolchain: { literal: '1.80' } } }
  assert.throws(() => ledger.recordValidationSync(change, { ...base, gatePrerequisites: { tset: {} } }), {
    code: 'invalid-argument',
  })
  await ledger.recordValidation(change, { ...base, gatePrerequisites: observed })
  assert.equal(ledger.checkValidationSync(change).stands, false)
  assert.equal(ledger.checkValidationSync(change, observed).stands, true)
  assert.equal((await ledger.checkValidation(change, { test: { toolchain: { command: 'echo 1.80' } } })).stands, true)
})

test('writes record nothing when what was reviewed moved or another writer came first', async (t) => {
  const s = new Sandbox(t)
  s.init()
  s.write(`${DIR}/proposal.md`, '# Why\n')
  const change = { workspace: s.w, change: 'add-auth' }
  const reviewed = ledger.fingerprintSync({ workspace: s.w, paths: [`${DIR}/proposal.md`] })
  s.write(`${DIR}/proposal.md`, '# Why\nEdited after the review.\n')
  await assert.rejects(ledger.approve(change, 'proposal', 'r', false, { reviewed, expected: 'none' }), (e) => {
    assert.equal(e.code, 'fingerprint-moved')
    assert.ok(e.message.includes(`${DIR}/proposal.md`) && e.message.includes(reviewed), e.message)
    return true
  })
  assert.equal(head(change), null)
  const now = ledger.fingerprintSync({ workspace: s.w, paths: [`${DIR}/proposal.md`] })
  ledger.approveSync(change, 'proposal', 'r', false, { reviewed: now, expected: 'none' })
  const first = head(change)
  assert.throws(() => ledger.approveSync(change, 'proposal', 'r', false, { reviewed: now, expected: 'none' }), {
    code: 'pointer-conflict',
  })
  const second = ledger.advanceStateSync(change, { role: 'implementation' }, first).record
  // Every write verb, started from the first record: another writer came first.
  assert.throws(() => ledger.approveSync(change, 'proposal', 'r', false, { expected: first }), { code: 'pointer-conflict' })
  assert.throws(() => ledger.advanceStateSync(change, { role: 'x' }, first), { code: 'pointer-conflict' })
  assert.throws(
    () => ledger.recordValidationSync(change, { verdict: 'FAIL', source: 'r', expected: first }),
    { code: 'pointer-conflict' },
  )
  await assert.rejects(ledger.retire(change, 'abandoned', first), { code: 'pointer-conflict' })
  assert.equal(head(change), second)
  assert.match(ledger.retireSync(change, 'abandoned', second), /^[0-9a-f]{64}$/)
})
