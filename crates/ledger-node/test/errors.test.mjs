// Every error code reachable from JavaScript, each from a real bad input: a
// `LedgerError` whose `code` is the core's code, with the path in the message
// and as `err.path`. Async calls reject (they never throw synchronously); their
// Sync twins throw the same error.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { expectCode, ledger, nativeAddon, packageDir, Sandbox, sampleCheckout, sha256hex, testHooksAddon, Workspace } from './helpers.mjs'

const covered = new Set()

/** Checks `code` on the async call and on its Sync twin. */
async function both(asyncCall, syncCall, code, pathText, opts) {
  const pending = asyncCall()
  assert.ok(pending instanceof Promise, 'the async call returns a Promise')
  const rejected = await expectCode(assert, () => pending, code, pathText, opts)
  const thrown = await expectCode(assert, syncCall, code, pathText, opts)
  assert.equal(rejected.message, thrown.message)
  assert.equal(rejected.path, thrown.path)
  covered.add(code)
  return rejected
}

/** Checks `code` on one call. */
async function one(call, code, pathText, opts) {
  const error = await expectCode(assert, call, code, pathText, opts)
  covered.add(code)
  return error
}

/** Both flavours of fingerprint on a scope of the workspace `w`. */
const fp = (code, w, options, pathText) => {
  const ws = new Workspace(w)
  return both(() => ws.fingerprint(options), () => ws.fingerprintSync(options), code, pathText)
}

test('expansion refuses: each blocking code of a real checkout', async (t) => {
  await t.test('conflict', async (t) => {
    const s = sampleCheckout(t)
    s.git('checkout', '-q', '-b', 'other')
    s.write('README.md', 'other\n')
    s.commitAll()
    s.git('checkout', '-q', 'main')
    s.write('README.md', 'main\n')
    s.commitAll()
    assert.throws(() => s.git('merge', '-q', 'other'), 'the merge must conflict')
    const e = await fp('conflict', s.w, {}, 'README.md')
    assert.equal(e.path, 'README.md')
    // Out of scope, the conflict does not block.
    assert.match(await s.ws.fingerprint({ roots: ['src'] }), /^sha256:/)
  })

  await t.test('special-file: a FIFO, and a directory where a file is tracked', async (t) => {
    const s = sampleCheckout(t)
    execFileSync('mkfifo', [s.path('notes.fifo')])
    await fp('special-file', s.w, { paths: ['notes.fifo'] }, 'notes.fifo')
    fs.rmSync(s.path('README.md'))
    s.write('README.md/inner', 'x')
    const e = await fp('special-file', s.w, {}, 'README.md')
    assert.equal(e.path, 'README.md')
  })

  await t.test('nested-repository', async (t) => {
    const s = sampleCheckout(t)
    s.write('nested/n.txt', 'n')
    s.gitIn('nested', 'init', '-q')
    await fp('nested-repository', s.w, {}, 'nested')
    // Declared, or excluded, it no longer blocks.
    const declared = await s.ws.inventory({ repos: ['.', 'nested'] })
    assert.ok(declared.entries.some((e) => e.path === 'nested/n.txt'))
    assert.match(await s.ws.fingerprint({ exclude: ['nested'] }), /^sha256:/)
  })

  await t.test('non-utf8-path', async (t) => {
    const s = sampleCheckout(t)
    fs.writeFileSync(Buffer.concat([Buffer.from(s.w + '/caf'), Buffer.from([0xe9]), Buffer.from('.txt')]), 'x')
    const e = await fp('non-utf8-path', s.w, {}, 'caf\\351.txt')
    assert.equal(e.path, 'caf\\351.txt')
  })

  await t.test('symlinked-parent', async (t) => {
    const s = sampleCheckout(t)
    fs.renameSync(s.path('src'), s.path('real-src'))
    fs.symlinkSync('real-src', s.path('src'))
    const e = await fp('symlinked-parent', s.w, { roots: ['src'] }, 'src/deep/er/x.txt')
    assert.match(e.message, /lies below the symlink 'src'/)
  })

  await t.test('invalid-path and outside-workspace', async (t) => {
    const s = sampleCheckout(t)
    await fp('invalid-path', s.w, { paths: ['a//b'] }, 'a//b')
    await fp('invalid-path', s.w, { tasks: ['./tasks.md'] }, './tasks.md')
    await fp('outside-workspace', s.w, { paths: ['../outside'] }, '../outside')
    await fp('outside-workspace', s.w, { roots: ['/etc'] }, '/etc')
    await fp('outside-workspace', s.w, { exclude: ['/'] }, '/')
  })

  await t.test('git: a declared repository that is none', async (t) => {
    const s = new Sandbox(t)
    s.write('plain/f.txt', 'f')
    await fp('git', s.w, { repos: ['plain'] }, 'plain')
  })

  await t.test('invalid-gitfile: a .git file that names no repository', async (t) => {
    const s = new Sandbox(t)
    s.write('a.txt', 'a')
    s.write('.git', 'gitdir: /nonexistent/ledger.git\n')
    await fp('invalid-gitfile', s.w, {}, '.git')
  })

  await t.test('git-environment: GIT_WORK_TREE names another directory', async (t) => {
    const s = new Sandbox(t)
    s.init()
    const elsewhere = path.join(s.dir, 'elsewhere')
    fs.mkdirSync(elsewhere)
    const saved = process.env.GIT_WORK_TREE
    process.env.GIT_WORK_TREE = elsewhere
    t.after(() => {
      if (saved === undefined) delete process.env.GIT_WORK_TREE
      else process.env.GIT_WORK_TREE = saved
    })
    const e = await fp('git-environment', s.w, {})
    assert.match(e.message, /GIT_WORK_TREE/)
  })

  await t.test('unreadable: a workspace that does not exist', async (t) => {
    const s = new Sandbox(t)
    const missing = path.join(s.dir, 'nowhere')
    await fp('unreadable', missing, {}, 'nowhere')
  })

  await t.test('untrusted-repository: owned by another user', async (t) => {
    if (process.getuid() !== 0) return t.skip('needs root to give the repository away')
    const s = sampleCheckout(t)
    execFileSync('chown', ['-R', '65534:65534', s.w])
    await fp('untrusted-repository', s.w, {}, s.w)
  })
})

test('records refuse: malformed-record, unsupported-version, unreadable', async (t) => {
  const s = sampleCheckout(t)
  const good = await ledger.inventoryRecord(await s.ws.inventory())
  const bad = (edit) => {
    const v = JSON.parse(good)
    edit(v)
    return JSON.stringify(v)
  }
  const cases = [
    ['malformed-record', good.slice(0, good.length / 2)],
    ['malformed-record', bad((v) => (v.entries[0].digest = 'ef'.repeat(32)))],
    ['malformed-record', bad((v) => v.entries.reverse())],
    ['unsupported-version', bad((v) => (v.version = '2.0'))],
    ['unsupported-version', bad((v) => (v.format = 'something'))],
  ]
  for (const [code, text] of cases) {
    await both(
      () => ledger.parseRecord(text, { source: 'bad.json' }),
      () => ledger.parseRecordSync(text, { source: 'bad.json' }),
      code,
      'bad.json',
    )
    const file = path.join(s.dir, 'bad.json')
    fs.writeFileSync(file, text)
    await both(() => ledger.readRecord(file), () => ledger.readRecordSync(file), code, 'bad.json')
  }
  const absent = path.join(s.dir, 'absent.json')
  await both(() => ledger.readRecord(absent), () => ledger.readRecordSync(absent), 'unreadable', 'absent.json')
})

test('fingerprintEntries refuses: bad-entry, duplicate-entry, invalid paths', async () => {
  const d = sha256hex('x')
  const e = (p, kind = 'file', mode = '100644', digest = d) => ({ path: p, kind, mode, digest })
  const entries = (code, list, pathText) =>
    both(() => ledger.fingerprintEntries(list), () => ledger.fingerprintEntriesSync(list), code, pathText)
  await entries('bad-entry', [e('a', 'file', '120000')], 'a')
  await entries('bad-entry', [e('a', 'dir', '040000')], 'a')
  await entries('bad-entry', [e('a', 'file', '100644', 'XYZ')], 'a')
  await entries('bad-entry', [e('a', 'missing', '-', d)], 'a')
  await entries('duplicate-entry', [e('b'), e('a'), e('b')], 'b')
  await entries('outside-workspace', [e('../a')], '../a')
  await entries('invalid-path', [e('a/')], 'a/')
  // A fingerprint given as text: canonical, or refused.
  assert.equal(await ledger.parseFingerprint(`sha256:${d}`), `sha256:${d}`)
  await both(() => ledger.parseFingerprint('sha256:xyz'), () => ledger.parseFingerprintSync('sha256:xyz'), 'bad-fingerprint', 'sha256:xyz', {
    pathProperty: false,
  })
})

const CHANGE = 'openspec/changes/add-auth'

function openspecCheckout(t) {
  const s = new Sandbox(t)
  s.init()
  s.write(`${CHANGE}/proposal.md`, '# Why\n')
  s.write(`${CHANGE}/design.md`, '# Design\n![flow](flow.svg)\n[dir](specs)\n')
  s.write(`${CHANGE}/flow.svg`, '<svg/>\n')
  s.write(`${CHANGE}/specs/auth/spec.md`, '## Requirement\n')
  s.write(`${CHANGE}/tasks.md`, '- [ ] 1.1 [core] Login\n')
  s.commitAll()
  return s
}

test('approvals refuse: materials, artifacts, graphs, sources, the store', async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  /** `verb` of the workspace, async and Sync, with the same arguments. */
  const call = (verb, ...args) => [() => ws[verb](...args), () => ws[`${verb}Sync`](...args)]
  // A design document past the bound ledger reads documents with.
  const design = fs.readFileSync(s.path(`${CHANGE}/design.md`))
  fs.truncateSync(s.path(`${CHANGE}/design.md`), 17 * 1024 * 1024)
  await both(...call('changeInventory', 'add-auth', 'design'), 'too-large', 'design.md')
  fs.writeFileSync(s.path(`${CHANGE}/design.md`), design)
  // design.md links a directory: ambiguous.
  await both(...call('changeInventory', 'add-auth', 'design'), 'ambiguous-material', 'design.md')
  s.write(`${CHANGE}/design.md`, '# Design\n![flow](flow.svg)\n')
  fs.rmSync(s.path(`${CHANGE}/flow.svg`))
  const missing = await both(...call('approve', 'add-auth', 'design', { source: 'msg 1' }), 'missing-material', 'design.md')
  assert.match(missing.message, /flow\.svg/)
  await both(...call('approve', 'add-auth', 'review', { source: 'msg 1' }), 'unknown-artifact', 'review', {
    pathProperty: false,
  })
  await both(...call('approve', 'add-auth', 'proposal', { source: '  ' }), 'missing-source', 'proposal', {
    pathProperty: false,
  })
  await one(() => ws.approveSync('a/b', 'proposal', { source: 'm' }), 'invalid-path', 'a/b')
  // A mistyped change, an upstream that cannot be fingerprinted, a set that is absent.
  await both(...call('approve', 'add-atuh', 'proposal', { source: 'm' }), 'unknown-change', 'add-atuh')
  await both(...call('approve', 'add-auth', 'tasks', { source: 'm' }), 'upstream-blocked', 'design', {
    pathProperty: false,
  })
  fs.rmSync(s.path(`${CHANGE}/proposal.md`))
  await both(
    () => ws.approve('add-auth', 'proposal', { source: 'm' }),
    () => ws.approveSync('add-auth', 'proposal', { source: 'm', absent: false }),
    'absent-artifact',
    'proposal.md',
    { pathProperty: false },
  )
  s.write(`${CHANGE}/proposal.md`, '# Why\n')

  // Graphs: a cycle, an unknown requirement, a schema that is no graph.
  const graph = (options) => [() => ledger.artifactGraph(options), () => ledger.artifactGraphSync(options)]
  const cycle = 'artifacts:\n  - {id: a, generates: a.md, requires: [b]}\n  - {id: b, generates: b.md, requires: [a]}\n'
  await both(...graph({ yaml: cycle }), 'graph-cycle', 'a, b', { pathProperty: false })
  const schema = path.join(s.dir, 'schema.yaml')
  fs.writeFileSync(schema, cycle)
  await both(...call('status', 'add-auth', { schema }), 'graph-cycle', 'a', { pathProperty: false })
  const unknown = 'artifacts:\n  - {id: a, generates: a.md, requires: [zz]}\n'
  await both(...graph({ yaml: unknown }), 'unknown-artifact', 'zz', { pathProperty: false })
  await both(...graph({ yaml: 'artifacts: 3\n', source: 'mine.yaml' }), 'bad-schema', 'mine.yaml')
  await both(...graph({ schema: path.join(s.dir, 'none.yaml') }), 'unreadable', 'none.yaml')
  await both(...graph({ schema, yaml: cycle }), 'invalid-argument', 'yaml', { pathProperty: false })
  // Schemas by name: one that is nowhere; a change whose .openspec.yaml lacks `schema:`.
  await both(...call('status', 'add-auth', { schema: 'rapdi' }), 'unknown-schema', 'openspec/schemas/rapdi/schema.yaml')
  s.write(`${CHANGE}/.openspec.yaml`, 'created: 2026-12-01\n')
  await both(...call('status', 'add-auth'), 'bad-openspec-config', '.openspec.yaml')
  fs.rmSync(s.path(`${CHANGE}/.openspec.yaml`))
  // ledger.toml: a gate without a command; gates that need each other.
  s.write('ledger.toml', '[gates.test]\ncommand = []\n')
  await both(...call('declaredGates'), 'bad-gate-declaration', 'ledger.toml')
  s.write('ledger.toml', '[gates.a]\ncommand = ["true"]\nneeds = ["b"]\n[gates.b]\ncommand = ["true"]\nneeds = ["a"]\n')
  await both(...call('runDeclaredGates', { echo: 'off' }), 'gate-cycle', 'a, b', { pathProperty: false })
  fs.rmSync(s.path('ledger.toml'))

  // The store: a bad ref name, a corrupt ref, an unwritable ref, an untrusted store.
  await both(...call('head', '../x'), 'bad-ref-name', '../x', { pathProperty: false })
  // The checkout's store is the repository's (docs/sharing.md): a ref that names
  // a blob, not a record commit, is corrupt.
  const blob = s.git('hash-object', '-w', `${CHANGE}/proposal.md`).toString().trim()
  s.git('update-ref', 'refs/ledger/heads/changes/add-auth', blob)
  await both(...call('refs'), 'corrupt-record', 'add-auth')
  await both(...call('currentState', 'add-auth'), 'corrupt-record', 'add-auth')
  s.git('update-ref', '-d', 'refs/ledger/heads/changes/add-auth')
  // A file named `records` where the store's directory of records belongs.
  fs.mkdirSync(s.path('.git/ledger'), { recursive: true })
  fs.writeFileSync(s.path('.git/ledger/records'), 'not a directory\n')
  await both(...call('approve', 'add-auth', 'proposal', { source: 'msg 1' }), 'unwritable', '.git/ledger/records')
  fs.rmSync(s.path('.git/ledger/records'))
  fs.rmSync(s.path('.ledger'), { recursive: true })
  fs.writeFileSync(s.path('.ledger'), 'a file where the store directory belongs')
  await both(...call('approve', 'add-auth', 'proposal', { source: 'msg 1' }), 'untrusted-store', '.ledger')
})

test('gates refuse: prerequisites, commands, names', async (t) => {
  const s = sampleCheckout(t)
  const ws = s.ws
  const spec = (extra) => ({ argv: ['true'], ...extra })
  /** check_gate or run_gate of the gate `name` (default `test`), async and Sync. */
  const gate = (verb, options, name = 'test') => [() => ws[verb](name, options), () => ws[`${verb}Sync`](name, options)]
  const failing = spec({ prerequisites: { tool: { command: 'exit 4' } } })
  await both(...gate('checkGate', failing), 'prerequisite-failed', 'tool', { pathProperty: false })
  const absent = spec({ argv: ['/nonexistent/tool'] })
  await both(...gate('runGate', absent), 'gate-not-started', '/nonexistent/tool', { pathProperty: false })
  // An aborted signal: nothing runs (gates.test.mjs aborts one that runs).
  const aborted = spec({ signal: AbortSignal.abort() })
  await both(...gate('runGate', aborted), 'cancelled', 'test', { pathProperty: false })
  // An exclusion that holds nothing.
  await both(() => ws.fingerprint({ exclude: ['nothing-*.md'] }), () => ws.fingerprintSync({ exclude: ['nothing-*.md'] }), 'unmatched-exclusion', 'nothing-*.md')
  // A writer asked of a read-only caller of the agent's tools.
  const readOnly = { arguments: { change: 'c', artifact: 'proposal', source: 'm' }, readOnly: true }
  await both(() => ws.agentCall('approve', readOnly), () => ws.agentCallSync('approve', readOnly), 'read-only', 'approve', { pathProperty: false })
  const twoWays = spec({ prerequisites: { tool: { literal: '1', command: 'echo 1' } } })
  await both(...gate('checkGate', twoWays), 'invalid-argument', 'tool', { pathProperty: false })
  await both(...gate('runGate', spec(), '../x'), 'bad-ref-name', '../x', { pathProperty: false })
  // Values that are not text are refused, never replaced by U+FFFD.
  const bytes = spec({ prerequisites: { tool: { command: "printf 'v\\377'" } } })
  await both(...gate('checkGate', bytes), 'non-utf8-value', 'v\\377', { pathProperty: false })
  const surrogate = spec({ prerequisites: { tool: { literal: 'v\uD800' } } })
  await both(...gate('runGate', surrogate), 'non-utf8-value', '"v\\ud800"', { pathProperty: false })
  const outside = spec({ scope: { roots: ['../up'] } })
  await both(...gate('checkGate', outside), 'outside-workspace', '../up')
  // A verdict's report that is a directory: its files would leave the judged state.
  const verdict = (sync) => () =>
    (sync ? ws.verdictRecordSync : ws.verdictRecord).call(ws, 'v', { verdict: 'PASS', source: 'review', reports: ['src'] })
  await both(verdict(false), verdict(true), 'bad-report', 'src')
})

test('the lifecycle refuses: preconditions of a PASS, no PASS, record ids, a moved pointer', async (t) => {
  const s = new Sandbox(t)
  s.write('openspec/changes/c/proposal.md', '# Why\n')
  const ws = s.ws
  const call = (verb, ...args) => [() => ws[verb](...args), () => ws[`${verb}Sync`](...args)]
  const nothing = { verdict: 'PASS', source: 'review 1' }
  await both(...call('recordValidation', 'c', nothing), 'no-delivery', 'delivery', { pathProperty: false })
  const pass = { verdict: 'PASS', source: 'review 1', noDelivery: 'a planning-only change' }
  await both(...call('recordValidation', 'c', pass), 'validation-refused', 'artifact proposal is unbound', {
    pathProperty: false,
  })
  const moved = { source: 'review 1', reviewed: `sha256:${'0'.repeat(64)}` }
  await both(...call('approve', 'c', 'proposal', moved), 'fingerprint-moved', 'openspec/changes/c/proposal.md', {
    pathProperty: false,
  })
  await both(...call('finalizeCheck', 'c'), 'not-validated', 'is not validated', { pathProperty: false })
  await both(...call('advanceState', 'c', { expected: 'xyz' }), 'bad-record-id', 'xyz', { pathProperty: false })
  const first = ws.advanceStateSync('c', { role: 'planning' })
  ws.advanceStateSync('c', { role: 'implementation' })
  // Each refused write leaves its own orphan, so the two messages differ.
  const late = { role: 'validation', expected: first.record }
  await one(() => ws.advanceState('c', late), 'pointer-conflict', first.record, { pathProperty: false })
  await one(() => ws.advanceStateSync('c', late), 'pointer-conflict', first.record, { pathProperty: false })
})

test('a panic becomes a LedgerError with code panic, never a crash', async () => {
  // The addon built with the test hooks has one verb more, `_panic` (its
  // `message` is the panic's): it exists to panic inside the door, on the
  // pool and on the main thread. Its reply is the door's error, which the
  // package's wrapper turns into a LedgerError like any other.
  const addon = testHooksAddon()
  const pending = addon.call(null, '_panic', JSON.stringify({ message: 'boom on the pool' }))
  assert.ok(pending instanceof Promise)
  const onPool = JSON.parse(await pending)
  const onMain = JSON.parse(addon.callSync(null, '_panic', JSON.stringify({ message: 'boom on the main thread' })))
  for (const [reply, text] of [[onPool, 'boom on the pool'], [onMain, 'boom on the main thread']]) {
    assert.equal(reply.ok, undefined)
    assert.equal(reply.error.code, 'panic')
    assert.ok(reply.error.message.includes(text), reply.error.message)
    assert.match(reply.error.message, /this is a bug in ledger/)
    const error = new ledger.LedgerError(reply.error.message, reply.error.code, reply.error.path)
    await one(() => Promise.reject(error), 'panic', text, { pathProperty: false })
  }
  // The process is fine, and so is the next call, in the same addon.
  const next = JSON.parse(addon.callSync(null, 'fingerprint_entries', JSON.stringify({ entries: [] })))
  assert.equal(next.ok, 'sha256:8a18fdb2a6e200deb5edc4025b5b0e99becb62f3e387dc915ec196d04f65fe99')
  assert.equal(ledger.fingerprintEntriesSync([]), next.ok)
  // The hook is no part of the typed API, nor of the addon that is published.
  const dts = fs.readFileSync(path.join(packageDir, 'index.d.ts'), 'utf8')
  assert.ok(!/panicForTest|_panic/.test(dts))
  assert.ok(!('_panic' in ledger) && !('panic' in ledger))
  assert.ok(!JSON.parse(nativeAddon().description()).verbs.some((v) => v.name === '_panic'))
  const refused = JSON.parse(nativeAddon().callSync(null, '_panic', JSON.stringify({ message: 'x' })))
  assert.equal(refused.error.code, 'invalid-argument', 'a release build has no panic verb')
})

test('a shared store refuses: heads that went apart, bad keys, bad allowed signers', async (t) => {
  const s = new Sandbox(t)
  s.init()
  for (const change of ['add-auth', 'other']) s.write(`openspec/changes/${change}/proposal.md`, '# Why\n')
  const ws = new Workspace(s.w)
  await ws.approve('add-auth', 'proposal', { source: 'here' })
  await ws.approve('other', 'proposal', { source: 'there' })
  // A fetched head of add-auth that does not descend from the local one.
  s.git('update-ref', 'refs/ledger/remotes/origin/changes/add-auth', 'refs/ledger/heads/changes/other')
  await both(() => ws.status('add-auth'), () => ws.statusSync('add-auth'), 'divergent-heads', 'changes/add-auth', {
    pathProperty: false,
  })
  s.git('update-ref', '-d', 'refs/ledger/remotes/origin/changes/add-auth')
  // Signing settings are the workspace's: each case gets a workspace of its own.
  const key = `${s.dir}/key`
  fs.writeFileSync(key, 'not a key\n')
  const signer = new Workspace(s.w, { signingKey: key, environment: false })
  const approve = (sync) => () => (sync ? signer.approveSync : signer.approve).call(signer, 'add-auth', 'proposal', { source: 'm' })
  await both(approve(false), approve(true), 'bad-signing-key', 'key')
  const allowed = `${s.dir}/allowed`
  fs.writeFileSync(allowed, 'alice@example.com\n')
  const judge = new Workspace(s.w, { allowedSigners: allowed, environment: false })
  const seen = (sync) => () => (sync ? judge.provenanceSync : judge.provenance).call(judge, 'changes/add-auth')
  await both(seen(false), seen(true), 'bad-allowed-signers', 'allowed')
})

test('the Git store: a stale ref lock, a ref name beside another, and unlocking', async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  const call = (verb, ...args) => [() => ws[verb](...args), () => ws[`${verb}Sync`](...args)]
  await ws.approve('add-auth', 'proposal', { source: 'm' })
  /** The lock file a writer killed between taking a ref's lock and renaming it leaves. */
  const leaveLock = (ref, ageSeconds) => {
    const lock = s.path(`.git/refs/ledger/heads/${ref}.lock`)
    fs.mkdirSync(path.dirname(lock), { recursive: true })
    fs.writeFileSync(lock, '')
    const then = new Date(Date.now() - ageSeconds * 1000)
    fs.utimesSync(lock, then, then)
    return lock
  }
  const old = leaveLock('changes/add-auth', 7200)
  const young = leaveLock('gates/test', 0)
  const locked = await both(...call('approve', 'add-auth', 'specs', { source: 'm' }), 'ref-locked', 'add-auth.lock')
  assert.match(locked.message, /abandoned/)
  const report = await ws.storeCheck()
  assert.equal(report.clean, false)
  assert.deepEqual(
    report.locks.map((l) => [l.file, l.abandoned]),
    [['refs/ledger/heads/changes/add-auth.lock', true], ['refs/ledger/heads/gates/test.lock', false]],
  )
  await expectCode(assert, () => ws.storeUnlock({ olderThanSeconds: 5 }), 'invalid-argument', '1m', { pathProperty: false })
  const unlocked = await ws.storeUnlock()
  assert.deepEqual(unlocked.removed.map((l) => l.file), ['refs/ledger/heads/changes/add-auth.lock'])
  assert.deepEqual(unlocked.kept.map((l) => l.file), ['refs/ledger/heads/gates/test.lock'])
  assert.ok(!fs.existsSync(old) && fs.existsSync(young))
  await ws.approve('add-auth', 'specs', { source: 'm' })
  // A verdict `x/y` beside a verdict `x`: Git keeps refs as files.
  const verdict = (name) => (sync) => () =>
    (sync ? ws.verdictRecordSync : ws.verdictRecord).call(ws, name, { verdict: 'PASS', source: 'r', scope: { roots: ['openspec'] } })
  await verdict('x')(false)()
  await both(verdict('x/y')(false), verdict('x/y')(true), 'ref-name-conflict', 'verdicts/x', { pathProperty: false })
})

// Codes no call of this package can produce from a real input, and why.
const unreachable = {
  'changed-while-reading': 'needs a writer racing the read; the core tests it with a deterministic hook',
  'chain-mismatch': 'only Store::advance with a hand-made record reaches it; not exposed',
}

test('every code of the core is covered here or explained', () => {
  const codes = Object.values(ledger.ErrorCode)
  assert.ok(codes.includes('conflict') && codes.includes('panic'))
  for (const code of codes) {
    assert.ok(covered.has(code) || code in unreachable, `code ${code} is neither tested nor explained`)
    assert.ok(!(covered.has(code) && code in unreachable), `code ${code} is both tested and called unreachable`)
  }
})
