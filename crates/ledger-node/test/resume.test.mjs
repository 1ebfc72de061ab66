// Resuming through the Node binding (docs/lifecycle.md, Resuming in one
// call): `ws.check()` is `ledger check --json` and `ws.changes()` is
// `ledger changes --json`, the same documents camelCased.
import assert from 'node:assert/strict'
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
