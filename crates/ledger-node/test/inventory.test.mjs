// Inventories of real Git repositories, compared with the CLI on the same
// scopes: fingerprints, entries, records and comparisons.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { cli, lastLine, ledger, noCli, Sandbox, sampleCheckout, sha256hex } from './helpers.mjs'

/** The CLI flags of a scope options object. */
function scopeArgs(o) {
  const args = ['--workspace', o.workspace]
  const flags = { repos: '--repo', roots: '--root', paths: '--path', tasks: '--tasks' }
  for (const [key, flag] of Object.entries(flags)) for (const p of o[key] ?? []) args.push(flag, p)
  for (const e of o.exclude ?? []) args.push('--exclude', typeof e === 'string' ? e : e.path)
  if (o.purpose) args.push('--purpose', o.purpose)
  return args
}

// The reason the CLI records for `--exclude`, so that whole scopes compare equal.
const byFlag = (p) => ({ path: p, reason: 'excluded with --exclude' })

function scopesOf(s) {
  const w = s.w
  return [
    { workspace: w },
    { workspace: w, roots: ['src'] },
    { workspace: w, roots: ['src', 'README.md'], exclude: [byFlag('src/deep')] },
    { workspace: w, paths: ['debug.log', 'target/out.bin'], purpose: 'ignored inputs' },
    { workspace: w, roots: ['src'], tasks: ['tasks.md'] },
    { workspace: w, repos: ['.'], roots: ['.'], exclude: [byFlag('tab\there name')] },
  ]
}

test('fingerprint and entries equal the CLI on a real checkout', { skip: noCli }, async (t) => {
  const s = sampleCheckout(t)
  s.write('tasks.md', '- [x] 1.1 [core] Done\n- [ ] 1.2 [core] Not yet\n')
  for (const options of scopesOf(s)) {
    const label = JSON.stringify(options)
    const expected = lastLine(cli(['fingerprint', ...scopeArgs(options)]).stdout)
    assert.match(expected, /^sha256:[0-9a-f]{64}$/)
    assert.equal(await ledger.fingerprint(options), expected, label)
    assert.equal(ledger.fingerprintSync(options), expected, label)
    const json = JSON.parse(cli(['entries', '--json', ...scopeArgs(options)]).stdout)
    const inventory = await ledger.inventory(options)
    assert.ok(inventory instanceof ledger.Inventory)
    assert.deepEqual(inventory.entries, json.entries, label)
    assert.deepEqual(inventory.walkedRoots, json.walked_roots, label)
    assert.deepEqual(inventory.scope, json.scope, label)
    assert.equal(inventory.fingerprint, json.fingerprint, label)
    assert.deepEqual(JSON.parse(JSON.stringify(inventory)), json, label)
    assert.deepEqual(ledger.inventorySync(options).toJSON(), json, label)
    assert.deepEqual(await ledger.resolveScope(options), json.scope, label)
  }
})

test('what an inventory holds: Git listing, kinds, modes, normalization', async (t) => {
  const s = sampleCheckout(t)
  s.write('staged.txt', 'staged\n')
  s.git('add', 'staged.txt')
  fs.rmSync(s.path('src/lib.rs'))
  s.write('tasks.md', '- [x] 1.1 [core] Done\n')
  const inventory = await ledger.inventory({ workspace: s.w, roots: ['.'], tasks: ['tasks.md'] })
  const byPath = Object.fromEntries(inventory.entries.map((e) => [e.path, e]))
  assert.deepEqual(Object.keys(byPath), [
    '.gitignore',
    'README.md',
    'link',
    'run.sh',
    'src/deep/er/x.txt',
    'src/lib.rs',
    'staged.txt',
    'tab\there name',
    'tasks.md',
    'untracked.txt',
  ])
  assert.deepEqual(byPath['README.md'], {
    path: 'README.md',
    kind: 'file',
    mode: '100644',
    digest: sha256hex('# hi\n'),
  })
  assert.equal(byPath['run.sh'].mode, '100755')
  assert.deepEqual(byPath.link, { path: 'link', kind: 'symlink', mode: '120000', digest: sha256hex('README.md') })
  assert.deepEqual(byPath['src/lib.rs'], { path: 'src/lib.rs', kind: 'missing', mode: '-', digest: '-' })
  // Tasks are hashed with the checkbox normalization: a ticked box does not count.
  assert.equal(byPath['tasks.md'].digest, sha256hex(ledger.normalizeTasks(Buffer.from('- [x] 1.1 [core] Done\n'))))
  assert.equal(byPath['tasks.md'].digest, sha256hex('- [ ] 1.1 [core] Done\n'))
  assert.equal(ledger.fingerprintEntries(inventory.entries), inventory.fingerprint)
  // Staging or committing alone changes nothing.
  s.git('add', 'untracked.txt', 'tasks.md')
  s.git('commit', '-q', '-m', 'more')
  assert.equal(await ledger.fingerprint({ workspace: s.w, roots: ['.'], tasks: ['tasks.md'] }), inventory.fingerprint)
})

test('several repositories and a walked root in one workspace equal the CLI', { skip: noCli }, async (t) => {
  const s = new Sandbox(t)
  for (const repo of ['app', 'lib']) {
    s.write(`${repo}/f.txt`, repo)
    s.write(`${repo}/.gitignore`, '*.o\n')
    s.write(`${repo}/x.o`, 'object')
    s.gitIn(repo, 'init', '-q')
  }
  s.write('docs/guide.md', '# guide\n')
  const options = { workspace: s.w, repos: ['app', 'lib'], roots: ['app', 'lib', 'docs'] }
  const inventory = await ledger.inventory(options)
  assert.deepEqual(
    inventory.entries.map((e) => e.path),
    ['app/.gitignore', 'app/f.txt', 'docs/guide.md', 'lib/.gitignore', 'lib/f.txt'],
  )
  assert.deepEqual(inventory.walkedRoots, ['docs'])
  const json = JSON.parse(cli(['entries', '--json', ...scopeArgs(options)]).stdout)
  assert.deepEqual(inventory.toJSON(), json)
})

test('records: byte-identical to the CLI, read back strictly, compared like verify', { skip: noCli }, async (t) => {
  const s = sampleCheckout(t)
  const options = { workspace: s.w, roots: ['.'] }
  const cliRecord = path.join(s.dir, 'cli.json')
  const printed = cli(['inventory', ...scopeArgs(options), '--meta', 'gate=make test', '--out', cliRecord]).stdout
  const inventory = await ledger.inventory(options)
  const text = inventory.toRecord({ meta: { gate: 'make test' } })
  assert.equal(text, fs.readFileSync(cliRecord, 'utf8'))
  assert.equal(printed.trim(), inventory.fingerprint)

  // Nothing changed yet.
  const same = await (await ledger.readRecord(cliRecord)).compare()
  assert.equal(same.matches, true)
  assert.deepEqual(same, JSON.parse(cli(['verify', cliRecord, '--json', '--workspace', s.w]).stdout))

  // One change of every kind.
  s.write('README.md', '# changed\n')
  s.write('src/new.rs', 'new\n')
  fs.rmSync(s.path('untracked.txt'))
  fs.chmodSync(s.path('run.sh'), 0o644)
  fs.rmSync(s.path('link'))
  s.write('link', 'now a file')
  const expected = JSON.parse(cli(['verify', cliRecord, '--json', '--workspace', s.w], { ok: [1] }).stdout)
  const fromText = ledger.Inventory.fromRecord(fs.readFileSync(cliRecord, 'utf8'), { source: cliRecord })
  const viaRead = ledger.readRecordSync(cliRecord)
  for (const comparison of [await inventory.compare(), inventory.compareSync(), await fromText.compare(), viaRead.compareSync()]) {
    assert.deepEqual(comparison, expected)
  }
  assert.equal(expected.matches, false)
  const kinds = Object.fromEntries(expected.changes.map((c) => [c.new.path, c.change]))
  assert.deepEqual(kinds, {
    'README.md': 'content-changed',
    link: 'kind-changed',
    'run.sh': 'mode-changed',
    'src/new.rs': 'added',
    'untracked.txt': 'removed',
  })
  const added = expected.changes.find((c) => c.change === 'added')
  assert.equal(added.old, null)

  // A moved checkout: re-expand elsewhere (verify --workspace).
  const moved = path.join(s.dir, 'moved')
  fs.renameSync(s.w, moved)
  const relocated = ledger.Inventory.fromRecord(fs.readFileSync(cliRecord, 'utf8'), { workspace: moved })
  const comparison = await relocated.compare()
  assert.deepEqual(comparison, JSON.parse(cli(['verify', cliRecord, '--json', '--workspace', moved], { ok: [1] }).stdout))
})
