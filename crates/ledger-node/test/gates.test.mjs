// Gate evidence: run, reuse while fresh, stale with every reason — the same
// documents as `ledger gate check --json`.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { camel, cli, expectCode, ledgerBin, noCli, packageDir, run, sampleCheckout, sha256hex, Workspace } from './helpers.mjs'

function setup(t) {
  const s = sampleCheckout(t)
  const counter = path.join(s.dir, 'runs')
  fs.writeFileSync(counter, '')
  // The gate `test`: what runs, on which inputs, with which prerequisites.
  const spec = {
    argv: ['sh', '-c', `echo run >> '${counter}'; echo hello from the gate`],
    scope: { roots: ['src'] },
    prerequisites: { mode: { literal: 'debug' }, shell: { command: 'echo sh-1' } },
  }
  const runs = () => fs.readFileSync(counter, 'utf8').split('\n').filter(Boolean).length
  return { s, ws: s.ws, spec, runs }
}

test('runGate runs once, then reuses fresh evidence; an input change makes it stale', async (t) => {
  const { s, ws, spec, runs } = setup(t)
  assert.equal(await ws.latestEvidence('test'), null)
  const never = await ws.checkGate('test', spec)
  assert.equal(never.fresh, false)
  assert.deepEqual(never.reasons, [{ reason: 'no-evidence' }])

  const first = await ws.runGate('test', spec)
  assert.equal(first.reused, false)
  assert.equal(first.evidence.exitStatus, 0)
  assert.equal(first.evidence.result, 'hello from the gate')
  assert.deepEqual(first.evidence.prerequisites, { mode: 'debug', shell: 'sh-1' })
  assert.equal(runs(), 1)
  const second = ws.runGateSync('test', { ...spec, echo: 'off' })
  assert.equal(second.reused, true)
  assert.equal(second.freshness.fresh, true)
  assert.equal(runs(), 1, 'fresh evidence was reused, the command did not run')
  // A reused run carries the evidence it reused, and its record.
  assert.equal(second.record, first.record)
  assert.deepEqual(second.evidence, first.evidence)

  const latest = ws.latestEvidenceSync('test')
  assert.equal(latest.record, first.record)
  assert.deepEqual(latest.evidence, first.evidence)

  s.write('src/lib.rs', 'changed\n')
  const stale = await ws.checkGate('test', { ...spec, prerequisites: { mode: { literal: 'release' }, shell: { command: 'echo sh-1' } } })
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
  const { s, ws, spec } = setup(t)
  const cliSpec = { ...spec, prerequisites: { mode: { literal: 'debug' } } }
  await ws.runGate('test', cliSpec)
  const args = ['gate', 'check', '--name', 'test', '--workspace', s.w, '--root', 'src', '--env', 'mode=debug', '--json']
  const fresh = JSON.parse(cli([...args, '--', ...spec.argv], { cwd: s.w }).stdout)
  assert.equal(fresh.fresh, true)
  assert.deepEqual(await ws.checkGate('test', cliSpec), camel(fresh))
  fs.chmodSync(s.path('src/lib.rs'), 0o755)
  const stale = JSON.parse(cli([...args, '--', ...spec.argv], { cwd: s.w, ok: [1] }).stdout)
  assert.deepEqual(ws.checkGateSync('test', cliSpec), camel(stale))
  assert.deepEqual(
    stale.reasons.map((r) => r.reason),
    ['inputs-changed'],
  )
  // A failing command is recorded, and never reused.
  const failing = { ...cliSpec, argv: ['sh', '-c', 'exit 3'] }
  const outcome = await ws.runGate('test', failing)
  assert.equal(outcome.evidence.exitStatus, 3)
  const again = await ws.checkGate('test', failing)
  assert.deepEqual(
    again.reasons.map((r) => r.reason),
    ['failed'],
  )
})

test('a cwd below the workspace is one directory however it is written', async (t) => {
  const { s, ws, spec, runs } = setup(t)
  const inSrc = { ...spec, argv: ['sh', '-c', `${spec.argv[2]}; ls lib.rs`], cwd: 'src/' }
  const first = await ws.runGate('test', inSrc)
  assert.equal(first.evidence.spec.cwd, 'src')
  assert.equal(first.evidence.result, 'hello from the gate\nlib.rs')
  for (const cwd of ['src/', './src', 'src']) {
    assert.equal((await ws.checkGate('test', { ...inSrc, cwd })).fresh, true, cwd)
    assert.equal(ws.runGateSync('test', { ...inSrc, cwd }).reused, true, cwd)
  }
  assert.equal(runs(), 1)
  const elsewhere = await ws.checkGate('test', { ...inSrc, cwd: '.' })
  assert.deepEqual(
    elsewhere.reasons.map((r) => r.reason),
    ['command-differs'],
  )
  await expectCode(assert, () => ws.checkGate('test', { ...inSrc, cwd: '../up' }), 'outside-workspace', '../up')
  await expectCode(assert, () => ws.runGate('test', { ...inSrc, argv: [] }), 'invalid-argument', 'argv', {
    pathProperty: false,
  })
  if (!noCli) {
    const args = ['gate', 'check', '--name', 'test', '--root', 'src', '--env', 'mode=debug', '--env-cmd', 'shell=echo sh-1']
    const out = cli([...args, '--json', '--', ...inSrc.argv], { cwd: s.path('src') })
    assert.equal(JSON.parse(out.stdout).fresh, true)
  }
})

test('an unset variable differs from an empty one', async (t) => {
  const { ws, spec, runs } = setup(t)
  const name = 'LEDGER_NODE_TEST_FLAGS'
  delete process.env[name]
  t.after(() => delete process.env[name])
  const withFlags = { ...spec, prerequisites: { flags: { environment: name } } }
  const first = await ws.runGate('test', withFlags)
  assert.deepEqual(first.evidence.prerequisites, { flags: null })
  assert.equal((await ws.runGate('test', withFlags)).reused, true)
  process.env[name] = ''
  const stale = await ws.checkGate('test', withFlags)
  assert.deepEqual(stale.reasons, [{ reason: 'prerequisite-changed', name: 'flags', recorded: null, now: '' }])
  const again = await ws.runGate('test', withFlags)
  assert.deepEqual([again.reused, again.evidence.prerequisites], [false, { flags: '' }])
  assert.equal(runs(), 2)
})

test('values that are not text are refused, never collapsed into one', async (t) => {
  const { ws, spec, runs } = setup(t)
  for (const value of ['\uD800', '\uDBFF']) {
    const lone = { ...spec, prerequisites: { tool: { literal: `v${value}` } } }
    await expectCode(assert, () => ws.runGate('test', lone), 'non-utf8-value', 'prerequisites.tool.literal', { pathProperty: false })
  }
  for (const output of ["printf '\\377'", "printf '\\376'"]) {
    const bytes = { ...spec, prerequisites: { tool: { command: output } } }
    await expectCode(assert, () => ws.checkGate('test', bytes), 'non-utf8-value', 'output of', { pathProperty: false })
  }
  await expectCode(assert, () => ws.runGate('test', { ...spec, argv: ['echo', '\uDC00'] }), 'non-utf8-value', 'argv[1]', {
    pathProperty: false,
  })
  assert.equal(runs(), 0)
  assert.equal(ws.latestEvidenceSync('test'), null)
})

test('evidence whose entries do not give its fingerprint is refused', async (t) => {
  const { s, ws, spec, runs } = setup(t)
  const first = await ws.runGate('test', spec)
  s.write('src/lib.rs', 'changed after the run\n')
  const now = await ws.fingerprint(spec.scope)
  // A consistent record (it hashes to its name) whose fingerprint claims the
  // inputs as they are now, while its entries are those the gate saw.
  // The checkout's store is the repository's (docs/sharing.md): the lie is
  // written where it keeps its records and committed on its ref as ledger would.
  const store = path.join(s.w, '.git', 'ledger')
  const record = JSON.parse(fs.readFileSync(path.join(store, 'records', `${first.record}.json`), 'utf8'))
  record.previous = first.record
  record.body.inventory.fingerprint = now
  const bytes = Buffer.from(JSON.stringify(record, null, 2) + '\n')
  const lie = sha256hex(bytes)
  fs.writeFileSync(path.join(store, 'records', `${lie}.json`), bytes)
  const ref = 'refs/ledger/heads/gates/test'
  fs.writeFileSync(path.join(s.dir, 'lie.json'), bytes)
  const blob = s.git('hash-object', '-w', path.join(s.dir, 'lie.json')).toString().trim()
  const tree = run('git', ['-C', s.w, 'mktree'], { input: `100644 blob ${blob}\trecord.json\n` }).stdout.trim()
  const commit = s.git('commit-tree', tree, '-p', ref, '-m', 'forged').toString().trim()
  s.git('update-ref', ref, commit)
  for (const call of [() => ws.checkGate('test', spec), () => ws.runGate('test', spec)]) {
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
    const { Workspace } = require(${JSON.stringify(path.join(packageDir, 'index.js'))})
    const fs = require('node:fs')
    const go = ${JSON.stringify(go)}
    const ws = new Workspace(${JSON.stringify(s.w)})
    const gate = ws.runGate('wait', {
      argv: ['sh', '-c', 'i=0; while [ ! -e "$0" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; [ -e "$0" ] && echo saw go || echo gave up', go],
      scope: { roots: ['src'] },
    })
    ws.fingerprint({ roots: ['src'] }).then((fp) => {
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
  const { ws } = setup(t)
  const spec = { argv: ['sh', '-c', 'sleep 30'], scope: { roots: ['src'] } }
  const started = performance.now()
  const outcome = await ws.runGate('slow', { ...spec, echo: 'off', timeoutMs: 300 })
  assert.ok(performance.now() - started < 10_000)
  assert.equal(outcome.evidence.exitStatus, null)
  assert.equal(outcome.evidence.signal, 15)
  assert.equal(outcome.exitCode, 124, 'a timed-out run exits as GNU timeout does')
  assert.deepEqual(outcome.evidence.stopped, { by: 'timeout', afterMs: 300 })
  assert.match(outcome.evidence.notReusable, /^timed out after 300ms/)
  const check = await ws.checkGate('slow', spec)
  assert.deepEqual(check.reasons.map((r) => r.reason), ['failed', 'not-reusable'])
  await expectCode(assert, () => ws.runGate('slow', { ...spec, timeoutMs: 0 }), 'invalid-argument', 'timeout', { pathProperty: false })
  assert.throws(() => ws.runGateSync('slow', { ...spec, timeoutMs: -5 }), (e) => e.code === 'invalid-argument')
  const killed = await ws.runGate('usr1', { ...spec, argv: ['sh', '-c', 'kill -USR1 $$'] })
  assert.equal(killed.evidence.signal, 10)
  assert.equal(killed.exitCode, 128 + 10, 'signal N exits 128+N')
})

test('checkRecordedGate runs no recorded command and reports what it cannot observe', async (t) => {
  const { s, ws, spec } = setup(t)
  const marker = path.join(s.dir, 'observed')
  const observed = { ...spec, prerequisites: { tool: { command: `touch '${marker}'; echo tool 1.0` } } }
  await ws.runGate('test', observed)
  fs.rmSync(marker)
  const check = await ws.checkRecordedGate('test')
  assert.equal(check.fresh, false)
  assert.deepEqual(check.reasons, [{ reason: 'prerequisite-unverified', name: 'tool', recorded: 'tool 1.0' }])
  assert.equal(fs.existsSync(marker), false, 'a recorded command ran')
  const now = { tool: { literal: 'tool 1.0' } }
  assert.equal(ws.checkRecordedGateSync('test', { prerequisites: now }).fresh, true)
  const other = await ws.checkRecordedGate('test', { argv: ['make'], prerequisites: now })
  assert.deepEqual(other.reasons.map((r) => r.reason), ['command-differs'])
  // A scope reaching out of the caller's workspace is refused.
  await expectCode(assert, () => ws.checkRecordedGate('test', { scope: { roots: [s.dir] } }), 'outside-workspace', s.dir)
})

test('a failing run keeps its whole output; gateOutput gives its raw bytes', async (t) => {
  const { s, ws } = setup(t)
  const script = "exec >&2; i=0; while [ $i -lt 200 ]; do echo line $i; i=$((i+1)); done; printf 'raw \\377\\n'; exit 3"
  const spec = { argv: ['sh', '-c', script], scope: { roots: ['src'] } }
  assert.equal(await ws.gateOutput('out'), null)
  const outcome = await ws.runGate('out', { ...spec, echo: 'off' })
  assert.equal(outcome.exitCode, 3)
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join('')
  const expected = Buffer.concat([Buffer.from(lines), Buffer.from([0x72, 0x61, 0x77, 0x20, 0xff, 0x0a])])
  assert.equal(outcome.evidence.output.totalBytes, expected.length)
  assert.equal(outcome.evidence.output.truncated, undefined)
  assert.equal(outcome.evidence.output.digest, `sha256:${sha256hex(expected)}`)
  const kept = await ws.gateOutput('out')
  assert.ok(Buffer.isBuffer(kept))
  assert.deepEqual(kept, expected)
  assert.deepEqual(ws.gateOutputSync('out'), expected)
  assert.deepEqual(await ws.evidenceOutput(outcome.record), expected, 'the same bytes by record id')
  if (!noCli) {
    const shown = spawnSync(ledgerBin(), ['gate', 'show', 'out'], { cwd: s.w })
    assert.equal(shown.status, 0, String(shown.stderr))
    assert.deepEqual(shown.stdout, expected, 'ledger gate show prints the same bytes')
  }
})

test('keepOutputBytes bounds the kept output, and a line in it names the dropped bytes and lines', async (t) => {
  const { s, ws } = setup(t)
  const spec = { argv: ['sh', '-c', 'seq 1 1000; exit 1'], scope: { roots: ['src'] }, echo: 'off' }
  const everything = Buffer.from(Array.from({ length: 1000 }, (_, i) => `${i + 1}\n`).join(''))
  // Worked out here: the first quarter of the bound, the marker, the last three quarters.
  const bound = 1024
  const head = bound / 4
  const end = everything.length - (bound - head)
  const lineOf = (offset) => everything.subarray(0, offset).filter((b) => b === 0x0a).length + 1
  const [first, last] = [lineOf(head), lineOf(end - 1)]
  assert.deepEqual([head, end, first, last], [256, 3125, 89, 809])
  const marker = `\n[ledger: output elided: bytes ${head}..${end} (lines ${first} to ${last}) of ${everything.length} bytes dropped; the start and the end are kept]\n`
  const kept = Buffer.concat([everything.subarray(0, head), Buffer.from(marker), everything.subarray(end)])
  const outcome = await ws.runGate('big', { ...spec, keepOutputBytes: bound })
  const output = outcome.evidence.output
  assert.equal(output.boundBytes, bound)
  assert.deepEqual(output.truncated, {
    headBytes: head,
    droppedBytes: end - head,
    droppedFromLine: first,
    droppedToLine: last,
    markerBytes: marker.length,
  })
  assert.deepEqual(await ws.gateOutput('big'), kept)
  assert.equal(output.digest, `sha256:${sha256hex(kept)}`)
  const whole = ws.runGateSync('big', { ...spec, keepOutputBytes: 4096 })
  assert.equal(whole.evidence.output.truncated, undefined)
  assert.deepEqual(ws.gateOutputSync('big'), everything)
  for (const bad of [0, -1, 2 ** 31, 1.5, '1MiB']) {
    await expectCode(assert, () => ws.runGate('big', { ...spec, keepOutputBytes: bad }), 'invalid-argument', 'keepOutputBytes', {
      pathProperty: false,
    })
  }
  s.write('ledger.toml', '[gates.big]\ncommand = ["sh", "-c", "seq 1 1000; exit 1"]\nkeep-output = "1KiB"\n')
  assert.equal((await ws.declaredGates())[0].keepOutputBytes, 1024)
  const declared = await ws.runDeclaredGate('big', { echo: 'off' })
  assert.equal(declared.evidence.output.boundBytes, 1024)
  const over = ws.runDeclaredGateSync('big', { echo: 'off', keepOutputBytes: 2048 })
  assert.equal(over.evidence.output.boundBytes, 2048)
  const all = await ws.runDeclaredGates({ echo: 'off', keepOutputBytes: 512 })
  assert.equal(all.runs[0].outcome.evidence.output.boundBytes, 512)
})

test('what a gate leaves in its process group is stopped when it ends', async (t) => {
  const { s, ws } = setup(t)
  const pidFile = path.join(s.dir, 'pid')
  const spec = {
    argv: ['sh', '-c', `sleep 30 & echo $! > '${pidFile}'; exit 0`],
    scope: { roots: ['src'] },
  }
  const started = performance.now()
  const outcome = await ws.runGate('leaves', { ...spec, echo: 'off', timeoutMs: 1000 })
  assert.ok(performance.now() - started < 20_000)
  assert.equal(outcome.exitCode, 0)
  assert.equal(outcome.evidence.leftInGroup, true)
  const pid = fs.readFileSync(pidFile, 'utf8').trim()
  const stat = `/proc/${pid}/stat`
  assert.ok(!fs.existsSync(stat) || fs.readFileSync(stat, 'utf8').split(')').pop().trim().startsWith('Z'))
})

test('a gate whose inputs would be normalized is refused', async (t) => {
  const { s, ws } = setup(t)
  s.write('src/tasks.md', '- [ ] 1.1 do it\n')
  const spec = { argv: ['true'], scope: { roots: ['src'], tasks: ['src/tasks.md'] } }
  await expectCode(assert, () => ws.runGate('tasks', spec), 'invalid-argument', 'raw bytes', { pathProperty: false })
})

/** Whether process `pid` has ended (a zombie not reaped yet has ended too). */
function goneOrZombie(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim().startsWith('Z')
  } catch {
    return true
  }
}

/** Resolves once `file` exists (the gate wrote it), polling; rejects after a minute. */
async function appears(file) {
  const deadline = performance.now() + 60_000
  while (!fs.existsSync(file)) {
    if (performance.now() > deadline) throw new Error(`${file} never appeared`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

test('an AbortSignal cancels runGate: nothing runs when aborted before, the process group is stopped when aborted during', async (t) => {
  const { s, ws } = setup(t)
  const marker = path.join(s.dir, 'sleeper-pid')
  const counter = path.join(s.dir, 'slow-runs')
  // The marker holds the pid of a process in the gate's process group, written
  // whole (renamed into place) once the gate has started.
  const script = `echo run >> '${counter}'; sleep 30 & echo $! > '${marker}.tmp'; mv '${marker}.tmp' '${marker}'; wait`
  const spec = { argv: ['sh', '-c', script], scope: { roots: ['src'] } }

  // Aborted before the call: nothing runs, nothing is recorded, in both twins.
  await expectCode(assert, () => ws.runGate('slow', { ...spec, signal: AbortSignal.abort() }), 'cancelled', 'slow', { pathProperty: false })
  assert.throws(() => ws.runGateSync('slow', { ...spec, signal: AbortSignal.abort() }), (e) => e.code === 'cancelled')
  assert.equal(fs.existsSync(counter), false, 'an aborted call ran the command')
  assert.equal(await ws.latestEvidence('slow'), null)

  // Aborted once the command has started.
  const controller = new AbortController()
  const started = performance.now()
  const running = ws.runGate('slow', { ...spec, echo: 'off', signal: controller.signal })
  await appears(marker)
  controller.abort()
  const stopped = await expectCode(assert, () => running, 'cancelled', 'slow', { pathProperty: false })
  assert.ok(performance.now() - started < 25_000, 'the gate was not stopped')
  assert.equal(fs.readFileSync(counter, 'utf8'), 'run\n')
  assert.ok(goneOrZombie(fs.readFileSync(marker, 'utf8').trim()), "the gate's process group outlived the abort")
  const latest = await ws.latestEvidence('slow')
  assert.deepEqual(latest.evidence.stopped, { by: 'interrupt' })
  assert.ok(stopped.message.includes(latest.record), stopped.message)
  assert.equal((await ws.checkGate('slow', spec)).fresh, false)

  // The signal is the wrapper's: it is never sent to the core as an option,
  // and only an AbortSignal is one.
  const ran = await ws.runGate('quick', { argv: ['true'], scope: { roots: ['src'] }, signal: new AbortController().signal })
  assert.equal(ran.exitCode, 0)
  await expectCode(assert, () => ws.runGate('quick', { argv: ['true'], scope: { roots: ['src'] }, signal: {} }), 'invalid-argument', 'AbortSignal', { pathProperty: false })
})

test('an AbortSignal cancels runDeclaredGates: no gate starts after the one it stopped', async (t) => {
  const { s, ws } = setup(t)
  const marker = path.join(s.dir, 'started')
  const runs = path.join(s.dir, 'declared-runs')
  // By name, a-slow comes first; b-after needs nothing, so only the abort
  // keeps it from starting.
  s.write(
    'ledger.toml',
    `[gates.a-slow]
command = ["sh", "-c", "echo slow >> '${runs}'; touch '${marker}'; sleep 30"]
roots = ["src"]

[gates.b-after]
command = ["sh", "-c", "echo after >> '${runs}'"]
roots = ["src"]
`,
  )
  await expectCode(assert, () => ws.runDeclaredGates({ signal: AbortSignal.abort() }), 'cancelled', 'a-slow', { pathProperty: false })
  await expectCode(assert, () => ws.runDeclaredGate('b-after', { signal: AbortSignal.abort() }), 'cancelled', 'b-after', { pathProperty: false })
  assert.equal(fs.existsSync(runs), false, 'an aborted call ran a declared gate')

  const controller = new AbortController()
  const running = ws.runDeclaredGates({ echo: 'off', signal: controller.signal })
  await appears(marker)
  controller.abort()
  await expectCode(assert, () => running, 'cancelled', 'a-slow', { pathProperty: false })
  assert.equal(fs.readFileSync(runs, 'utf8'), 'slow\n', 'a gate started after the abort')
  assert.equal((await ws.checkDeclaredGate('a-slow')).fresh, false)
})

test("two worktrees alternating one gate each reuse their earlier run: once per fingerprint", async (t) => {
  const { s, spec, runs } = setup(t)
  const fixerDir = path.join(s.dir, 'fixer')
  s.git('worktree', 'add', '-q', fixerDir)
  fs.writeFileSync(path.join(fixerDir, 'src', 'lib.rs'), '// fixed\n')
  const main = s.ws
  const fixer = new Workspace(fixerDir)
  const base = runs()
  for (let round = 0; round < 3; round++) {
    for (const ws of [main, fixer]) assert.equal((await ws.runGate('test', spec)).exitCode, 0)
    assert.equal(runs() - base, 2, `round ${round}: once per fingerprint`)
    assert.equal((await main.checkGate('test', spec)).fresh, true)
    assert.equal((await fixer.checkGate('test', spec)).fresh, true)
  }
  await main.limitReuse('test', 1, 'only the newest run')
  assert.equal((await main.checkGate('test', spec)).fresh, false)
})
