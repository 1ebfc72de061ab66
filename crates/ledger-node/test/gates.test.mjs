// Gate evidence: run, reuse while fresh, stale with every reason — the same
// documents as `ledger gate check --json`.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { cli, expectCode, ledger, ledgerBin, noCli, packageDir, sampleCheckout, sha256hex } from './helpers.mjs'

function setup(t) {
  const s = sampleCheckout(t)
  const counter = path.join(s.dir, 'runs')
  fs.writeFileSync(counter, '')
  const spec = {
    name: 'test',
    argv: ['sh', '-c', `echo run >> '${counter}'; echo hello from the gate`],
    scope: { workspace: s.w, roots: ['src'] },
    prerequisites: { mode: { literal: 'debug' }, shell: { command: 'echo sh-1' } },
  }
  const runs = () => fs.readFileSync(counter, 'utf8').split('\n').filter(Boolean).length
  return { s, spec, runs }
}

test('runGate runs once, then reuses fresh evidence; an input change makes it stale', async (t) => {
  const { s, spec, runs } = setup(t)
  assert.equal(await ledger.latestEvidence({ workspace: s.w, gate: 'test' }), null)
  const never = await ledger.checkGate(spec)
  assert.equal(never.fresh, false)
  assert.deepEqual(never.reasons, [{ reason: 'no-evidence' }])

  const first = await ledger.runGate(spec)
  assert.equal(first.reused, false)
  assert.equal(first.evidence.exit_status, 0)
  assert.equal(first.evidence.result, 'hello from the gate')
  assert.deepEqual(first.evidence.prerequisites, { mode: 'debug', shell: 'sh-1' })
  assert.equal(runs(), 1)
  const second = ledger.runGateSync(spec, 'off')
  assert.equal(second.reused, true)
  assert.equal(second.freshness.fresh, true)
  assert.equal(runs(), 1, 'fresh evidence was reused, the command did not run')

  const latest = ledger.latestEvidenceSync({ workspace: s.w, gate: 'test' })
  assert.equal(latest.record, first.record)
  assert.deepEqual(latest.evidence, first.evidence)

  s.write('src/lib.rs', 'changed\n')
  const stale = await ledger.checkGate({ ...spec, prerequisites: { mode: { literal: 'release' }, shell: { command: 'echo sh-1' } } })
  assert.equal(stale.fresh, false)
  assert.deepEqual(
    stale.reasons.map((r) => r.reason),
    ['prerequisite-changed', 'inputs-changed'],
  )
  const inputs = stale.reasons[1].comparison
  assert.deepEqual(
    inputs.changes.map((c) => [c.change, c.new.path]),
    [['content-changed', 'src/lib.rs']],
  )
})

test('checkGate equals ledger gate check --json', { skip: noCli }, async (t) => {
  const { s, spec } = setup(t)
  const cliSpec = { ...spec, prerequisites: { mode: { literal: 'debug' } } }
  await ledger.runGate(cliSpec)
  const args = ['gate', 'check', '--name', 'test', '--workspace', s.w, '--root', 'src', '--env', 'mode=debug', '--json']
  const fresh = JSON.parse(cli([...args, '--', ...spec.argv], { cwd: s.w }).stdout)
  assert.equal(fresh.fresh, true)
  assert.deepEqual(await ledger.checkGate(cliSpec), fresh)
  fs.chmodSync(s.path('src/lib.rs'), 0o755)
  const stale = JSON.parse(cli([...args, '--', ...spec.argv], { cwd: s.w, ok: [1] }).stdout)
  assert.deepEqual(ledger.checkGateSync(cliSpec), stale)
  assert.deepEqual(
    stale.reasons.map((r) => r.reason),
    ['inputs-changed'],
  )
  // A failing command is recorded, and never reused.
  const failing = { ...cliSpec, argv: ['sh', '-c', 'exit 3'] }
  const outcome = await ledger.runGate(failing)
  assert.equal(outcome.evidence.exit_status, 3)
  const again = await ledger.checkGate(failing)
  assert.deepEqual(
    again.reasons.map((r) => r.reason),
    ['failed'],
  )
})

test('a cwd below the workspace is one directory however it is written', async (t) => {
  const { s, spec, runs } = setup(t)
  const inSrc = { ...spec, argv: ['sh', '-c', `${spec.argv[2]}; ls lib.rs`], cwd: 'src/' }
  const first = await ledger.runGate(inSrc)
  assert.equal(first.evidence.spec.cwd, 'src')
  assert.equal(first.evidence.result, 'hello from the gate\nlib.rs')
  for (const cwd of ['src/', './src', 'src']) {
    assert.equal((await ledger.checkGate({ ...inSrc, cwd })).fresh, true, cwd)
    assert.equal(ledger.runGateSync({ ...inSrc, cwd }).reused, true, cwd)
  }
  assert.equal(runs(), 1)
  const elsewhere = await ledger.checkGate({ ...inSrc, cwd: '.' })
  assert.deepEqual(
    elsewhere.reasons.map((r) => r.reason),
    ['command-differs'],
  )
  await expectCode(assert, () => ledger.checkGate({ ...inSrc, cwd: '../up' }), 'outside-workspace', '../up')
  await expectCode(assert, () => ledger.runGate({ ...inSrc, argv: [] }), 'invalid-argument', 'argv', {
    pathProperty: false,
  })
  if (!noCli) {
    const args = ['gate', 'check', '--name', 'test', '--root', 'src', '--env', 'mode=debug', '--env-cmd', 'shell=echo sh-1']
    const out = cli([...args, '--json', '--', ...inSrc.argv], { cwd: s.path('src') })
    assert.equal(JSON.parse(out.stdout).fresh, true)
  }
})

test('an unset variable differs from an empty one', async (t) => {
  const { spec, runs } = setup(t)
  const name = 'LEDGER_NODE_TEST_FLAGS'
  delete process.env[name]
  t.after(() => delete process.env[name])
  const withFlags = { ...spec, prerequisites: { flags: { environment: name } } }
  const first = await ledger.runGate(withFlags)
  assert.deepEqual(first.evidence.prerequisites, { flags: null })
  assert.equal((await ledger.runGate(withFlags)).reused, true)
  process.env[name] = ''
  const stale = await ledger.checkGate(withFlags)
  assert.deepEqual(stale.reasons, [{ reason: 'prerequisite-changed', name: 'flags', recorded: null, now: '' }])
  const again = await ledger.runGate(withFlags)
  assert.deepEqual([again.reused, again.evidence.prerequisites], [false, { flags: '' }])
  assert.equal(runs(), 2)
})

test('values that are not text are refused, never collapsed into one', async (t) => {
  const { s, spec, runs } = setup(t)
  for (const value of ['\uD800', '\uDBFF']) {
    const lone = { ...spec, prerequisites: { tool: { literal: `v${value}` } } }
    await expectCode(assert, () => ledger.runGate(lone), 'non-utf8-value', 'prerequisite tool', { pathProperty: false })
  }
  for (const output of ["printf '\\377'", "printf '\\376'"]) {
    const bytes = { ...spec, prerequisites: { tool: { command: output } } }
    await expectCode(assert, () => ledger.checkGate(bytes), 'non-utf8-value', 'output of', { pathProperty: false })
  }
  await expectCode(assert, () => ledger.runGate({ ...spec, argv: ['echo', '\uDC00'] }), 'non-utf8-value', 'argument', {
    pathProperty: false,
  })
  assert.equal(runs(), 0)
  assert.equal(ledger.latestEvidenceSync({ workspace: s.w, gate: 'test' }), null)
})

test('evidence whose entries do not give its fingerprint is refused', async (t) => {
  const { s, spec, runs } = setup(t)
  const first = await ledger.runGate(spec)
  s.write('src/lib.rs', 'changed after the run\n')
  const now = await ledger.fingerprint(spec.scope)
  // A consistent record (it hashes to its name) whose fingerprint claims the
  // inputs as they are now, while its entries are those the gate saw.
  const store = path.join(s.w, '.ledger')
  const record = JSON.parse(fs.readFileSync(path.join(store, 'records', `${first.record}.json`), 'utf8'))
  record.previous = first.record
  record.body.inventory.fingerprint = now
  const bytes = Buffer.from(JSON.stringify(record, null, 2) + '\n')
  const lie = sha256hex(bytes)
  fs.writeFileSync(path.join(store, 'records', `${lie}.json`), bytes)
  fs.writeFileSync(path.join(store, 'refs', 'gates', 'test'), `${lie}\n`)
  for (const call of [() => ledger.checkGate(spec), () => ledger.runGate(spec)]) {
    const e = await expectCode(assert, call, 'malformed-record', `${lie}.json`)
    assert.match(e.message, /not its recorded fingerprint/)
  }
  assert.equal(runs(), 1, 'the gate did not run on a lying record')
})

test('a long runGate holds no libuv pool thread: other async calls complete meanwhile', async (t) => {
  const { s } = setup(t)
  const go = path.join(s.dir, 'go')
  // With one pool thread, a gate on the pool would keep `fingerprint` waiting
  // until it gave up; on a thread of its own, `fingerprint` answers first.
  const script = `
    const ledger = require(${JSON.stringify(path.join(packageDir, 'index.js'))})
    const fs = require('node:fs')
    const go = ${JSON.stringify(go)}
    const gate = ledger.runGate({
      name: 'wait',
      argv: ['sh', '-c', 'i=0; while [ ! -e "$0" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; [ -e "$0" ] && echo saw go || echo gave up', go],
      scope: { workspace: ${JSON.stringify(s.w)}, roots: ['src'] },
    })
    ledger.fingerprint({ workspace: ${JSON.stringify(s.w)}, roots: ['src'] }).then((fp) => {
      fs.writeFileSync(go, fp)
      return gate
    }).then((outcome) => console.log(outcome.evidence.result))
  `
  const out = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, UV_THREADPOOL_SIZE: '1' },
    encoding: 'utf8',
    timeout: 30_000,
  })
  assert.equal(out.status, 0, out.stderr)
  assert.equal(out.stdout.trim(), 'saw go')
})

test('runGate with timeoutMs stops the gate and records it as not reusable', async (t) => {
  const { s } = setup(t)
  const spec = { name: 'slow', argv: ['sh', '-c', 'sleep 30'], scope: { workspace: s.w, roots: ['src'] } }
  const started = performance.now()
  const outcome = await ledger.runGate(spec, 'off', 300)
  assert.ok(performance.now() - started < 10_000)
  assert.equal(outcome.evidence.exit_status, null)
  assert.equal(outcome.evidence.signal, 15)
  assert.equal(outcome.exit_code, 124, 'a timed-out run exits as GNU timeout does')
  assert.deepEqual(outcome.evidence.stopped, { by: 'timeout', after_ms: 300 })
  assert.match(outcome.evidence.not_reusable, /^timed out after 300ms/)
  const check = await ledger.checkGate(spec)
  assert.deepEqual(check.reasons.map((r) => r.reason), ['failed', 'not-reusable'])
  await expectCode(assert, () => ledger.runGate(spec, 'off', 0), 'invalid-argument', 'timeoutMs', { pathProperty: false })
  assert.throws(() => ledger.runGateSync(spec, 'off', -5), (e) => e.code === 'invalid-argument')
  const killed = await ledger.runGate({ ...spec, name: 'usr1', argv: ['sh', '-c', 'kill -USR1 $$'] })
  assert.equal(killed.evidence.signal, 10)
  assert.equal(killed.exit_code, 128 + 10, 'signal N exits 128+N')
})

test('checkRecordedGate runs no recorded command and reports what it cannot observe', async (t) => {
  const { s, spec } = setup(t)
  const marker = path.join(s.dir, 'observed')
  const observed = { ...spec, prerequisites: { tool: { command: `touch '${marker}'; echo tool 1.0` } } }
  await ledger.runGate(observed)
  fs.rmSync(marker)
  const check = await ledger.checkRecordedGate({ workspace: s.w, name: 'test' })
  assert.equal(check.fresh, false)
  assert.deepEqual(check.reasons, [{ reason: 'prerequisite-unverified', name: 'tool', recorded: 'tool 1.0' }])
  assert.equal(fs.existsSync(marker), false, 'a recorded command ran')
  const now = { tool: { literal: 'tool 1.0' } }
  assert.equal(ledger.checkRecordedGateSync({ workspace: s.w, name: 'test', prerequisites: now }).fresh, true)
  const other = await ledger.checkRecordedGate({ workspace: s.w, name: 'test', argv: ['make'], prerequisites: now })
  assert.deepEqual(other.reasons.map((r) => r.reason), ['command-differs'])
  await expectCode(
    assert,
    () => ledger.checkRecordedGate({ workspace: s.w, name: 'test', scope: { workspace: s.dir } }),
    'outside-workspace',
    s.dir,
    { pathProperty: false },
  )
})

test('a failing run keeps its whole output; gateOutput gives its raw bytes', async (t) => {
  const { s } = setup(t)
  const script = "exec >&2; i=0; while [ $i -lt 200 ]; do echo line $i; i=$((i+1)); done; printf 'raw \\377\\n'; exit 3"
  const spec = { name: 'out', argv: ['sh', '-c', script], scope: { workspace: s.w, roots: ['src'] } }
  assert.equal(await ledger.gateOutput({ workspace: s.w, gate: 'out' }), null)
  const outcome = await ledger.runGate(spec, 'off')
  assert.equal(outcome.exit_code, 3)
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join('')
  const expected = Buffer.concat([Buffer.from(lines), Buffer.from([0x72, 0x61, 0x77, 0x20, 0xff, 0x0a])])
  assert.equal(outcome.evidence.output.total_bytes, expected.length)
  assert.equal(outcome.evidence.output.truncated, undefined)
  assert.equal(outcome.evidence.output.digest, `sha256:${sha256hex(expected)}`)
  assert.deepEqual(await ledger.gateOutput({ workspace: s.w, gate: 'out' }), expected)
  assert.deepEqual(ledger.gateOutputSync({ workspace: s.w, gate: 'out' }), expected)
  if (!noCli) {
    const shown = spawnSync(ledgerBin(), ['gate', 'show', 'out'], { cwd: s.w })
    assert.equal(shown.status, 0, String(shown.stderr))
    assert.deepEqual(shown.stdout, expected, 'ledger gate show prints the same bytes')
  }
})

test('what a gate leaves in its process group is stopped when it ends', async (t) => {
  const { s } = setup(t)
  const pidFile = path.join(s.dir, 'pid')
  const spec = {
    name: 'leaves',
    argv: ['sh', '-c', `sleep 30 & echo $! > '${pidFile}'; exit 0`],
    scope: { workspace: s.w, roots: ['src'] },
  }
  const started = performance.now()
  const outcome = await ledger.runGate(spec, 'off', 1000)
  assert.ok(performance.now() - started < 20_000)
  assert.equal(outcome.exit_code, 0)
  assert.equal(outcome.evidence.left_in_group, true)
  const pid = fs.readFileSync(pidFile, 'utf8').trim()
  const stat = `/proc/${pid}/stat`
  assert.ok(!fs.existsSync(stat) || fs.readFileSync(stat, 'utf8').split(')').pop().trim().startsWith('Z'))
})

test('a gate whose inputs would be normalized is refused', async (t) => {
  const { s } = setup(t)
  s.write('src/tasks.md', '- [ ] 1.1 do it\n')
  const spec = { name: 'tasks', argv: ['true'], scope: { workspace: s.w, roots: ['src'], tasks: ['src/tasks.md'] } }
  await expectCode(assert, () => ledger.runGate(spec), 'invalid-argument', 'raw bytes', { pathProperty: false })
})
