// Resuming through the Node binding (docs/lifecycle.md, Resuming in one
// call): `ws.check()` is `ledger check --json` and `ws.changes()` is
// `ledger changes --json`, the same documents camelCased.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'

import { camel, cli, expectCode, noCli, Sandbox } from './helpers.mjs'

const DIR = 'openspec/changes/add-auth'

function change(t) {
  const s = new Sandbox(t)
  s.init()
  s.write(`${DIR}/proposal.md`, '# Why\n')
  s.write(`${DIR}/design.md`, '# Design\n')
  s.write(`${DIR}/specs/auth/spec.md`, '## ADDED Requirements\n')
  s.write(`${DIR}/tasks.md`, '- [x] 1.1 [core] Login\n- [ ] 1.2 [core] Tokens\n')
  s.write('openspec/changes/archive/2026-01-01-old/proposal.md', '# Old\n')
  s.write('src/login.js', 'export const login = () => {}\n')
  return s
}

const kinds = (report) => report.changes[0].work.map((w) => w.kind)

test('check lists the work of each active change, then what a fix after the PASS leaves', async (t) => {
  const s = change(t)
  const ws = s.ws
  const report = await ws.check()
  assert.equal(report.nothingToDo, false)
  assert.deepEqual(kinds(report), ['approval', 'approval', 'approval', 'approval', 'tasks-left', 'not-validated'])
  assert.equal(report.changes[0].work[0].subject, 'proposal')
  assert.deepEqual(report.changes[0].tasks.done, 1)
  for (const artifact of ['proposal', 'specs', 'design', 'tasks']) ws.approveSync('add-auth', artifact, { source: 'r1' })
  s.write(`${DIR}/tasks.md`, '- [x] 1.1 [core] Login\n- [x] 1.2 [core] Tokens\n')
  await ws.runGate('test', { argv: ['cat', 'src/login.js'], scope: { roots: ['src'] } })
  ws.recordValidationSync('add-auth', { verdict: 'PASS', source: 'r2', roots: ['src'], gates: ['test'] })
  const standing = ws.checkSync({ change: 'add-auth' })
  assert.deepEqual(kinds(standing), ['archive'])
  assert.equal(standing.changes[0].validation.stands, true)
  assert.equal(standing.changes[0].validation.gates[0].fresh, true)
  s.write('src/login.js', 'export const login = () => 1\n')
  assert.deepEqual(kinds(await ws.check()), ['pass-changed', 'gate-stale'])
  await expectCode(assert, () => ws.check({ change: 'nope' }), 'unknown-change', 'openspec/changes/nope')
})

test('check and changes are the CLI documents', { skip: noCli }, async (t) => {
  const s = change(t)
  const ws = s.ws
  const report = await ws.check()
  const shown = JSON.parse(cli(['check', '--json', '--workspace', s.w], { ok: [1] }).stdout)
  assert.deepEqual(camel(shown).changes, report.changes)
  const listed = await ws.changes()
  assert.deepEqual(
    listed.map((c) => [c.change, c.location.state]),
    [
      ['add-auth', 'active'],
      ['old', 'archived'],
    ],
  )
  assert.deepEqual(listed[0].tasks, { done: 1, total: 2 })
  assert.deepEqual(camel(JSON.parse(cli(['changes', '--json', '--workspace', s.w]).stdout)), listed)
})

const DELTA = '## ADDED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n'
// What `openspec archive` writes for a new capability from DELTA.
const SYNCED =
  '# auth Specification\n\n## Purpose\nTBD - created by archiving change add-auth. Update Purpose after archive.\n\n' +
  '## Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n'
// The README's kind of gate: a literal and a command prerequisite.
const DECLARED =
  '[gates.test]\ncommand = ["cat", "src/login.js"]\nroots = ["src"]\nenv = ["MODE=ci"]\nenv-cmd = { tool = "echo v1" }\n'
const TOOL = { command: 'echo v1' }

test('one check call, the same options, resumes every stage from proposal to finalization', async (t) => {
  const s = change(t)
  s.write(`${DIR}/tasks.md`, '- [ ] 1.1 [core] Login\n- [ ] 1.2 [core] Tokens\n')
  s.write(`${DIR}/specs/auth/spec.md`, DELTA)
  s.write('ledger.toml', DECLARED)
  const ws = s.ws
  const options = { gatePrerequisites: { unit: { tool: TOOL } }, allowEnvCmd: true }
  // The one call (async, sync, and the change named): `nothingToDo` each time, never an error.
  const resume = async (stage, nothingToDo) => {
    const report = await ws.check(options)
    assert.equal(report.nothingToDo, nothingToDo, `${stage}: ${JSON.stringify(report.work)}`)
    assert.equal(ws.checkSync({ ...options, change: 'add-auth' }).nothingToDo, nothingToDo, stage)
    if (!noCli) {
      const args = ['check', '--json', '--gate-env-cmd', 'unit:tool=echo v1', '--allow-env-cmd', '--workspace', s.w]
      const out = cli(args, { ok: [nothingToDo ? 0 : 1] })
      assert.deepEqual(camel(JSON.parse(out.stdout)).work, report.work, stage)
    }
    return report
  }
  let report = await resume('proposal', false)
  assert.deepEqual(
    report.notes.filter((n) => n.kind === 'unused-prerequisites').map((n) => n.subject),
    ['unit'],
  )
  assert.ok(report.work.some((w) => w.kind === 'declared-gate-stale'))
  assert.equal(report.work[0].change, 'add-auth')
  for (const artifact of ['proposal', 'specs', 'design', 'tasks']) ws.approveSync('add-auth', artifact, { source: 'r1' })
  ws.advanceStateSync('add-auth', { next: 'validation' })
  await resume('approved', false)
  s.write(`${DIR}/tasks.md`, '- [x] 1.1 [core] Login\n- [x] 1.2 [core] Tokens\n')
  await resume('tasks done', false)
  await ws.runDeclaredGate('test')
  await ws.runGate('unit', { argv: ['cat', 'src/login.js'], scope: { roots: ['src'] }, prerequisites: { tool: TOOL } })
  assert.equal((await resume('gates run', false)).declaredGates[0].fresh, true)
  const gatePrerequisites = { test: { MODE: { literal: 'ci' }, tool: TOOL }, unit: { tool: TOOL } }
  ws.recordValidationSync('add-auth', { verdict: 'PASS', source: 'r2', roots: ['src'], gates: ['test', 'unit'], gatePrerequisites })
  report = await resume('validated', false)
  assert.deepEqual(report.work.map((w) => w.kind), ['archive'])
  assert.deepEqual(report.notes, [])
  fs.mkdirSync(`${s.w}/openspec/changes/archive`, { recursive: true })
  fs.renameSync(`${s.w}/${DIR}`, `${s.w}/openspec/changes/archive/2026-12-01-add-auth`)
  s.write('openspec/specs/auth/spec.md', SYNCED)
  assert.equal(ws.finalizeCheckSync('add-auth').clean, true)
  await resume('finalized', true)
  assert.equal(ws.checkSync({ change: 'add-auth', allowEnvCmd: true }).changes[0].next, null)
  assert.equal(ws.changesSync().find((c) => c.change === 'add-auth').nextOutcome, null)
})
