// Inventories of real Git repositories, compared with the CLI on the same
// scopes: fingerprints, entries, records and comparisons.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { camel, cli, inventoryOf, lastLine, ledger, noCli, Sandbox, sampleCheckout, sha256hex, Workspace } from './helpers.mjs'

/** The CLI flags of a workspace and a scope options object. */
function scopeArgs(workspace, o) {
  const args = ['--workspace', workspace]
  const flags = { repos: '--repo', roots: '--root', paths: '--path', tasks: '--tasks' }
  for (const [key, flag] of Object.entries(flags)) for (const p of o[key] ?? []) args.push(flag, p)
  for (const e of o.exclude ?? []) args.push('--exclude', typeof e === 'string' ? e : e.path)
  if (o.purpose) args.push('--purpose', o.purpose)
  return args
}

/** The reason the CLI records for a bare `--exclude`, so that whole scopes compare equal. */
function cliReason(s) {
  const json = JSON.parse(cli(['entries', '--json', '--workspace', s.w, '--exclude', 'src']).stdout)
  return json.scope.exclusions.find((e) => e.path === 'src').reason
}

function scopesOf(s) {
  const reason = cliReason(s)
  const byFlag = (p) => ({ path: p, reason })
  return [
    {},
    { roots: ['src'] },
    { roots: ['src', 'README.md'], exclude: [byFlag('src/deep')] },
    { paths: ['debug.log', 'target/out.bin'], purpose: 'ignored inputs' },
    { roots: ['src'], tasks: ['tasks.md'] },
    { repos: ['.'], roots: ['.'], exclude: [byFlag('tab\there name')] },
  ]
}

test('fingerprint and entries equal the CLI on a real checkout', { skip: noCli }, async (t) => {
  const s = sampleCheckout(t)
  s.write('tasks.md', '- [x] 1.1 [core] Done\n- [ ] 1.2 [core] Not yet\n')
  const ws = new Workspace(s.w)
  for (const options of scopesOf(s)) {
    const label = JSON.stringify(options)
    const expected = lastLine(cli(['fingerprint', ...scopeArgs(s.w, options)]).stdout)
    assert.match(expected, /^sha256:[0-9a-f]{64}$/)
    assert.equal(await ws.fingerprint(options), expected, label)
    assert.equal(ws.fingerprintSync(options), expected, label)
    const json = camel(JSON.parse(cli(['entries', '--json', ...scopeArgs(s.w, options)]).stdout))
    const inventory = await ws.inventory(options)
    assert.deepEqual(inventory.entries, json.entries, label)
    assert.deepEqual(inventory.walkedRoots, json.walkedRoots, label)
    assert.deepEqual(inventory.scope, json.scope, label)
    assert.equal(inventory.fingerprint, json.fingerprint, label)
    assert.deepEqual(inventory, json, label)
    assert.deepEqual(JSON.parse(JSON.stringify(inventory)), json, label)
    assert.deepEqual(ws.inventorySync(options), json, label)
    assert.deepEqual(await ws.resolveScope(options), json.scope, label)
    assert.deepEqual(ws.resolveScopeSync(options), json.scope, label)
  }
})

test('what an inventory holds: Git listing, kinds, modes, normalization', async (t) => {
  const s = sampleCheckout(t)
  s.write('staged.txt', 'staged\n')
  s.git('add', 'staged.txt')
  fs.rmSync(s.path('src/lib.rs'))
  s.write('tasks.md', '- [x] 1.1 [core] Done\n')
  const ws = s.ws
  const inventory = await ws.inventory({ roots: ['.'], tasks: ['tasks.md'] })
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
  const normalized = await ledger.normalizeTasks(Buffer.from('- [x] 1.1 [core] Done\n'))
  assert.equal(byPath['tasks.md'].digest, sha256hex(normalized))
  assert.equal(byPath['tasks.md'].digest, sha256hex('- [ ] 1.1 [core] Done\n'))
  assert.equal(await ledger.fingerprintEntries(inventory.entries), inventory.fingerprint)
  // Staging or committing alone changes nothing.
  s.git('add', 'untracked.txt', 'tasks.md')
  s.git('commit', '-q', '-m', 'more')
  assert.equal(await ws.fingerprint({ roots: ['.'], tasks: ['tasks.md'] }), inventory.fingerprint)
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
  const options = { repos: ['app', 'lib'], roots: ['app', 'lib', 'docs'] }
  const inventory = await s.ws.inventory(options)
  assert.deepEqual(
    inventory.entries.map((e) => e.path),
    ['app/.gitignore', 'app/f.txt', 'docs/guide.md', 'lib/.gitignore', 'lib/f.txt'],
  )
  assert.deepEqual(inventory.walkedRoots, ['docs'])
  const json = JSON.parse(cli(['entries', '--json', ...scopeArgs(s.w, options)]).stdout)
  assert.deepEqual(inventory, camel(json))
})

test('records: byte-identical to the CLI, read back strictly, compared like verify', { skip: noCli }, async (t) => {
  const s = sampleCheckout(t)
  const ws = s.ws
  const options = { roots: ['.'] }
  const cliRecord = path.join(s.dir, 'cli.json')
  const printed = cli(['inventory', ...scopeArgs(s.w, options), '--meta', 'gate=make test', '--out', cliRecord]).stdout
  const inventory = await ws.inventory(options)
  const text = await ledger.inventoryRecord(inventory, { meta: { gate: 'make test' } })
  assert.equal(text, fs.readFileSync(cliRecord, 'utf8'))
  assert.equal(ledger.inventoryRecordSync(inventory, { meta: { gate: 'make test' } }), text)
  assert.equal(printed.trim(), inventory.fingerprint)
  // The record read back is the document the CLI wrote, re-cased.
  const record = await ledger.readRecord(cliRecord)
  assert.deepEqual(record, camel(JSON.parse(text)))
  assert.deepEqual(record.observed.meta, { gate: 'make test' })
  // A record holds no host path (docs/records.md, Host-free records): its workspace is `.`.
  assert.deepEqual(inventoryOf(record), { ...inventory, scope: { ...inventory.scope, workspace: '.' } })

  // Nothing changed yet.
  const same = await ws.compare(inventoryOf(record))
  assert.equal(same.matches, true)
  assert.deepEqual(same, camel(JSON.parse(cli(['verify', cliRecord, '--json', '--workspace', s.w]).stdout)))

  // One change of every kind.
  s.write('README.md', '# changed\n')
  s.write('src/new.rs', 'new\n')
  fs.rmSync(s.path('untracked.txt'))
  fs.chmodSync(s.path('run.sh'), 0o644)
  fs.rmSync(s.path('link'))
  s.write('link', 'now a file')
  const expected = camel(JSON.parse(cli(['verify', cliRecord, '--json', '--workspace', s.w], { ok: [1] }).stdout))
  const fromText = await ledger.parseRecord(fs.readFileSync(cliRecord, 'utf8'), { source: cliRecord })
  const viaRead = ledger.readRecordSync(cliRecord)
  for (const comparison of [
    await ws.compare(inventory),
    ws.compareSync(inventory),
    await ws.compare(inventoryOf(fromText)),
    ws.compareSync(inventoryOf(viaRead)),
    // A record as read from disk is compared as it is (issue 43).
    await ws.compare(viaRead),
    ws.compareSync(fromText),
  ]) {
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

  // A moved checkout: the record's scope re-expanded in another workspace (verify --workspace).
  const moved = path.join(s.dir, 'moved')
  fs.renameSync(s.w, moved)
  const relocated = ledger.parseRecordSync(fs.readFileSync(cliRecord, 'utf8'))
  const comparison = await new Workspace(moved).compare(inventoryOf(relocated))
  assert.deepEqual(comparison, camel(JSON.parse(cli(['verify', cliRecord, '--json', '--workspace', moved], { ok: [1] }).stdout)))
})

test('overlap names every path two writers share, as the CLI does', async (t) => {
  const s = sampleCheckout(t)
  const ws = s.ws
  const found = await ws.overlap([
    { name: 'fixer-a', scope: { roots: ['src/deep'], paths: ['src/new.rs'] } },
    { name: 'fixer-b', scope: { roots: ['src'] } },
    { name: 'fixer-c', scope: { paths: ['src/new.rs'] } },
  ])
  assert.equal(found.disjoint, false)
  assert.deepEqual(found.shared.map((p) => [p.path, p.scopes]), [
    ['src/deep/er/x.txt', ['fixer-a', 'fixer-b']],
    ['src/new.rs', ['fixer-a', 'fixer-c']],
  ])
  const apart = ws.overlapSync([{ name: 'a', scope: { roots: ['src/deep'] } }, { name: 'b', scope: { paths: ['README.md'] } }])
  assert.equal(apart.disjoint, true)
  if (!noCli) {
    const out = cli(['overlap', '--json', '--workspace', s.w, 'a=src/deep', 'b=README.md'])
    assert.equal(out.status, 0)
    assert.deepEqual(camel(JSON.parse(out.stdout)), apart)
  }
  await assert.rejects(ws.overlap([{ name: 'only', scope: {} }]), (e) => e.code === 'invalid-argument')
  // A writer's set may be named by patterns (the kit's `case-*.md`).
  s.write('g/case-1.md', '1')
  const byPattern = await ws.overlap([{ name: 'cases', patterns: ['case-*.md'] }, { name: 'g', scope: { roots: ['g'] } }])
  assert.deepEqual(byPattern.shared.map((p) => [p.path, p.scopes]), [['g/case-1.md', ['cases', 'g']]])
})

test('inventoryAt reads a commit from Git objects, as the CLI does', { skip: noCli }, async (t) => {
  const s = sampleCheckout(t)
  const ws = s.ws
  s.commitAll()
  const head = s.git('rev-parse', 'HEAD').trim()
  const at = await ws.inventoryAt('HEAD', { scope: { roots: ['src'] } })
  assert.equal(at.commit, head)
  // A clean checkout: the commit's tree is the working tree.
  assert.deepEqual(at.inventory.entries, (await ws.inventory({ roots: ['src'] })).entries)
  assert.equal(at.inventory.fingerprint, lastLine(cli(['fingerprint', '--rev', 'HEAD', '--workspace', s.w, '--root', 'src']).stdout))
  s.write('src/lib.rs', 'pub fn changed() {}\n')
  assert.equal(ws.inventoryAtSync('HEAD', { scope: { roots: ['src'] } }).inventory.fingerprint, at.inventory.fingerprint)
  await assert.rejects(ws.inventoryAt('no-such-rev'), (e) => e instanceof ledger.LedgerError && e.code === 'invalid-argument')
})

test('exclusion patterns, and exclusions that remove nothing', async (t) => {
  const s = sampleCheckout(t)
  const ws = s.ws
  s.write('g/case-1.md', '1')
  s.write('g/risks-1.md', 'r')
  const inventory = await ws.inventory({ exclude: ['g/case-*.md'] })
  assert.ok(!inventory.entries.some((e) => e.path === 'g/case-1.md'))
  assert.equal(inventory.scope.exclusions[1].pattern, true)
  await assert.rejects(ws.fingerprint({ exclude: ['nope/*.md'] }), (e) => e instanceof ledger.LedgerError && e.code === 'unmatched-exclusion')
  const matches = await ws.exclusionMatches({ exclude: ['g/case-*.md', 'nope'], allowUnmatchedExclusions: true })
  assert.deepEqual(matches.map((m) => [m.path, m.paths]), [['g/case-*.md', ['g/case-1.md']], ['nope', []]])
})
