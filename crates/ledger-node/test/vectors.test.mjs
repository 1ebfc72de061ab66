// The shared vectors (tests/vectors) every front door must pass, and the
// byte order of paths given from JavaScript.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { byUtf8, cli, ledger, noCli, Sandbox, sha256hex, v1InOrder, vectorsDir } from './helpers.mjs'

const read = (name) => JSON.parse(fs.readFileSync(path.join(vectorsDir, name), 'utf8'))
const asEntry = ([p, kind, mode, digest]) => ({ path: p, kind, mode, digest })

test('fingerprint-v1 vectors, in their order and reversed', async () => {
  const { format, vectors } = read('fingerprint-v1.json')
  assert.equal(format, 'wealth-ledger-input-v1')
  assert.ok(vectors.length >= 5)
  for (const v of vectors) {
    const entries = v.entries.map(asEntry)
    assert.equal(await ledger.fingerprintEntries(entries), v.fingerprint, v.name)
    assert.equal(ledger.fingerprintEntriesSync([...entries].reverse()), v.fingerprint, v.name)
    // SPEC §12: [path, kind, mode, digest] arrays, as the vector has them.
    assert.equal(await ledger.fingerprintEntries(v.entries), v.fingerprint, v.name)
    // And the vector itself agrees with an independent computation.
    assert.equal(v1InOrder(byUtf8(entries)), v.fingerprint, v.name)
  }
})

test('an entry that is neither an object nor four strings is refused', async () => {
  for (const bad of [[['a', 'file', '100644']], [['a', 'file', '100644', '0'.repeat(64), 'x']], [['a', 1, 2, 3]]]) {
    await assert.rejects(ledger.fingerprintEntries(bad), (e) => e.code === 'invalid-argument' && e.message.includes('[path, kind, mode, digest]'))
  }
})

test('task-checkbox vectors through normalizeTasks(Buffer)', async () => {
  const { vectors } = read('task-checkbox.json')
  assert.ok(vectors.length >= 10)
  for (const v of vectors) {
    const input = Buffer.from(v.input, 'hex')
    const output = await ledger.normalizeTasks(input)
    assert.ok(Buffer.isBuffer(output), v.name)
    assert.equal(output.toString('hex'), v.output, v.name)
    assert.ok(ledger.normalizeTasksSync(input).equals(output), v.name)
    assert.equal(!output.equals(input), v.changed, v.name)
  }
})

test('openspec-checkbox vectors through normalizeTasks(Buffer, { rule }) and readTasks', async (t) => {
  const { vectors } = read('openspec-checkbox.json')
  assert.ok(vectors.length >= 15)
  const s = new Sandbox(t)
  for (const v of vectors) {
    const input = Buffer.from(v.input, 'hex')
    const output = ledger.normalizeTasksSync(input, { rule: 'openspec-checkbox' })
    assert.equal(output.toString('hex'), v.output, v.name)
    assert.equal(!output.equals(input), v.changed, v.name)
    s.write('tasks.md', input)
    const tasks = ledger.readTasksSync(s.path('tasks.md'), { rule: 'openspec-checkbox' })
    assert.equal(tasks.rule, 'openspec-checkbox', v.name)
    assert.deepEqual([tasks.total, tasks.done], [v.total, v.done], v.name)
  }
  // The default rule is task-checkbox-v1, with or without options.
  const checked = Buffer.from('* [x] 1.1 Do it\n')
  assert.ok(ledger.normalizeTasksSync(checked).equals(checked))
  assert.ok((await ledger.normalizeTasks(checked, {})).equals(checked))
  assert.throws(() => ledger.normalizeTasksSync(checked, { rule: 'openspec' }), { code: 'invalid-argument' })
  await assert.rejects(ledger.normalizeTasks(checked, { rule: 'openspec' }), { code: 'invalid-argument' })
})

// '\u{1F600}' is a surrogate pair in UTF-16 (D83D DE00) and F0 9F 98 80 in
// UTF-8; '\uFF61' is FF61 in UTF-16 and EF BD A1 in UTF-8. JavaScript's sort
// puts the emoji first, UTF-8 byte order puts it last.
const nonBmp = [
  { path: 'a/\u{1F600}.md', kind: 'file', mode: '100644', digest: sha256hex('emoji') },
  { path: 'a/\uFF61.md', kind: 'file', mode: '100755', digest: sha256hex('halfwidth') },
  { path: 'a/z.md', kind: 'symlink', mode: '120000', digest: sha256hex('z') },
  { path: 'a/\u00e9.md', kind: 'missing', mode: '-', digest: '-' },
]

test('entries from JS are sorted by UTF-8 bytes, not JS string order', async () => {
  const jsOrder = [...nonBmp].sort((a, b) => (a.path < b.path ? -1 : 1))
  const byteOrder = byUtf8(nonBmp)
  assert.notDeepEqual(
    jsOrder.map((e) => e.path),
    byteOrder.map((e) => e.path),
    'the vector must tell the two orders apart',
  )
  const expected = v1InOrder(byteOrder)
  assert.notEqual(v1InOrder(jsOrder), expected)
  for (const order of [nonBmp, jsOrder, byteOrder, [...byteOrder].reverse()]) {
    assert.equal(await ledger.fingerprintEntries(order), expected)
  }
})

test('non-BMP file names on disk: fingerprint equals the CLI and the hand-made stream', { skip: noCli }, async (t) => {
  const s = new Sandbox(t)
  const files = { 'a/\u{1F600}.md': 'emoji', 'a/\uFF61.md': 'halfwidth', 'a/z.md': 'z' }
  for (const [rel, content] of Object.entries(files)) s.write(rel, content)
  const inventory = await s.ws.inventory()
  const expected = v1InOrder(
    byUtf8(Object.entries(files).map(([p, c]) => ({ path: p, kind: 'file', mode: '100644', digest: sha256hex(c) }))),
  )
  assert.equal(inventory.fingerprint, expected)
  assert.deepEqual(
    inventory.entries.map((e) => e.path),
    ['a/z.md', 'a/\uFF61.md', 'a/\u{1F600}.md'],
  )
  assert.equal(cli(['fingerprint', '--workspace', s.w]).stdout.trim(), expected)
})
