// Gates declared once in ledger.toml: listed, run and checked as declared, all
// run in dependency order; the CLI reuses what Node ran, and a check runs
// nothing the file says.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { test } from 'node:test'

import { cli, noCli, sampleCheckout } from './helpers.mjs'

function setup(t) {
  const s = sampleCheckout(t)
  const runs = path.join(s.dir, 'runs')
  const marker = path.join(s.dir, 'marker')
  fs.writeFileSync(runs, '')
  s.write(
    'ledger.toml',
    `[gates.lint]
command = ["sh", "-c", "echo lint >> '${runs}'; echo linting"]
roots = ["src"]
env = ["MODE=ci"]
env-cmd = { marker = "touch '${marker}'; echo m-1" }

[gates.test]
command = ["sh", "-c", "echo test >> '${runs}'; test -f src/lib.rs"]
roots = ["src"]
exclude = [{ path = "src/deep", reason = "fixtures, not inputs" }]
needs = ["lint"]
timeout = "2m"
`,
  )
  const ran = () => fs.readFileSync(runs, 'utf8').split('\n').filter(Boolean)
  return { s, ws: s.ws, ran, marker }
}

test('declaredGates lists the gates in dependency order, in camelCase', async (t) => {
  const { ws } = setup(t)
  const gates = await ws.declaredGates()
  assert.deepEqual(
    gates.map((g) => g.name),
    ['lint', 'test'],
  )
  assert.equal(gates[1].timeoutMs, 120000)
  assert.deepEqual(gates[1].exclude, [{ path: 'src/deep', reason: 'fixtures, not inputs' }])
  assert.match(gates[0].envCmd.marker, /echo m-1$/)
  assert.deepEqual(ws.declaredGatesSync(), gates)
})

test('runDeclaredGate, checkDeclaredGate and runDeclaredGates', { skip: noCli }, async (t) => {
  const { s, ws, ran, marker } = setup(t)
  const first = await ws.runDeclaredGate('lint', { echo: 'off' })
  assert.equal(first.reused, false)
  assert.equal(first.exitCode, 0)
  assert.deepEqual(first.evidence.prerequisites, { MODE: 'ci', marker: 'm-1' })
  assert.ok(fs.existsSync(marker), 'a run observes the declared command')
  fs.rmSync(marker)
  const check = await ws.checkDeclaredGate('lint')
  assert.deepEqual(
    check.reasons.map((r) => r.reason),
    ['prerequisite-unverified'],
  )
  assert.ok(!fs.existsSync(marker), 'a check ran a command read from ledger.toml')
  const given = ws.checkDeclaredGateSync('lint', { prerequisites: { marker: { literal: 'm-1' } } })
  assert.equal(given.fresh, true)
  // One spec, every door: the CLI reuses the evidence Node recorded.
  const out = cli(['gate', 'run', 'lint'], { cwd: s.w })
  assert.match(out.stderr, /reused, not run/)
  assert.deepEqual(ran(), ['lint'])
  const all = await ws.runDeclaredGates({ echo: 'off' })
  assert.deepEqual(
    all.runs.map((r) => [r.gate, r.status]),
    [
      ['lint', 'reused'],
      ['test', 'passed'],
    ],
  )
  assert.equal(all.exitCode, 0)
  assert.deepEqual(ran(), ['lint', 'test'])
  fs.rmSync(marker) // the runs observed it again
  const checked = await ws.checkDeclaredGates({ prerequisites: { marker: { literal: 'm-1' } } })
  assert.deepEqual(
    checked.map((f) => [f.gate, f.fresh]),
    [
      ['lint', true],
      ['test', true],
    ],
  )
  assert.deepEqual(ws.checkDeclaredGatesSync().map((f) => f.fresh), [false, true])
  assert.ok(!fs.existsSync(marker), 'a check ran a command read from ledger.toml')
  assert.throws(() => ws.runDeclaredGateSync('nope'), /declared: lint, test/)
})
