// The smoke test of the installed npm package, shared by smoke.cjs (require)
// and smoke.mjs (import), under Node and under Bun: a known fingerprint through
// the async call and its sync twin, the shared vectors, an error with its code
// and class, and a gate that runs once and is then reused. Each check can fail.
'use strict'

const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

/** The v1 fingerprint of one file `a.txt` holding "hello\n", mode 100644 (tests/vectors, "one file"). */
const ONE_FILE = 'sha256:847a58e9b87e68459589f0fac43636c2da8452953dd4524fd04b9b87fd691aae'

async function run(ledger, label) {
  let checks = 0
  const check = async (name, body) => {
    try {
      await body()
      checks += 1
    } catch (err) {
      err.message = `${label}: ${name}: ${err.message}`
      throw err
    }
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-smoke-'))
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-smoke-runs-'))
  try {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n', { mode: 0o644 })
    const ws = new ledger.Workspace(dir)
    const scope = { roots: ['a.txt'] }

    await check('fingerprint (async)', async () => {
      const pending = ws.fingerprint(scope)
      assert.ok(pending instanceof Promise, 'fingerprint returns a Promise')
      assert.equal(await pending, ONE_FILE)
    })
    await check('fingerprintSync', () => assert.equal(ws.fingerprintSync(scope), ONE_FILE))
    await check('the shared vectors', () => {
      const file = path.join(__dirname, 'fingerprint-v1.json')
      const { vectors } = JSON.parse(fs.readFileSync(file, 'utf8'))
      assert.ok(vectors.length >= 5)
      for (const v of vectors) {
        const entries = v.entries.map(([p, kind, mode, digest]) => ({ path: p, kind, mode, digest }))
        assert.equal(ledger.fingerprintEntriesSync(entries), v.fingerprint, v.name)
      }
    })
    await check('an error code (async and sync)', async () => {
      const outside = { roots: ['../elsewhere'] }
      const refused = (e) => e instanceof ledger.LedgerError && e.code === ledger.ErrorCode.OutsideWorkspace
      await assert.rejects(ws.fingerprint(outside), refused)
      assert.throws(() => ws.fingerprintSync(outside), refused)
      await assert.rejects(ws.fingerprint({ root: ['a.txt'] }), (e) => e instanceof ledger.LedgerError && e.code === 'invalid-argument')
    })
    await check('a gate runs, is reused, then goes stale', async () => {
      const runs = path.join(scratch, 'runs')
      const spec = { argv: ['sh', '-c', `echo ran >> '${runs}'; echo gate ok`], scope }
      const first = await ws.runGate('smoke', { ...spec, echo: 'off' })
      assert.equal(first.reused, false)
      assert.equal(first.evidence.exitStatus, 0)
      assert.equal(first.evidence.result, 'gate ok')
      const second = ws.runGateSync('smoke', { ...spec, echo: 'off' })
      assert.equal(second.reused, true, 'fresh evidence is reused')
      assert.equal(fs.readFileSync(runs, 'utf8'), 'ran\n', 'the command ran once')
      fs.writeFileSync(path.join(dir, 'a.txt'), 'changed\n')
      const stale = await ws.checkGate('smoke', spec)
      assert.equal(stale.fresh, false)
      assert.deepEqual(stale.reasons.map((r) => r.reason), ['inputs-changed'])
    })
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
    fs.rmSync(scratch, { recursive: true, force: true })
  }
  const runtime = typeof Bun === 'undefined' ? `node ${process.version}` : `bun ${Bun.version}`
  console.log(`smoke ${label} (${runtime}): ${checks} passed, 0 failed`)
}

module.exports = { run }
