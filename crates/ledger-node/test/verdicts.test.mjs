// Verdicts of audits (docs/verdicts.md) through the Node door: recorded on any
// scope, standing until a fix, re-audited or downgraded explicitly; the same
// documents as `ledger verdict ... --json`, field names camelCased.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Sandbox, camel, cli, expectCode, noCli } from './helpers.mjs'

function audited(t) {
  const s = new Sandbox(t)
  s.write('plan.md', '# Plan\n')
  s.write('src/a.txt', 'a\n')
  return s
}

test('a verdict stands until a fix, then is downgraded explicitly', async (t) => {
  const s = audited(t)
  const ws = s.ws
  const recorded = await ws.verdictRecord('plan-7', {
    verdict: 'PASS',
    source: 'summary-7',
    findings: ['minor: wording'],
    reports: ['reports/summary-7.md'],
  })
  assert.equal(recorded.event, 'recorded')
  assert.deepEqual(recorded.findings, ['minor: wording'])
  assert.match(recorded.writtenAt, /^\d{4}-/)
  const own = recorded.scope.exclusions.find((e) => e.path === 'reports/summary-7.md')
  assert.match(own.reason, /^the verdict's own report/)

  s.write('reports/summary-7.md', 'PASS\n')
  assert.equal((await ws.verdictCheck('plan-7')).stands, true)

  s.write('src/a.txt', 'fixed\n')
  const fallen = ws.verdictCheckSync('plan-7')
  assert.equal(fallen.stands, false)
  assert.deepEqual(fallen.comparison.changes.map((c) => c.new.path), ['src/a.txt'])

  const lowered = await ws.verdictDowngrade('plan-7', { to: 'FAIL', reason: 'fixed after the verdict' })
  assert.deepEqual(lowered.downgrade, { from: 'PASS', reason: 'fixed after the verdict', audited: recorded.fingerprint })
  const now = await ws.verdictCheck('plan-7')
  assert.equal(now.stands, true)
  assert.equal(now.latest.verdict, 'FAIL')
  assert.deepEqual((await ws.verdictLog('plan-7')).map((r) => r.event), ['downgraded', 'recorded'])
})

test('a re-audit on a scope follows the first verdict', async (t) => {
  const s = audited(t)
  const ws = s.ws
  const first = await ws.verdictRecord('pr-1', { verdict: 'FAIL', source: 's1', scope: { roots: ['src'] } })
  s.write('plan.md', '# outside the scope\n')
  assert.equal((await ws.verdictCheck('pr-1')).stands, true)
  s.write('src/a.txt', 'fixed\n')
  const second = await ws.verdictRecord('pr-1', { verdict: 'PASS', source: 's2', scope: { roots: ['src'] } })
  assert.notEqual(second.fingerprint, first.fingerprint)
  assert.deepEqual((await ws.verdictLog('pr-1')).map((r) => r.record), [second.record, first.record])
})

test('refusals', async (t) => {
  const ws = audited(t).ws
  const never = await ws.verdictCheck('nope')
  assert.deepEqual([never.stands, never.latest, never.comparison], [false, null, null])
  await expectCode(assert, () => ws.verdictDowngrade('nope', { to: 'FAIL', reason: 'r' }), 'invalid-argument', 'nope', { pathProperty: false })
  await ws.verdictRecord('v', { verdict: 'FAIL', source: 's' })
  await expectCode(assert, () => ws.verdictDowngrade('v', { to: 'PASS', reason: 'r' }), 'invalid-argument', 'never by a downgrade', { pathProperty: false })
  await expectCode(assert, () => ws.verdictRecord('../v', { verdict: 'PASS', source: 's' }), 'bad-ref-name', 'verdicts/../v', { pathProperty: false })
  await expectCode(assert, () => ws.verdictRecord('v', { verdict: 'PASS', source: 's', scop: {} }), 'invalid-argument', 'scop', { pathProperty: false })
})

test('the door and the CLI give the same documents', { skip: noCli }, async (t) => {
  const s = audited(t)
  cli(['verdict', 'record', '--name', 'r', '--verdict', 'PASS', '--source', 's', '--workspace', s.w, '--finding', 'f'])
  const log = JSON.parse(cli(['verdict', 'log', '--name', 'r', '--workspace', s.w, '--json']).stdout)
  assert.deepEqual(camel(log), await s.ws.verdictLog('r'))
  const check = JSON.parse(cli(['verdict', 'check', '--name', 'r', '--workspace', s.w, '--json']).stdout)
  assert.deepEqual(camel(check), await s.ws.verdictCheck('r'))
})

test('writes name the record they started from', async (t) => {
  const ws = audited(t).ws
  const first = await ws.verdictRecord('plan-8', { verdict: 'FAIL', source: 'audit-1', expected: 'no-record' })
  assert.equal((await ws.verdictCheck('plan-8')).unproven, null)
  await expectCode(assert, () => ws.verdictRecord('plan-8', { verdict: 'PASS', source: 'audit-2', expected: 'no-record' }), 'pointer-conflict')
  const second = await ws.verdictRecord('plan-8', { verdict: 'PASS', source: 'audit-2', expected: first.record })
  await expectCode(assert, () => ws.verdictDowngrade('plan-8', { to: 'FAIL', reason: 'fixed', expected: first.record }), 'pointer-conflict')
  const lowered = await ws.verdictDowngrade('plan-8', { to: 'FAIL', reason: 'fixed', expected: second.record })
  assert.deepEqual((await ws.verdictLog('plan-8')).map((r) => r.record), [lowered.record, second.record, first.record])
})

test('a verdict records HEAD, and check says when only HEAD moved', async (t) => {
  const s = new Sandbox(t)
  s.init()
  s.write('src/a.txt', 'a\n')
  s.commitAll()
  const ws = s.ws
  const recorded = await ws.verdictRecord('pr-2', { verdict: 'PASS', source: 's', scope: { roots: ['src'] } })
  const before = s.git('rev-parse', 'HEAD').trim()
  assert.deepEqual(recorded.head, { commit: before, clean: true })
  s.write('docs/b.md', 'b\n')
  s.commitAll()
  const check = await ws.verdictCheck('pr-2')
  assert.equal(check.stands, true)
  assert.equal(check.headMoved, true)
  assert.equal(check.headNow, s.git('rev-parse', 'HEAD').trim())
})
