// The door itself, as a JavaScript user meets it: options it does not
// understand are refused with `invalid-argument` naming the key, nothing
// Promise-returning ever throws synchronously, `LedgerError` is a real class,
// `ErrorCode` lists every code, and camelCase renames struct fields only —
// never map keys (paths, prerequisite and metadata names) nor string values.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { camelName, expectCode, ledger, LedgerError, nativeAddon, packageDir, repoRoot, Sandbox, Workspace } from './helpers.mjs'

/** The door's own description (every verb, its options and output schemas, every error code). */
const description = JSON.parse(nativeAddon().description())

/** Every verb, as JavaScript names it; `workspace`: a Workspace method, else a free function. */
const verbs = description.verbs.map((v) => ({ ...v, js: camelName(v.name) }))
const methods = verbs.filter((v) => v.workspace)
const free = verbs.filter((v) => !v.workspace)

test('every verb of the description is a Workspace method or a free function, each with a Sync twin', () => {
  assert.ok(verbs.length >= 40, `only ${verbs.length} verbs described`)
  for (const v of verbs) {
    const onWorkspace = typeof Workspace.prototype[v.js] === 'function'
    const exported = typeof ledger[v.js] === 'function'
    assert.equal(onWorkspace, v.workspace, `${v.name}: Workspace#${v.js}`)
    assert.equal(exported, !v.workspace, `${v.name}: the free function ${v.js}`)
    const owner = onWorkspace ? Workspace.prototype : ledger
    assert.equal(typeof owner[`${v.js}Sync`], 'function', `${v.js}Sync`)
  }
  for (const name of ['fingerprint', 'inventory', 'status', 'approve', 'runGate', 'checkGate', 'recordValidation']) {
    assert.ok(methods.some((v) => v.js === name), `Workspace#${name}`)
  }
  for (const name of ['fingerprintEntries', 'normalizeTasks', 'readTasks', 'parseRecord', 'artifactGraph', 'workspaceSettings']) {
    assert.ok(free.some((v) => v.js === name), `free function ${name}`)
  }
  // No old handle class is left.
  for (const gone of ['Store', 'Inventory', 'Scope', 'ChangeSet', 'GateSpec']) assert.equal(ledger[gone], undefined, gone)
})

test('an unknown option key is invalid-argument naming the key and what is expected', async (t) => {
  const s = new Sandbox(t)
  s.write('src/a.txt', 'a\n')
  const ws = s.ws
  // `root` for `roots`: refused, async and Sync, whatever the verb.
  for (const call of [() => ws.fingerprint({ root: ['src'] }), () => ws.fingerprintSync({ root: ['src'] }), () => ws.inventory({ root: ['src'] })]) {
    const e = await expectCode(assert, call, 'invalid-argument', '`root`', { pathProperty: false })
    assert.match(e.message, /`roots`/, 'the message names the key that was meant')
    assert.ok(!e.path, `no path for an option error: ${e.path}`)
  }
  // Keys are the JavaScript (camelCase) names: the snake_case spelling is unknown, and so named.
  const snake = await expectCode(assert, () => ws.status('c', { changes_root: 'x' }), 'invalid-argument', '`changes_root`', {
    pathProperty: false,
  })
  assert.match(snake.message, /`changesRoot`/)
  await expectCode(assert, () => ws.fingerprint({ task_rule: 'openspec-checkbox' }), 'invalid-argument', '`task_rule`', {
    pathProperty: false,
  })
  // The verb is named as JavaScript calls it.
  const verb = await expectCode(assert, () => ws.checkGate('t', { argv: ['true'], argvs: [] }), 'invalid-argument', '`argvs`', {
    pathProperty: false,
  })
  assert.ok(verb.message.includes('checkGate') && !verb.message.includes('check_gate'), verb.message)
  // Nested options are checked too, and named by their path.
  await expectCode(assert, () => ws.checkGate('t', { argv: ['true'], scope: { root: ['src'] } }), 'invalid-argument', 'root', {
    pathProperty: false,
  })
  // A free function refuses the same way.
  await expectCode(assert, () => ledger.normalizeTasks(Buffer.from(''), { rules: 'openspec-checkbox' }), 'invalid-argument', '`rules`', {
    pathProperty: false,
  })
  // The same options, well spelled, are accepted.
  assert.match(await ws.fingerprint({ roots: ['src'] }), /^sha256:/)
})

test('a wrong type is invalid-argument naming the key', async (t) => {
  const s = new Sandbox(t)
  s.write('src/a.txt', 'a\n')
  const ws = s.ws
  const cases = [
    [() => ws.fingerprint({ roots: 3 }), 'roots'],
    [() => ws.fingerprint({ roots: 'src' }), 'roots'], // a string is not a list of one
    [() => ws.fingerprint({ roots: ['src', 7] }), 'roots'],
    [() => ws.fingerprint({ purpose: ['x'] }), 'purpose'],
    [() => ws.fingerprint({ taskRule: 'v2' }), 'taskRule'],
    [() => ws.fingerprintSync({ exclude: [{ path: 'src' }] }), 'exclude'],
    [() => ws.approve('c', 'proposal', { source: 42 }), 'source'],
    [() => ws.approve('c', 'proposal', { source: 'm', absent: 'yes' }), 'absent'],
    [() => ws.runGate('t', { argv: 'true' }), 'argv'],
    [() => ws.runGate('t', { argv: ['true'], timeoutMs: 'soon' }), 'timeoutMs'],
    [() => ws.status(42), 'change'],
    [() => ledger.workspaceSettings({ threads: '2' }), 'threads'],
    [() => ledger.fingerprintEntries([{ path: 'a', kind: 'file', mode: 100644, digest: '0'.repeat(64) }]), 'mode'],
  ]
  for (const [call, key] of cases) {
    await expectCode(assert, call, 'invalid-argument', key, { pathProperty: false })
  }
  // A required option left out is named too.
  await expectCode(assert, () => ws.approve('c', 'proposal', {}), 'invalid-argument', 'source', { pathProperty: false })
  await expectCode(assert, () => ws.runGate('t', {}), 'invalid-argument', 'argv', { pathProperty: false })
})

/** Arguments no verb accepts, each to every parameter: what a careless caller passes. */
const garbage = [
  ['nothing', []],
  ['a number', [42]],
  ['a BigInt', [10n]],
  ['a Symbol', [Symbol('x')]],
  ['a function', [() => 1]],
  ['a circular object', [(() => { const o = {}; o.self = o; return o })()]],
  ['an object with a BigInt', [{ roots: [1n] }]],
  ['a Proxy that throws', [new Proxy({}, { ownKeys() { throw new Error('boom') }, get() { throw new Error('boom') } })]],
  ['many arguments', [1, 'x', {}, [], null, undefined, 2n]],
]

test('no Promise-returning function throws synchronously: garbage arrives as a rejected Promise', async (t) => {
  const s = new Sandbox(t)
  const ws = s.ws
  // [name, call, strict]: a strict call rejects with a LedgerError only.
  const calls = []
  for (const v of methods) calls.push([`Workspace#${v.js}`, (...args) => ws[v.js](...args), true])
  for (const v of free) calls.push([v.js, (...args) => ledger[v.js](...args), true])
  // Detached from its workspace (`this` undefined), a method still only rejects
  // (with the TypeError of a method called without its object).
  for (const v of methods) calls.push([`detached ${v.js}`, (...args) => Workspace.prototype[v.js].call(undefined, ...args), false])
  assert.ok(calls.length > 2 * methods.length)
  let rejected = 0
  for (const [name, fn, strict] of calls) {
    for (const [label, args] of garbage) {
      let pending
      assert.doesNotThrow(() => {
        pending = fn(...args)
      }, `${name}(${label}) threw synchronously`)
      assert.ok(pending instanceof Promise, `${name}(${label}) did not return a Promise`)
      try {
        await pending
      } catch (e) {
        assert.ok(e instanceof Error, `${name}(${label}) rejected with a non-Error: ${e}`)
        if (strict) {
          assert.ok(e instanceof LedgerError, `${name}(${label}) rejected with a non-LedgerError: ${e && e.stack}`)
          assert.ok(Object.values(ledger.ErrorCode).includes(e.code), `${name}(${label}): unknown code ${e.code}`)
        }
        rejected++
      }
    }
  }
  // Most garbage is refused (a few calls, like `threads()`, ignore their arguments... none may crash).
  assert.ok(rejected > calls.length * 3, `only ${rejected} rejections`)
})

test('a workspace that is no path is refused when it is made', () => {
  for (const bad of [42, null, { path: '/' }, ['/']]) {
    assert.throws(() => new Workspace(bad), (e) => e instanceof LedgerError && e.code === 'invalid-argument', String(bad))
  }
})

test('a Sync twin throws a LedgerError for garbage, never a TypeError', (t) => {
  const ws = new Sandbox(t).ws
  for (const [label, args] of garbage.slice(1, 7)) {
    assert.throws(() => ws.fingerprintSync(...args), (e) => e instanceof LedgerError && e.code === 'invalid-argument', label)
    assert.throws(() => ledger.fingerprintEntriesSync(...args), (e) => e instanceof LedgerError && e.code === 'invalid-argument', label)
  }
})

test('LedgerError is a real class: instanceof works, with code, path and message', async (t) => {
  const s = new Sandbox(t)
  const ws = s.ws
  assert.equal(typeof LedgerError, 'function')
  assert.ok(LedgerError.prototype instanceof Error)
  const rejected = await ws.fingerprint({ paths: ['../outside'] }).then(
    () => assert.fail('a path outside the workspace was accepted'),
    (e) => e,
  )
  assert.ok(rejected instanceof LedgerError)
  assert.ok(rejected instanceof Error)
  assert.equal(rejected.name, 'LedgerError')
  assert.equal(rejected.code, 'outside-workspace')
  assert.equal(rejected.code, ledger.ErrorCode.OutsideWorkspace)
  assert.equal(rejected.path, '../outside')
  assert.match(rejected.message, /'\.\.\/outside'/)
  assert.ok(!rejected.message.includes('\n'), 'one line')
  assert.ok(typeof rejected.stack === 'string' && rejected.stack.length > 0)
  // Thrown by a Sync twin, the same class and fields.
  let thrown
  try {
    ws.fingerprintSync({ paths: ['../outside'] })
  } catch (e) {
    thrown = e
  }
  assert.ok(thrown instanceof LedgerError)
  assert.deepEqual([thrown.code, thrown.path, thrown.message], [rejected.code, rejected.path, rejected.message])
  // An error that concerns no path has none.
  const noPath = await ws.status('c', { schema: 'x', bogus: 1 }).catch((e) => e)
  assert.ok(noPath instanceof LedgerError)
  assert.ok(noPath.path === null || noPath.path === undefined, String(noPath.path))
  // A user can make one (e.g. in a test double), and it is the same class.
  const made = new LedgerError('made by hand', 'conflict', 'a.txt')
  assert.ok(made instanceof LedgerError && made instanceof Error)
  assert.deepEqual([made.code, made.message, made.path], ['conflict', 'made by hand', 'a.txt'])
})

/** The codes docs/errors.md documents: the first column of its tables. */
function documentedCodes() {
  const text = fs.readFileSync(path.join(repoRoot, 'docs/errors.md'), 'utf8')
  return [...text.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1])
}

test('ErrorCode lists every code the core can produce, and docs/errors.md documents each', () => {
  const { ErrorCode } = ledger
  const codes = Object.values(ErrorCode)
  assert.equal(new Set(codes).size, codes.length, 'no code twice')
  assert.deepEqual([...codes].sort(), [...description.errors].sort())
  // Every core code is documented; `panic` (a bug, caught at the door) is the door's own.
  assert.deepEqual([...documentedCodes(), 'panic'].sort(), [...codes].sort())
  // The member names are the codes in PascalCase: ErrorCode.InvalidArgument === 'invalid-argument'.
  for (const [name, code] of Object.entries(ErrorCode)) {
    assert.equal(name, code.replace(/(^|-)([a-z0-9])/g, (_, __, c) => c.toUpperCase()), code)
  }
  assert.equal(ErrorCode.InvalidArgument, 'invalid-argument')
  assert.equal(ErrorCode.Panic, 'panic')
  assert.ok(Object.isFrozen(ErrorCode))
  // index.d.ts types `code` with exactly these codes.
  const dts = fs.readFileSync(path.join(packageDir, 'index.d.ts'), 'utf8')
  for (const code of codes) assert.ok(dts.includes(`'${code}'`) || dts.includes(`"${code}"`), `index.d.ts lacks ${code}`)
})

test('the constants both doors share: ERROR_CODES and TASK_RULES', () => {
  assert.deepEqual([...ledger.ERROR_CODES].sort(), Object.values(ledger.ErrorCode).sort())
  assert.deepEqual(ledger.TASK_RULES, ['task-checkbox-v1', 'openspec-checkbox'])
})

test('camelCase renames struct fields only: map keys and string values stay as given', async (t) => {
  const s = new Sandbox(t)
  s.init()
  s.write('src/my_file.rs', 'x\n')
  s.write('my_tasks.md', '- [ ] 1.1 A\n')
  s.commitAll()
  const ws = s.ws
  // A path with `_` is a map key in `taskRules`; a prerequisite name with `_` is a map key in `prerequisites`.
  const scope = await ws.resolveScope({ tasks: ['my_tasks.md'], taskRule: 'openspec-checkbox' })
  assert.deepEqual(scope.taskRules, { 'my_tasks.md': 'openspec-checkbox' })
  const outcome = await ws.runGate('my_gate', {
    argv: ['true'],
    scope: { roots: ['src'] },
    prerequisites: { rust_toolchain: { literal: '1.80' }, CARGO_HOME: { environment: 'LEDGER_NODE_UNSET_VAR' } },
  })
  assert.deepEqual(outcome.evidence.prerequisites, { rust_toolchain: '1.80', CARGO_HOME: null })
  assert.deepEqual(outcome.evidence.spec.prerequisites, {
    rust_toolchain: { literal: '1.80' },
    CARGO_HOME: { environment: 'LEDGER_NODE_UNSET_VAR' },
  })
  assert.equal(outcome.evidence.spec.name, 'my_gate')
  assert.deepEqual(outcome.evidence.inventory.entries.map((e) => e.path), ['src/my_file.rs'])
  // Struct fields at every depth are camelCase; no snake_case field is left.
  const fields = []
  const walk = (v, isMap) => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x, false))
    if (v === null || typeof v !== 'object') return
    for (const [k, x] of Object.entries(v)) {
      if (!isMap) fields.push(k)
      walk(x, !isMap && ['prerequisites', 'taskRules', 'upstream', 'meta', 'tools'].includes(k))
    }
  }
  walk(outcome, false)
  assert.ok(fields.includes('exitCode') && fields.includes('walkedRoots') && fields.includes('startedAt'))
  assert.deepEqual(fields.filter((f) => f.includes('_')), [])
  // A metadata key with `_` in a record stays as given.
  const record = JSON.parse(await ledger.inventoryRecord(await ws.inventory({ roots: ['src'] }), { meta: { gate_name: 'x' } }))
  assert.deepEqual(record.observed.meta, { gate_name: 'x' }, 'the record itself is the stored document, snake_case')
  assert.ok('walked_roots' in record)
})

test('bytes cross as Buffers both ways', async () => {
  const input = Buffer.from('- [x] 1.1 [core] Done\n\xff', 'latin1')
  const out = await ledger.normalizeTasks(input)
  assert.ok(Buffer.isBuffer(out))
  assert.equal(out.toString('latin1'), '- [ ] 1.1 [core] Done\n\xff')
  assert.deepEqual(ledger.normalizeTasksSync(new Uint8Array(input)), out, 'a Uint8Array is accepted as bytes')
  const tasks = await ledger.readTasksBytes(input)
  assert.deepEqual([tasks.total, tasks.done], [1, 1])
})

test('a workspace is named once: every verb runs in it, relative paths against the cwd at call time', async (t) => {
  const a = new Sandbox(t)
  const b = new Sandbox(t)
  a.write('f.txt', 'a\n')
  b.write('f.txt', 'b\n')
  const wsA = new Workspace(a.w)
  assert.notEqual(await wsA.fingerprint(), await new Workspace(b.w).fingerprint())
  const cwd = process.cwd()
  t.after(() => process.chdir(cwd))
  process.chdir(a.dir)
  const relative = new Workspace('w')
  assert.equal(await relative.fingerprint(), await wsA.fingerprint())
  process.chdir(b.dir)
  assert.equal(await relative.fingerprint(), await new Workspace(b.w).fingerprint())
  // `Workspace()` without a path is the current directory.
  process.chdir(a.w)
  assert.equal(await new Workspace().fingerprint(), await wsA.fingerprint())
})
