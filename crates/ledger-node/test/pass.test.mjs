// What a PASS must hold and what a write was based on, through the Node
// binding (docs/lifecycle.md, docs/approvals.md): noDelivery, exclusions under
// any spelling, phase records at every check, gate prerequisites in a
// validation, and reviewed/expected on every write.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'

import { camel, cli, noCli, Sandbox } from './helpers.mjs'

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
  const ws = s.ws
  for (const artifact of ['proposal', 'specs', 'design', 'tasks']) ws.approveSync('add-auth', artifact, { source: 'review 1' })
  await ws.runGate('test', { argv: ['cat', 'src/login.js'], scope: { roots: ['src'] }, prerequisites })
  return { s, ws }
}

const head = (ws) => ws.currentStateSync('add-auth').record

test('a PASS names its delivery or records why there is none', async (t) => {
  const { ws } = await approved(t)
  const before = head(ws)
  await assert.rejects(ws.recordValidation('add-auth', { verdict: 'PASS', source: 'r', gates: ['test'] }), {
    code: 'no-delivery',
  })
  assert.equal(head(ws), before)
  const pass = await ws.recordValidation('add-auth', {
    verdict: 'PASS',
    source: 'r',
    gates: ['test'],
    noDelivery: 'a planning-only change',
  })
  assert.equal(pass.state.validation.noDelivery, 'a planning-only change')
  const check = ws.checkValidationSync('add-auth')
  assert.equal(check.stands, true)
  assert.equal(check.noDelivery, 'a planning-only change')
})

test('nothing the PASS must hold is excluded, under any spelling', async (t) => {
  const { ws } = await approved(t)
  const base = { verdict: 'PASS', source: 'r', roots: ['src'], gates: ['test'] }
  for (const [options, code] of [
    [{ exclude: ['openspec/specs/auth/spec.md'] }, 'invalid-argument'],
    [{ exclude: ['./openspec/specs/auth/'] }, 'invalid-argument'],
    [{ phaseRecords: [`${DIR}/.openspec.yaml`] }, 'invalid-argument'],
    [{ phaseRecords: [`./${DIR}/tasks.md`] }, 'invalid-argument'],
    [{ exclude: ['openspec//specs/auth/spec.md'] }, 'invalid-path'],
  ]) {
    assert.throws(() => ws.recordValidationSync('add-auth', { ...base, ...options }), { code }, JSON.stringify(options))
  }
  assert.equal(ws.currentStateSync('add-auth').state.validation, null)
})

test('a phase record is one regular file when recorded and at every check', async (t) => {
  const { s, ws } = await approved(t)
  const record = '.agents/phases/add-auth.md'
  const options = { verdict: 'PASS', source: 'r', roots: ['src'], gates: ['test'], phaseRecords: [record] }
  await assert.rejects(ws.recordValidation('add-auth', options), (e) => {
    assert.equal(e.code, 'invalid-argument')
    assert.ok(e.message.includes('missing'), e.message)
    return true
  })
  s.write(record, 'validated\n')
  await ws.recordValidation('add-auth', options)
  assert.equal(ws.checkValidationSync('add-auth').stands, true)
  fs.rmSync(s.path(record))
  s.write(`${record}/smuggled.js`, 'export {}\n')
  const check = await ws.checkValidation('add-auth')
  assert.equal(check.stands, false)
  assert.deepEqual(check.phaseRecords, [
    { path: record, kind: 'directory', inside: [`${record}/smuggled.js`] },
  ])
  const done = ws.finalizeCheckSync('add-auth')
  assert.equal(done.clean, false)
  assert.deepEqual(
    done.newChanges.map((c) => [c.change, c.new.path]),
    [['added', `${record}/smuggled.js`]],
  )
  if (!noCli) {
    const shown = JSON.parse(cli(['finalize', 'check', '--change', 'add-auth', '--json', '--workspace', s.w], { ok: [1] }).stdout)
    assert.deepEqual(camel(shown), done)
  }
})

test('a validation observes its gates\u2019 prerequisites as checkRecordedGate does', async (t) => {
  const { ws } = await approved(t, { toolchain: { literal: '1.80' } })
  const base = { verdict: 'PASS', source: 'r', roots: ['src'], gates: ['test'] }
  await assert.rejects(ws.recordValidation('add-auth', base), (e) => {
    assert.equal(e.code, 'validation-refused')
    assert.ok(e.message.includes('toolchain'), e.message)
    return true
  })
  const observed = { test: { toolchain: { literal: '1.80' } } }
  assert.throws(() => ws.recordValidationSync('add-auth', { ...base, gatePrerequisites: { tset: {} } }), {
    code: 'invalid-argument',
  })
  await ws.recordValidation('add-auth', { ...base, gatePrerequisites: observed })
  assert.equal(ws.checkValidationSync('add-auth').stands, false)
  assert.equal(ws.checkValidationSync('add-auth', { gatePrerequisites: observed }).stands, true)
  const byCommand = { test: { toolchain: { command: 'echo 1.80' } } }
  assert.equal((await ws.checkValidation('add-auth', { gatePrerequisites: byCommand })).stands, true)
})

test('writes record nothing when what was reviewed moved or another writer came first', async (t) => {
  const s = new Sandbox(t)
  s.init()
  s.write(`${DIR}/proposal.md`, '# Why\n')
  const ws = s.ws
  const reviewed = ws.fingerprintSync({ paths: [`${DIR}/proposal.md`] })
  s.write(`${DIR}/proposal.md`, '# Why\nEdited after the review.\n')
  await assert.rejects(ws.approve('add-auth', 'proposal', { source: 'r', reviewed, expected: 'no-record' }), (e) => {
    assert.equal(e.code, 'fingerprint-moved')
    assert.ok(e.message.includes(`${DIR}/proposal.md`) && e.message.includes(reviewed), e.message)
    return true
  })
  assert.equal(head(ws), null)
  const now = ws.fingerprintSync({ paths: [`${DIR}/proposal.md`] })
  ws.approveSync('add-auth', 'proposal', { source: 'r', reviewed: now, expected: 'no-record' })
  const first = head(ws)
  assert.throws(() => ws.approveSync('add-auth', 'proposal', { source: 'r', reviewed: now, expected: 'no-record' }), {
    code: 'pointer-conflict',
  })
  const second = ws.advanceStateSync('add-auth', { role: 'implementation', expected: first }).record
  // Every write verb, started from the first record: another writer came first.
  assert.throws(() => ws.approveSync('add-auth', 'proposal', { source: 'r', expected: first }), { code: 'pointer-conflict' })
  assert.throws(() => ws.advanceStateSync('add-auth', { role: 'x', expected: first }), { code: 'pointer-conflict' })
  assert.throws(
    () => ws.recordValidationSync('add-auth', { verdict: 'FAIL', source: 'r', expected: first }),
    { code: 'pointer-conflict' },
  )
  await assert.rejects(ws.retire('add-auth', { reason: 'abandoned', expected: first }), { code: 'pointer-conflict' })
  assert.equal(head(ws), second)
  assert.match(ws.retireSync('add-auth', { reason: 'abandoned', expected: second }), /^[0-9a-f]{64}$/)
})
