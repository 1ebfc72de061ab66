// The change lifecycle (docs/lifecycle.md) through the Node binding: the
// handoff, a validation PASS and the finalization check, with the same
// documents the CLI prints with --json.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'

import os from 'node:os'
import path from 'node:path'

import { camel, cli, noCli, packageDir, repoRoot, run, Sandbox } from './helpers.mjs'

const DIR = 'openspec/changes/add-auth'
const ARCHIVE = 'openspec/changes/archive/2026-12-01-add-auth'
const TASKS = '- [ ] 1.1 [core] Login\n- [ ] 1.2 [core] Tokens\n'
const DELTA = '## ADDED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n'
// What `openspec archive` writes for a new capability from DELTA.
const SYNCED =
  '# auth Specification\n\n## Purpose\nTBD - created by archiving change add-auth. Update Purpose after archive.\n\n' +
  '## Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n'

function approvedChange(t) {
  const s = new Sandbox(t)
  s.init()
  s.write(`${DIR}/proposal.md`, '# Why\n')
  s.write(`${DIR}/design.md`, '# Design\n')
  s.write(`${DIR}/specs/auth/spec.md`, DELTA)
  s.write(`${DIR}/tasks.md`, TASKS)
  s.write('src/login.js', 'export const login = () => {}\n')
  const ws = s.ws
  for (const artifact of ['proposal', 'specs', 'design', 'tasks']) ws.approveSync('add-auth', artifact, { source: 'review 1' })
  return { s, ws }
}

test('advanceState patches only the named fields and reads the task ids from the file', async (t) => {
  const { s, ws } = approvedChange(t)
  const first = await ws.advanceState('add-auth', { role: 'implementation', areas: ['web'], next: 'validation' })
  assert.match(first.record, /^[0-9a-f]{64}$/)
  assert.equal(first.state.bindings.length, 4)
  assert.deepEqual(first.state.tasksRemaining, ['1.1', '1.2'])
  s.write(`${DIR}/tasks.md`, TASKS.replace('- [ ] 1.1', '- [x] 1.1'))
  const second = ws.advanceStateSync('add-auth', { checks: [{ name: 'npm test', result: 'PASS' }], expected: first.record })
  assert.equal(second.state.role, 'implementation')
  assert.deepEqual(second.state.tasksCompleted, ['1.1'])
  assert.deepEqual(second.state.checks, [{ name: 'npm test', result: 'PASS' }])
  // Started from the first record: someone else got there first.
  await assert.rejects(ws.advanceState('add-auth', { outcome: 'x', expected: first.record }), (e) => {
    assert.equal(e.code, 'pointer-conflict')
    assert.ok(e.message.includes(first.record) && e.message.includes(second.record), e.message)
    return true
  })
  // The Tasks file is the record: 1.2 is open there, so saying it is done needs a reason.
  assert.throws(() => ws.advanceStateSync('add-auth', { completed: ['1.1', '1.2'] }), (e) => {
    assert.equal(e.code, 'invalid-argument')
    assert.match(e.message, /1\.2.* is given as done but is open/)
    return true
  })
  const given = ws.advanceStateSync('add-auth', { completed: ['1.1', '1.2'], tasksReason: '1.2 shipped elsewhere' })
  assert.deepEqual([given.state.tasksCompleted, given.state.tasksRemaining], [['1.1', '1.2'], []])
  const log = await ws.stateLog('add-auth')
  assert.equal(log.length, 4 + 3)
  assert.equal(log[0].record, given.record)
  // The names of the envelope's fields are values here, as recorded: never re-cased.
  assert.deepEqual(log[2].changes.map((c) => c.field), ['role', 'affected_areas', 'tasks_remaining', 'next_outcome'])
  assert.deepEqual(ws.stateLogSync('add-auth'), log)
  if (!noCli) {
    const shown = JSON.parse(cli(['state', 'log', '--change', 'add-auth', '--json', '--workspace', s.w]).stdout)
    assert.deepEqual(camel(shown), log)
  }
})

test('recordValidation, checkValidation and finalizeCheck', async (t) => {
  const { s, ws } = approvedChange(t)
  const refused = { verdict: 'PASS', source: 'review 2', roots: ['src'], gates: ['test'] }
  await assert.rejects(ws.recordValidation('add-auth', refused), { code: 'validation-refused' })
  await ws.runGate('test', { argv: ['cat', 'src/login.js'], scope: { roots: ['src'] } })
  const pass = await ws.recordValidation('add-auth', refused)
  assert.equal(pass.state.validation.verdict, 'PASS')
  assert.deepEqual(pass.state.validation.capabilities, ['auth'])
  assert.equal(pass.state.validation.gates[0].gate, 'test')
  const check = ws.checkValidationSync('add-auth')
  assert.equal(check.stands, true)
  assert.equal(check.record, pass.record)
  assert.deepEqual(await ws.checkValidation('add-auth'), check)

  // An archive move by hand, the spec sync, a registry file.
  fs.mkdirSync(s.path('openspec/changes/archive'), { recursive: true })
  fs.renameSync(s.path(DIR), s.path(ARCHIVE))
  s.write('openspec/specs/auth/spec.md', SYNCED)
  s.write('docs/registry.md', 'add-auth\n')
  const done = await ws.finalizeCheck('add-auth', { expect: ['docs/registry.md'] })
  assert.equal(done.clean, true)
  assert.equal(done.archiveMove.files.length, 4)
  assert.deepEqual(done.specSync.map((c) => `${c.change} ${c.new.path}`), ['added openspec/specs/auth/spec.md'])
  assert.deepEqual(done.registry.map((c) => c.new.path), ['docs/registry.md'])
  if (!noCli) {
    const args = ['finalize', 'check', '--change', 'add-auth', '--expect', 'docs/registry.md', '--json', '--workspace', s.w]
    assert.deepEqual(camel(JSON.parse(cli(args).stdout)), done)
  }
  assert.deepEqual([done.specMismatches, done.syncUnverified], [[], []])
  // Unrelated text where the sync belongs: a new change naming the headers.
  s.write('openspec/specs/auth/spec.md', '# auth\n\nanything else\n')
  const replaced = await ws.finalizeCheck('add-auth', { expect: ['docs/registry.md'] })
  assert.equal(replaced.clean, false)
  assert.deepEqual(replaced.newChanges.map((c) => c.new.path), ['openspec/specs/auth/spec.md'])
  assert.deepEqual(replaced.specMismatches, [
    {
      capability: 'auth',
      path: 'openspec/specs/auth/spec.md',
      headers: ['### Requirement: Login', '(outside the requirement blocks)'],
    },
  ])
  if (!noCli) {
    const args = ['finalize', 'check', '--change', 'add-auth', '--expect', 'docs/registry.md', '--workspace', s.w]
    const out = cli(args, { ok: [1] })
    assert.match(out.stdout, /spec sync differs from the approved deltas \(1\):\n  capability auth/)
  }
  s.write('openspec/specs/auth/spec.md', SYNCED)
  s.write(`${ARCHIVE}/design.md`, '# Design, edited\n')
  const blocked = ws.finalizeCheckSync('add-auth')
  assert.equal(blocked.clean, false)
  assert.deepEqual(blocked.newChanges.map((c) => c.new.path), [`${ARCHIVE}/design.md`])
})

test('examples/recover.ts runs the recovery protocol: one check, one exit code', async (t) => {
  const { s, ws } = approvedChange(t)
  await ws.runGate('test', { argv: ['cat', 'src/login.js'], scope: { roots: ['src'] } })
  ws.advanceStateSync('add-auth', { role: 'implementation', blockers: ['API key'], next: 'validation' })
  s.write('src/login.js', 'export const login = () => 1\n')
  // Compiled against the package's types, run with the package resolvable by
  // its published name, 'ledger-fingerprint'.
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-recover-'))
  t.after(() => fs.rmSync(out, { recursive: true, force: true }))
  const tsc = path.join(packageDir, 'node_modules/.bin/tsc')
  run(tsc, ['-p', path.join(repoRoot, 'examples/tsconfig.json'), '--outDir', out])
  fs.mkdirSync(path.join(out, 'node_modules'), { recursive: true })
  fs.symlinkSync(packageDir, path.join(out, 'node_modules/ledger-fingerprint'))
  const text = run(process.execPath, [path.join(out, 'recover.js'), s.w], { ok: [1] }).stdout
  const { record } = ws.currentStateSync('add-auth')
  assert.equal(
    text,
    [
      `change add-auth (active, state record ${record})`,
      '  approval proposal: approved',
      '  approval specs: approved',
      '  approval design: approved',
      '  approval tasks: approved',
      '  role implementation, outcome -',
      '  tasks 0 of 2 done',
      '  blocker: API key',
      '  next: validation',
      'work tasks-left (add-auth): 2 of 2 tasks left in openspec/changes/add-auth/tasks.md: 1.1, 1.2',
      'work blocker (add-auth): blocked: API key',
      'work not-validated (add-auth): no verdict is recorded: record a validation when the change is done',
      'work to do',
      '',
    ].join('\n'),
  )
})
