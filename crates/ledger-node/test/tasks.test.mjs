// A Tasks file read into its tasks, the rule on scopes and changes, and
// ticking a box under openspec-checkbox as progress (docs/format.md §4).
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { camel, cli, expectCode, ledger, noCli, Sandbox } from './helpers.mjs'

const CHANGE = 'openspec/changes/add-auth'
const TASKS = '## 1. Core\n- [ ] 1.1 Add login\n  - [x] 1.1.1 Test it\n* [X] 1.2 Add tokens\n'

function openspecCheckout(t) {
  const s = new Sandbox(t)
  s.init()
  s.write(`${CHANGE}/proposal.md`, '# Why\n')
  s.write(`${CHANGE}/design.md`, '# Design\n')
  s.write(`${CHANGE}/specs/auth/spec.md`, '## Requirement\n')
  s.write(`${CHANGE}/tasks.md`, TASKS)
  s.commitAll()
  return s
}

test('readTasks: ids, done, lines and text under either rule', async (t) => {
  const s = new Sandbox(t)
  s.write('tasks.md', TASKS + '- [x] 2.1 [core] Canonical\n')
  const open = await ledger.readTasks(s.path('tasks.md'), { rule: 'openspec-checkbox' })
  assert.deepEqual([open.total, open.done], [4, 3])
  assert.deepEqual(open.tasks[1], { id: '1.1.1', done: true, line: 3, text: '1.1.1 Test it', textBytes: null })
  const v1 = ledger.readTasksSync(s.path('tasks.md'))
  assert.equal(v1.rule, 'task-checkbox-v1')
  assert.deepEqual(v1.tasks, [{ id: '2.1', done: true, line: 5, text: '2.1 [core] Canonical', textBytes: null }])
  // The same from the bytes.
  const bytes = Buffer.from(TASKS + '- [x] 2.1 [core] Canonical\n')
  assert.deepEqual(await ledger.readTasksBytes(bytes, { rule: 'openspec-checkbox' }), open)
  assert.deepEqual(ledger.readTasksBytesSync(bytes), v1)
  assert.deepEqual(ledger.TASK_RULES, ['task-checkbox-v1', 'openspec-checkbox'])
  await expectCode(assert, () => ledger.readTasks(s.path('missing.md')), 'unreadable', 'missing.md')
  await expectCode(assert, () => ledger.readTasks(s.path('tasks.md'), { rule: 'v2' }), 'invalid-argument', undefined)
})

test('task text that is not UTF-8 comes back exact, as base64 in textBytes', async (t) => {
  const s = new Sandbox(t)
  // Two lines that differ only in a byte that is not UTF-8, and one that is.
  const file = Buffer.concat([Buffer.from('- [ ] 1.1 caf\xe9\n- [ ] 1.1 caf\xe8\n', 'latin1'), Buffer.from('- [x] 1.2 caf\u00e9\n')])
  s.write('tasks.md', file)
  const got = await ledger.readTasks(s.path('tasks.md'), { rule: 'openspec-checkbox' })
  assert.deepEqual(got.tasks.map((task) => task.text), ['1.1 caf\ufffd', '1.1 caf\ufffd', '1.2 caf\u00e9'])
  assert.deepEqual(Buffer.from(got.tasks[0].textBytes, 'base64'), Buffer.from('1.1 caf\xe9', 'latin1'))
  assert.deepEqual(Buffer.from(got.tasks[1].textBytes, 'base64'), Buffer.from('1.1 caf\xe8', 'latin1'))
  assert.equal(got.tasks[0].id, '1.1')
  // `é` as UTF-8 (\xc3\xa9) is valid: the text is exact.
  assert.equal(got.tasks[2].textBytes, null)
  assert.deepEqual(ledger.readTasksBytesSync(file, { rule: 'openspec-checkbox' }), got)
})

test('a scope records the rule; ticking is progress under openspec-checkbox', async (t) => {
  const s = new Sandbox(t)
  s.write('tasks.md', '- [ ] 1.1 A\n')
  const ws = s.ws
  const options = { tasks: ['tasks.md'], taskRule: 'openspec-checkbox' }
  const scope = await ws.resolveScope(options)
  assert.deepEqual(scope.taskRules, { 'tasks.md': 'openspec-checkbox' })
  assert.equal((await ws.resolveScope({ tasks: ['tasks.md'] })).taskRules, undefined)
  const before = await ws.inventory(options)
  s.write('tasks.md', '- [x] 1.1 A\n')
  assert.equal((await ws.compare(before)).matches, true)
  assert.equal(await ws.fingerprint(options), before.fingerprint)
  assert.notEqual(await ws.fingerprint({ ...options, taskRule: undefined }), before.fingerprint)
})

test('changeTasks and approvals under openspec-checkbox match the CLI', { skip: noCli }, async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  const rule = { taskRule: 'openspec-checkbox' }
  const tasks = await ws.changeTasks('add-auth', rule)
  assert.equal(tasks.path, `${CHANGE}/tasks.md`)
  assert.deepEqual([tasks.exists, tasks.total, tasks.done], [true, 3, 2])
  const json = JSON.parse(cli(['tasks', '--change', 'add-auth', '--task-rule', 'openspec-checkbox', '--json'], { cwd: s.w }).stdout)
  assert.deepEqual(camel(json), tasks)
  for (const artifact of ['proposal', 'specs', 'design', 'tasks']) await ws.approve('add-auth', artifact, { source: 'msg', ...rule })
  s.write(`${CHANGE}/tasks.md`, TASKS.replace('- [ ] 1.1 ', '- [x] 1.1 '))
  const status = await ws.status('add-auth')
  assert.deepEqual(status.artifacts.map((a) => a.state), ['approved', 'approved', 'approved', 'approved'])
  await expectCode(assert, () => ws.changeTasks('add-auth', { taskRule: 'x' }), 'invalid-argument', undefined)
})

// Differential check against OpenSpec itself, when its task counter is at hand:
// OPENSPEC_TASK_PROGRESS=/path/to/@fission-ai/openspec/dist/utils/task-progress.js
const oracle = process.env.OPENSPEC_TASK_PROGRESS
test('readTasks agrees with OpenSpec parseTaskLines on random task-like files', { skip: oracle ? false : 'OPENSPEC_TASK_PROGRESS not set' }, async (t) => {
  const { parseTaskLines } = await import(oracle)
  const TASK_ID = /^(\d+(?:\.\d+)+(?:[A-Za-z]+)?)(?=\s|$)/
  const atoms = ['- [x] ', '* [X]', '+ [ ]', '12. [x]', '1234567890. [x]', '-[x](', '[ x ]', '[x', '1.1 Do', '1.2a ', '-', '1', '.', ')', '[', ']', '(', 'x', ' ', '\t', '\v\f', '\r', '\n', '\r\n', '\uFEFF', '\u00A0', '\u2003', '\u2028', '\u3000', '\u0085', '\u180E', 'é😀', '~']
  const bytes = [[0xe2, 0x80], [0xc2], [0xff], [0xed, 0xa0, 0x80]]
  let seed = 42
  const next = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n)
  const s = new Sandbox(t)
  for (let n = 0; n < 2000; n++) {
    const parts = []
    for (let k = next(25); k > 0; k--) parts.push(next(10) ? Buffer.from(atoms[next(atoms.length)]) : Buffer.from(bytes[next(bytes.length)]))
    const file = Buffer.concat(parts)
    s.write('tasks.md', file)
    const expected = []
    file.toString('utf-8').split('\n').forEach((line, i) => {
      const [task] = parseTaskLines(line)
      if (task) expected.push({ id: task.description.match(TASK_ID)?.[1] ?? null, done: task.done, line: i + 1, text: task.description })
    })
    const got = ledger.readTasksSync(s.path('tasks.md'), { rule: 'openspec-checkbox' })
    assert.deepEqual(got.tasks.map(({ textBytes, ...task }) => task), expected, JSON.stringify(file.toString('latin1')))
    // The exact bytes, where kept, decode (as Node decodes) to OpenSpec's description.
    for (const task of got.tasks.filter((x) => x.textBytes !== null)) {
      assert.equal(Buffer.from(task.textBytes, 'base64').toString('utf-8'), task.text)
    }
    assert.equal(got.done, expected.filter((x) => x.done).length)
  }
})

test('every reader uses the rule the tasks approval recorded; approve warns of missed task lines', async (t) => {
  const s = openspecCheckout(t)
  const ws = s.ws
  const warnings = []
  const listen = (w) => warnings.push(w)
  process.on('warning', listen)
  t.after(() => process.off('warning', listen))
  const tick = () => new Promise((resolve) => setImmediate(resolve))
  // Under the default rule OpenSpec's three task lines are no task: a warning.
  const binding = await ws.approve('add-auth', 'tasks', { source: 'msg' })
  assert.equal(binding.artifact, 'tasks')
  await tick()
  assert.equal(warnings.length, 1)
  assert.equal(warnings[0].name, 'LedgerWarning')
  assert.equal(warnings[0].code, 'task-rule')
  assert.ok(warnings[0].message.startsWith(`${CHANGE}/tasks.md: 3 line(s) are tasks under openspec-checkbox but not under task-checkbox-v1`), warnings[0].message)
  assert.ok(warnings[0].message.includes('(line 2, 3, 4)'), warnings[0].message)
  // The result carries it too, for a tool to show it with the result.
  assert.deepEqual(binding.warnings, [{ code: 'task-rule', message: warnings[0].message }])
  ws.approveSync('add-auth', 'tasks', { source: 'msg', taskRule: 'openspec-checkbox' })
  ws.approveSync('add-auth', 'tasks', { source: 'msg' })
  await tick()
  assert.equal(warnings.length, 1, 'the rule that reads the lines, recorded, gives none')
  // Unflagged, the tasks and the state's default ids are read under the recorded rule.
  const tasks = await ws.changeTasks('add-auth')
  assert.deepEqual([tasks.rule, tasks.total, tasks.done], ['openspec-checkbox', 3, 2])
  assert.deepEqual(ws.changeTasksSync('add-auth'), tasks)
  const { state } = await ws.advanceState('add-auth', { role: 'impl' })
  assert.deepEqual([state.tasksCompleted, state.tasksRemaining], [['1.1.1', '1.2'], ['1.1']])
  // A rule the caller chooses wins.
  const v1 = await ws.changeTasks('add-auth', { taskRule: 'task-checkbox-v1' })
  assert.deepEqual([v1.rule, v1.total], ['task-checkbox-v1', 0])
})
