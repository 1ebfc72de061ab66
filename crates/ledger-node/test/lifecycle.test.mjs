// The change lifecycle (docs/lifecycle.md) through the Node binding: the
// handoff, a validation PASS and the finalization check, with the same
// documents the CLI prints with --json.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'

import os from 'node:os'
import path from 'node:path'

import { cli, ledger, noCli, packageDir, repoRoot, run, Sandbox } from './helpers.mjs'

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
  const change = { workspace: s.w, change: 'add-auth' }
  for (const artifact of ['proposal', 'specs', 'design', 'tasks']) ledger.approveSync(change, artifact, 'review 1')
  return { s, change }
}

test('advanceState patches only the named fields and reads the task ids from the file', async (t) => {
  const { s, change } = approvedChange(t)
  const first = await ledger.advanceState(change, { role: 'implementation', areas: ['web'], next: 'validation' })
  assert.match(first.record, /^[0-9a-f]{64}$/)
  assert.equal(first.state.bindings.length, 4)
  assert.deepEqual(first.state.tasks_remaining, ['1.1', '1.2'])
  s.write(`${DIR}/tasks.md`, TASKS.replace('- [ ] 1.1', '- [x] 1.1'))
  const second = ledger.advanceStateSync(change, { checks: [{ name: 'npm test', result: 'PASS' }] }, first.record)
  assert.equal(second.state.role, 'implementation')
  assert.deepEqual(second.state.tasks_completed, ['1.1'])
  assert.deepEqual(second.state.checks, [{ name: 'npm test', result: 'PASS' }])
  // Started from the first record: someone else got there first.
  await assert.rejects(ledger.advanceState(change, { outcome: 'x' }, first.record), (e) => {
    assert.equal(e.code, 'pointer-conflict')
    assert.ok(e.message.includes(first.record) && e.message.includes(second.record), e.message)
    return true
  })
  const given = ledger.advanceStateSync(change, { completed: ['1.1', '1.2'] })
  assert.deepEqual([given.state.tasks_completed, given.state.tasks_remaining], [['1.1', '1.2'], []])
  const log = await ledger.stateLog(change)
  assert.equal(log.length, 4 + 3)
  assert.equal(log[0].record, given.record)
  assert.deepEqual(log[2].changes.map((c) => c.field), ['role', 'affected_areas', 'tasks_remaining', 'next_outcome'])
  assert.deepEqual(ledger.stateLogSync(change), log)
  if (!noCli) {
    const shown = JSON.parse(cli(['state', 'log', '--change', 'add-auth', '--json', '--workspace', s.w]).stdout)
    assert.deepEqual(shown, log)
  }
})

test('recordValidation, checkValidation and finalizeCheck', async (t) => {
  const { s, change } = approvedChange(t)
  const refused = { verdict: 'PASS', source: 'review 2', roots: ['src'], gates: ['test'] }
  await assert.rejects(ledger.recordValidation(change, refused), { code: 'validation-refused' })
  await ledger.runGate({
    name: 'test',
    argv: ['cat', 'src/login.js'],
    scope: { workspace: s.w, roots: ['src'] },
  })
  const pass = await ledger.recordValidation(change, refused)
  assert.equal(pass.state.validation.verdict, 'PASS')
  assert.deepEqual(pass.state.validation.capabilities, ['auth'])
  assert.equal(pass.state.validation.gates[0].gate, 'test')
  const check = ledger.checkValidationSync(change)
  assert.equal(check.stands, true)
  assert.equal(check.record, pass.record)
  assert.deepEqual(await ledger.checkValidation(change), check)

  // An archive move by hand, the spec sync, a registry file.
  fs.mkdirSync(s.path('openspec/changes/archive'), { recursive: true })
  fs.renameSync(s.path(DIR), s.path(ARCHIVE))
  s.write('openspec/specs/auth/spec.md', SYNCED)
  s.write('docs/registry.md', 'add-auth\n')
  const done = await ledger.finalizeCheck(change, ['docs/registry.md'])
  assert.equal(done.clean, true)
  assert.equal(done.archive_move.files.length, 4)
  assert.deepEqual(done.spec_sync.map((c) => `${c.change} ${c.new.path}`), ['added openspec/specs/auth/spec.md'])
  assert.deepEqual(done.registry.map((c) => c.new.path), ['docs/registry.md'])
  if (!noCli) {
    const args = ['finalize', 'check', '--change', 'add-auth', '--expect', 'docs/registry.md', '--json', '--workspace', s.w]
    assert.deepEqual(JSON.parse(cli(args).stdout), done)
  }
  assert.deepEqual([done.spec_mismatches, done.sync_unverified], [[], []])
  // Unrelated text where the sync belongs: a new change naming the headers.
  s.write('openspec/specs/auth/spec.md', '# auth\n\nanything else\n')
  const replaced = await ledger.finalizeCheck(change, ['docs/registry.md'])
  assert.equal(replaced.clean, false)
  assert.deepEqual(replaced.new_changes.map((c) => c.new.path), ['openspec/specs/auth/spec.md'])
  assert.deepEqual(replaced.spec_mismatches, [
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
  const blocked = ledger.finalizeCheckSync(change)
  assert.equal(blocked.clean, false)
  assert.deepEqual(blocked.new_changes.map((c) => c.new.path), [`${ARCHIVE}/design.md`])
})

test('examples/recover.ts runs the recovery protocol', async (t) => {
  const { s, change } = approvedChange(t)
  await ledger.runGate({ name: 'test', argv: ['cat', 'src/login.js'], scope: { workspace: s.w, roots: ['src'] } })
  ledger.advanceStateSync(change, { role: 'implementation', blockers: ['API key'], next: 'validation' })
  s.write('src/login.js', 'export const login = () => 1\n')
  // Compiled against the package's types, run with the package resolvable as '@ledger/node'.
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-recover-'))
  t.after(() => fs.rmSync(out, { recursive: true, force: true }))
  const tsc = path.join(packageDir, 'node_modules/.bin/tsc')
  run(tsc, ['-p', path.join(repoRoot, 'examples/tsconfig.json'), '--outDir', out])
  fs.mkdirSync(path.join(out, 'node_modules/@ledger'), { recursive: true })
  fs.symlinkSync(packageDir, path.join(out, 'node_modules/@ledger/node'))
  const text = run(process.execPath, [path.join(out, 'recover.js'), s.w]).stdout
  const { record } = ledger.currentStateSync(change)
  assert.equal(
    text,
    [
      `change add-auth (state record ${record})`,
      '  approval proposal: approved',
      '  approval specs: approved',
      '  approval design: approved',
      '  approval tasks: approved',
      '  all approvals stand: true',
      '  role implementation, outcome -',
      '  tasks done [], left ["1.1","1.2"]',
      '  blocker: API key',
      '  next outcome: validation',
      'gate test: stale (inputs-changed)',
      '',
    ].join('\n'),
  )
})
