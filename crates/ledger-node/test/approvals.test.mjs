// Approvals, state and the store on a real OpenSpec-shaped change: the same
// documents the CLI prints with --json, and the cascade of docs/approvals.md.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'

import { cli, ledger, noCli, Sandbox } from './helpers.mjs'

const CHANGE = 'openspec/changes/add-auth'

function openspecCheckout(t) {
  const s = new Sandbox(t)
  s.init()
  s.write(`${CHANGE}/proposal.md`, '# Why\n')
  s.write(`${CHANGE}/design.md`, '# Design\n![flow](flow.svg)\n')
  s.write(`${CHANGE}/flow.svg`, '<svg/>\n')
  s.write(`${CHANGE}/specs/auth/spec.md`, '## Requirement\n')
  s.write(`${CHANGE}/tasks.md`, '- [ ] 1.1 [core] Login\n')
  s.commitAll()
  return s
}

const states = (status) => status.artifacts.map((a) => a.state)

test('approve, status and the cascade', async (t) => {
  const s = openspecCheckout(t)
  const change = { workspace: s.w, change: 'add-auth' }
  const first = await ledger.status(change)
  assert.equal(first.change, 'add-auth')
  assert.equal(first.state_record, null)
  assert.deepEqual(states(first), ['unbound', 'unbound', 'unbound', 'unbound'])
  for (const artifact of ['proposal', 'specs', 'design', 'tasks']) {
    const binding = await ledger.approve(change, artifact, 'msg 7')
    assert.equal(binding.artifact, artifact)
    assert.equal(binding.source, 'msg 7')
    assert.match(binding.fingerprint, /^sha256:/)
    assert.equal(binding.fingerprint, (await ledger.changeInventory(change, artifact)).fingerprint)
  }
  assert.deepEqual(states(await ledger.status(change)), ['approved', 'approved', 'approved', 'approved'])
  // The design's set holds design.md and the material it links.
  const design = ledger.changeInventorySync(change, 'design')
  assert.deepEqual(
    design.entries.map((e) => e.path),
    [`${CHANGE}/design.md`, `${CHANGE}/flow.svg`],
  )
  // Ticking a task keeps everything approved; editing a material resets downstream.
  s.write(`${CHANGE}/tasks.md`, '- [x] 1.1 [core] Login\n')
  assert.deepEqual(states(ledger.statusSync(change)), ['approved', 'approved', 'approved', 'approved'])
  s.write(`${CHANGE}/flow.svg`, '<svg><g/></svg>\n')
  const after = await ledger.status(change)
  assert.deepEqual(states(after), ['approved', 'approved', 'changed', 'reset'])
  assert.deepEqual(after.artifacts[3].reset_by, ['design'])
  ledger.approveSync(change, 'design', 'msg 8')
  assert.deepEqual(states(await ledger.status(change)), ['approved', 'approved', 'approved', 'reset'])

  const { record, state } = await ledger.currentState(change)
  assert.match(record, /^[0-9a-f]{64}$/)
  assert.equal(state.change, 'add-auth')
  assert.deepEqual(
    state.bindings.map((b) => b.artifact),
    ['proposal', 'specs', 'tasks', 'design'],
  )
  const store = ledger.Store.open(s.w)
  assert.equal(await store.head('changes/add-auth'), record)
  assert.equal(store.headSync('changes/none'), null)
  const history = await store.history('changes/add-auth')
  assert.equal(history.length, 5)
  assert.equal(history[0], record)
  assert.deepEqual(store.historySync('changes/add-auth'), history)
  assert.deepEqual(await store.refs(), [{ name: 'changes/add-auth', id: record }])
  const report = await store.check()
  assert.equal(report.records, 5)
  assert.deepEqual(report.orphans, [])
  assert.deepEqual(store.checkSync(), report)
})

test('status, state, store check and the graph equal the CLI', { skip: noCli }, async (t) => {
  const s = openspecCheckout(t)
  const change = { workspace: s.w, change: 'add-auth' }
  cli(['approve', '--workspace', s.w, '--change', 'add-auth', '--artifact', 'proposal', '--source', 'cli'])
  await ledger.approve(change, 'design', 'node')
  s.write(`${CHANGE}/proposal.md`, '# Why not\n')
  const args = ['--workspace', s.w, '--change', 'add-auth']
  const cliStatus = JSON.parse(cli(['status', ...args, '--json'], { ok: [1] }).stdout)
  assert.deepEqual(await ledger.status(change), cliStatus)
  assert.deepEqual(states(cliStatus), ['changed', 'unbound', 'reset', 'unbound'])
  const shown = JSON.parse(cli(['state', 'show', '--json', ...args]).stdout)
  assert.deepEqual([await ledger.currentState(change)], shown)
  fs.writeFileSync(s.path('.ledger/tmp/interrupted'), 'half')
  const cliReport = JSON.parse(cli(['store', 'check', '--workspace', s.w, '--json'], { ok: [1] }).stdout)
  assert.deepEqual(await ledger.Store.open(s.w).check(), cliReport)
  assert.deepEqual(cliReport.temp_files, ['interrupted'])

  // A schema of its own: both read the same graph.
  const schema = `${s.dir}/schema.yaml`
  fs.writeFileSync(
    schema,
    'artifacts:\n  - {id: proposal, generates: proposal.md}\n  - {id: design, generates: design.md, requires: [proposal]}\n',
  )
  const graph = ledger.artifactGraph({ schema })
  assert.deepEqual(
    graph.artifacts.map((a) => a.id),
    ['proposal', 'design'],
  )
  assert.equal(graph.tracks, null)
  assert.deepEqual(await ledger.status({ ...change, schema }), JSON.parse(cli(['status', ...args, '--schema', schema, '--json'], { ok: [1] }).stdout))
  const spec = ledger.artifactGraph()
  assert.deepEqual(
    spec.artifacts.map((a) => [a.id, a.requires]),
    [
      ['proposal', []],
      ['specs', ['proposal']],
      ['design', ['proposal']],
      ['tasks', ['specs', 'design']],
    ],
  )
  assert.equal(spec.tracks, 'tasks.md')
})

test('concurrent approvals from the pool: each lands or reports pointer-conflict', async (t) => {
  const s = openspecCheckout(t)
  const change = { workspace: s.w, change: 'add-auth' }
  const results = await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) => ledger.approve(change, 'proposal', `msg ${i}`)),
  )
  let conflicts = 0
  for (const r of results) {
    if (r.status === 'rejected') {
      assert.equal(r.reason.code, 'pointer-conflict', r.reason.message)
      conflicts++
    }
  }
  t.diagnostic(`${results.length - conflicts} landed, ${conflicts} conflicted`)
  assert.ok(conflicts < results.length, 'at least one approval landed')
  const report = await ledger.Store.open(s.w).check()
  assert.equal(report.orphans.length, conflicts, 'each conflicted write stays as an orphan')
  assert.deepEqual(states(await ledger.status(change)).slice(0, 1), ['approved'])
})

test('exact answers: absent sets, changed paths, archived and gone changes, retire', async (t) => {
  const s = openspecCheckout(t)
  const change = { workspace: s.w, change: 'add-auth' }
  fs.rmSync(s.path(`${CHANGE}/specs`), { recursive: true })
  assert.deepEqual((await ledger.changeInventory(change, 'specs')).entries, [])
  await ledger.approve(change, 'proposal', 'm')
  await ledger.approve(change, 'specs', 'm', true)
  ledger.approveSync(change, 'design', 'm')
  ledger.approveSync(change, 'tasks', 'm')
  s.write('elsewhere.txt', 'unrelated\n')
  assert.deepEqual(states(await ledger.status(change)), ['approved', 'approved', 'approved', 'approved'])

  s.write(`${CHANGE}/flow.svg`, '<svg>v2</svg>\n')
  const changed = (await ledger.status(change)).artifacts[2]
  assert.equal(changed.state, 'changed')
  assert.deepEqual(
    changed.changes.map((c) => [c.change, c.new.path]),
    [['content-changed', `${CHANGE}/flow.svg`]],
  )
  s.write(`${CHANGE}/flow.svg`, '<svg/>\n')

  fs.mkdirSync(s.path('openspec/changes/archive'))
  fs.renameSync(s.path(CHANGE), s.path('openspec/changes/archive/2026-12-01-add-auth'))
  const archived = ledger.statusSync(change)
  assert.deepEqual(archived.location, { state: 'archived', directory: 'openspec/changes/archive/2026-12-01-add-auth' })
  assert.deepEqual(states(archived), ['archived', 'archived', 'archived', 'archived'])

  fs.rmSync(s.path('openspec/changes/archive'), { recursive: true })
  const gone = await ledger.status(change)
  assert.deepEqual(gone.location, { state: 'missing' })
  assert.deepEqual(states(gone), ['gone', 'gone', 'gone', 'gone'])
  const record = await ledger.retire(change, 'abandoned')
  assert.match(record, /^[0-9a-f]{64}$/)
  const retired = ledger.statusSync(change)
  assert.equal(retired.retired.reason, 'abandoned')
  assert.equal(retired.state_record, record)
  await assert.rejects(() => ledger.retire({ ...change, change: 'never' }, 'x'), { code: 'invalid-argument' })
})

test("a design's inline HTML image is a material", async (t) => {
  const s = openspecCheckout(t)
  s.write(`${CHANGE}/design.md`, '# Design\n<p><img src="mock.png" alt="mock"></p>\n')
  s.write(`${CHANGE}/mock.png`, 'png\n')
  const change = { workspace: s.w, change: 'add-auth' }
  const design = await ledger.changeInventory(change, 'design')
  assert.deepEqual(design.entries.map((e) => e.path), [`${CHANGE}/design.md`, `${CHANGE}/mock.png`])
  fs.rmSync(s.path(`${CHANGE}/mock.png`))
  await assert.rejects(() => ledger.changeInventory(change, 'design'), (e) => e.code === 'missing-material')
})
