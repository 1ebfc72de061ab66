// Approvals, state and the store on a real OpenSpec-shaped change: the same
// documents the CLI prints with --json, and the cascade of docs/approvals.md.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'

import { camel, cli, ledger, noCli, Sandbox } from './helpers.mjs'

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
  const ws = s.ws
  const first = await ws.status('add-auth')
  assert.equal(first.change, 'add-auth')
  assert.equal(first.stateRecord, null)
  assert.deepEqual(states(first), ['unbound', 'unbound', 'unbound', 'unbound'])
  for (const artifact of ['proposal', 'specs', 'design', 'tasks']) {
    const binding = await ws.approve('add-auth', artifact, { source: 'msg 7' })
    assert.equal(binding.artifact, artifact)
    assert.equal(binding.source, 'msg 7')
    assert.match(binding.fingerprint, /^sha256:/)
    assert.equal(binding.fingerprint, (await ws.changeInventory('add-auth', artifact)).fingerprint)
  }
  assert.deepEqual(states(await ws.status('add-auth')), ['approved', 'approved', 'approved', 'approved'])
  // The design's set holds design.md and the material it links.
  const design = ws.changeInventorySync('add-auth', 'design')
  assert.deepEqual(
    design.entries.map((e) => e.path),
    [`${CHANGE}/design.md`, `${CHANGE}/flow.svg`],
  )
  // Ticking a task keeps everything approved; editing a material resets downstream.
  s.write(`${CHANGE}/tasks.md`, '- [x] 1.1 [core] Login\n')
  assert.deepEqual(states(ws.statusSync('add-auth')), ['approved', 'approved', 'approved', 'approved'])
  s.write(`${CHANGE}/flow.svg`, '<svg><g/></svg>\n')
  const after = await ws.status('add-auth')
  assert.deepEqual(states(after), ['approved', 'approved', 'changed', 'reset'])
  assert.deepEqual(after.artifacts[3].resetBy, ['design'])
  ws.approveSync('add-auth', 'design', { source: 'msg 8' })
  assert.deepEqual(states(await ws.status('add-auth')), ['approved', 'approved', 'approved', 'reset'])

  const { record, state } = await ws.currentState('add-auth')
  assert.match(record, /^[0-9a-f]{64}$/)
  assert.equal(state.change, 'add-auth')
  assert.deepEqual(
    state.bindings.map((b) => b.artifact),
    ['proposal', 'specs', 'tasks', 'design'],
  )
  // The store is the workspace's own.
  assert.equal(await ws.head('changes/add-auth'), record)
  assert.equal(ws.headSync('changes/none'), null)
  const history = await ws.history('changes/add-auth')
  assert.equal(history.length, 5)
  assert.equal(history[0], record)
  assert.deepEqual(ws.historySync('changes/add-auth'), history)
  assert.deepEqual(await ws.refs(), [{ name: 'changes/add-auth', id: record }])
  assert.deepEqual(ws.refsSync(), [{ name: 'changes/add-auth', id: record }])
  const report = await ws.storeCheck()
  assert.equal(report.records, 5)
  assert.deepEqual(report.orphans, [])
  assert.equal(report.clean, true)
  assert.deepEqual(ws.storeCheckSync(), report)
  // A record read back is the one the ref names.
  const stored = await ws.storedRecord(record)
  assert.equal(stored.kind, 'state')
  assert.equal(stored.previous, history[1])
  assert.equal(stored.body.change, 'add-auth')
})

test('status, state, store check and the graph equal the CLI', { skip: noCli }, async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  cli(['approve', '--workspace', s.w, '--change', 'add-auth', '--artifact', 'proposal', '--source', 'cli'])
  await ws.approve('add-auth', 'design', { source: 'node' })
  s.write(`${CHANGE}/proposal.md`, '# Why not\n')
  const args = ['--workspace', s.w, '--change', 'add-auth']
  const cliStatus = JSON.parse(cli(['status', ...args, '--json'], { ok: [1] }).stdout)
  assert.deepEqual(await ws.status('add-auth'), camel(cliStatus))
  assert.deepEqual(states(cliStatus), ['changed', 'unbound', 'reset', 'unbound'])
  const shown = JSON.parse(cli(['state', 'show', '--json', ...args]).stdout)
  assert.deepEqual([await ws.currentState('add-auth')], camel(shown))
  fs.writeFileSync(s.path('.git/ledger/tmp/interrupted'), 'half')
  const cliReport = JSON.parse(cli(['store', 'check', '--workspace', s.w, '--json'], { ok: [1] }).stdout)
  const { clean, ...report } = await ws.storeCheck()
  assert.deepEqual(report, camel(cliReport))
  assert.equal(clean, false, 'a leftover temp file makes the store unclean, as the CLI exits 1')
  assert.deepEqual(cliReport.temp_files, ['interrupted'])

  // A schema of its own: both read the same graph.
  const schema = `${s.dir}/schema.yaml`
  fs.writeFileSync(
    schema,
    'artifacts:\n  - {id: proposal, generates: proposal.md}\n  - {id: design, generates: design.md, requires: [proposal]}\n',
  )
  const graph = ledger.artifactGraphSync({ schema })
  assert.deepEqual(
    graph.artifacts.map((a) => a.id),
    ['proposal', 'design'],
  )
  assert.equal(graph.tracks, null)
  assert.deepEqual(await ws.status('add-auth', { schema }), camel(JSON.parse(cli(['status', ...args, '--schema', schema, '--json'], { ok: [1] }).stdout)))
  // The change's graph under that schema is the same graph.
  assert.deepEqual((await ws.changeGraph('add-auth', { schema })).artifacts, graph.artifacts)
  const spec = await ledger.artifactGraph()
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
  const ws = s.ws
  const results = await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) => ws.approve('add-auth', 'proposal', { source: `msg ${i}` })),
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
  const report = await ws.storeCheck()
  assert.equal(report.orphans.length, conflicts, 'each conflicted write stays as an orphan')
  assert.deepEqual(states(await ws.status('add-auth')).slice(0, 1), ['approved'])
})

test('exact answers: absent sets, changed paths, archived and gone changes, retire', async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  fs.rmSync(s.path(`${CHANGE}/specs`), { recursive: true })
  assert.deepEqual((await ws.changeInventory('add-auth', 'specs')).entries, [])
  await ws.approve('add-auth', 'proposal', { source: 'm' })
  await ws.approve('add-auth', 'specs', { source: 'm', absent: true })
  ws.approveSync('add-auth', 'design', { source: 'm' })
  ws.approveSync('add-auth', 'tasks', { source: 'm' })
  s.write('elsewhere.txt', 'unrelated\n')
  assert.deepEqual(states(await ws.status('add-auth')), ['approved', 'approved', 'approved', 'approved'])

  s.write(`${CHANGE}/flow.svg`, '<svg>v2</svg>\n')
  const changed = (await ws.status('add-auth')).artifacts[2]
  assert.equal(changed.state, 'changed')
  assert.deepEqual(
    changed.changes.map((c) => [c.change, c.new.path]),
    [['content-changed', `${CHANGE}/flow.svg`]],
  )
  s.write(`${CHANGE}/flow.svg`, '<svg/>\n')

  fs.mkdirSync(s.path('openspec/changes/archive'))
  fs.renameSync(s.path(CHANGE), s.path('openspec/changes/archive/2026-12-01-add-auth'))
  const archived = ws.statusSync('add-auth')
  assert.deepEqual(archived.location, { state: 'archived', directory: 'openspec/changes/archive/2026-12-01-add-auth' })
  assert.deepEqual(states(archived), ['archived', 'archived', 'archived', 'archived'])

  fs.rmSync(s.path('openspec/changes/archive'), { recursive: true })
  const gone = await ws.status('add-auth')
  assert.deepEqual(gone.location, { state: 'missing' })
  assert.deepEqual(states(gone), ['gone', 'gone', 'gone', 'gone'])
  const record = await ws.retire('add-auth', { reason: 'abandoned' })
  assert.match(record, /^[0-9a-f]{64}$/)
  const retired = ws.statusSync('add-auth')
  assert.equal(retired.retired.reason, 'abandoned')
  assert.equal(retired.stateRecord, record)
  await assert.rejects(() => ws.retire('never', { reason: 'x' }), { code: 'invalid-argument' })
})

test("a design's inline HTML image is a material", async (t) => {
  const s = openspecCheckout(t)
  s.write(`${CHANGE}/design.md`, '# Design\n<p><img src="mock.png" alt="mock"></p>\n')
  s.write(`${CHANGE}/mock.png`, 'png\n')
  const ws = s.ws
  const design = await ws.changeInventory('add-auth', 'design')
  assert.deepEqual(design.entries.map((e) => e.path), [`${CHANGE}/design.md`, `${CHANGE}/mock.png`])
  fs.rmSync(s.path(`${CHANGE}/mock.png`))
  await assert.rejects(() => ws.changeInventory('add-auth', 'design'), (e) => e.code === 'missing-material')
})

test('the graph as data: upstream, downstream, the tracked artifact, one artifact; a change scope', async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  const graph = await ledger.artifactGraph()
  assert.deepEqual(await ledger.upstream(graph, 'tasks'), ['proposal', 'specs', 'design'])
  assert.deepEqual(ledger.downstreamSync(graph, 'proposal'), ['specs', 'design', 'tasks'])
  assert.equal((await ledger.tracked(graph)).id, 'tasks')
  assert.deepEqual(ledger.artifactSync(graph, 'design').requires, ['proposal'])
  await assert.rejects(ledger.artifact(graph, 'review'), { code: 'unknown-artifact' })
  // The change's own graph is the spec-driven one here.
  assert.deepEqual((await ws.changeGraph('add-auth')).artifacts, graph.artifacts)
  // The scope an approval of the design covers: design.md and the material it links.
  const scope = await ws.changeScope('add-auth', 'design')
  assert.deepEqual(scope.paths, [`${CHANGE}/design.md`, `${CHANGE}/flow.svg`])
  assert.equal(await ws.fingerprint({ paths: scope.paths }), (await ws.changeInventory('add-auth', 'design')).fingerprint)
  // worktreeRoot: the top of the checkout holding a path.
  assert.equal(await ledger.worktreeRoot(s.path(`${CHANGE}/specs`)), s.w)
  assert.equal(ledger.worktreeRootSync(s.dir), null)
})

test('observe: each prerequisite as a gate would record it now', async () => {
  const name = 'LEDGER_NODE_OBSERVE_UNSET'
  delete process.env[name]
  const observed = await ledger.observe({ tool: { literal: '1.0' }, unset: { environment: name }, shell: { command: 'echo  hi ' } })
  assert.deepEqual(observed, { tool: '1.0', unset: null, shell: 'hi' })
  assert.throws(() => ledger.observeSync({ failing: { command: 'exit 4' } }), { code: 'prerequisite-failed' })
})

test("an agent's parallel tool calls all land: Promise.all of four approvals and two gate runs", async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  for (const round of [0, 1, 2]) {
    await Promise.all([
      ...['proposal', 'specs', 'design', 'tasks'].map((artifact) =>
        ws.approve('add-auth', artifact, { source: `round ${round}` }),
      ),
      ...['unit', 'lint'].map((name) =>
        ws.runGate(name, { argv: ['true'], scope: { roots: ['openspec'] } }),
      ),
    ])
    assert.deepEqual(states(await ws.status('add-auth')), ['approved', 'approved', 'approved', 'approved'])
    const report = await ws.storeCheck()
    assert.equal(report.clean, true, JSON.stringify(report.orphans))
  }
})

test("nothing recorded is 'no-record', and 'none' is refused", async (t) => {
  const ws = openspecCheckout(t).ws
  await assert.rejects(ws.approve('add-auth', 'proposal', { source: 'msg 1', expected: 'none' }), (e) => {
    assert.equal(e.code, 'invalid-argument')
    assert.match(e.message, /no-record/)
    return true
  })
  assert.ok((await ws.storeCheck()).clean)
  assert.equal((await ws.currentState('add-auth')).record, null)
  await ws.approve('add-auth', 'proposal', { source: 'msg 1', expected: 'no-record' })
  await ws.approve('add-auth', 'design', { source: 'msg 2', expected: undefined })
})

test('a conflict is decided and gone from the checks', async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  await ws.approve('add-auth', 'proposal', { source: 'msg 1' })
  await assert.rejects(ws.approve('add-auth', 'design', { source: 'msg 2', expected: 'no-record' }), { code: 'pointer-conflict' })
  const [orphan] = (await ws.storeCheck()).orphans
  assert.equal(orphan.kind, 'state')
  assert.ok((await ws.check()).work.some((w) => w.kind === 'store'))
  const decision = await ws.decideOrphan(orphan.id, 'discard', 'approved again on the new head')
  assert.equal(decision.choice, 'discard')
  assert.equal((await ws.storeCheck()).clean, true)
  assert.ok((await ws.check()).work.every((w) => w.kind !== 'store'))
})

test('specs are approved against the baselines their deltas change', async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  const baseline = 'openspec/specs/auth/spec.md'
  s.write(baseline, '# auth\n')
  await Promise.all(['proposal', 'specs', 'design', 'tasks'].map((a) => ws.approve('add-auth', a, { source: 'r' })))
  const bound = (await ws.currentState('add-auth')).state.bindings.find((b) => b.artifact === 'specs')
  assert.deepEqual(bound.baselines.entries.map((e) => e.path), [baseline])
  s.write(baseline, '# auth, moved\n')
  const status = await ws.status('add-auth')
  assert.deepEqual(states(status), ['approved', 'changed', 'approved', 'reset'])
  assert.deepEqual(status.artifacts[1].baselinesMoved, [baseline])
  await ws.approve('add-auth', 'specs', { source: 'r2' })
  assert.deepEqual(states(await ws.status('add-auth')), ['approved', 'approved', 'approved', 'approved'])
})
