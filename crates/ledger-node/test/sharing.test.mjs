// Evidence that travels (docs/sharing.md), through the Node door: a bare
// repository as the remote, clones made with `git clone`, keys made with
// ssh-keygen. Signed gate evidence is reused in a fresh clone without running
// the command, unsigned trust is refused (`untrusted-evidence`), approvals
// travel with their provenance, and two clones that advanced one change see a
// divergence they resolve without losing a record. The CLI's version of the
// same scenarios is crates/ledger-cli/tests/sharing.rs.
//
// The signing settings are each workspace's: a team's workspaces are made
// with the settings `team.sign` gave last.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { after, before, test } from 'node:test'

import { expectCode, ledger, run, Sandbox, Workspace } from './helpers.mjs'

// The gate appends to `$COUNTER` (outside every checkout, so the argv is the
// same in every clone) and reads the checkout's input.
const ARGV = ['sh', '-c', 'echo run >> "$COUNTER"; cat src/input.txt']
const CHANGE = 'add-auth'
const REF = `changes/${CHANGE}`
const FETCH = '+refs/ledger/heads/*:refs/ledger/remotes/origin/*'
const PUSH = 'refs/ledger/heads/*:refs/ledger/heads/*'
const UNSET = { signingKey: null, allowedSigners: null }

// No signing settings from the environment: a workspace made here has only
// those its test gives it.
const savedEnv = {}
before(() => {
  for (const name of ['LEDGER_SIGNING_KEY', 'LEDGER_ALLOWED_SIGNERS', 'COUNTER']) {
    savedEnv[name] = process.env[name]
    delete process.env[name]
  }
})
after(() => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

/** A seed checkout pushed to `remote.git`; `alice` and `bob` cloned from it,
 * each with `remoteSetup` done; keys for alice and mallory. */
class Team {
  constructor(t) {
    this.s = new Sandbox(t)
    this.root = this.s.dir
    this.s.init()
    this.s.write('src/input.txt', 'checked input\n')
    this.s.write(`openspec/changes/${CHANGE}/proposal.md`, '# Why\n')
    this.s.commitAll()
    this.git(this.root, 'clone', '-q', '--bare', 'w', 'remote.git')
    this.clones = {}
    // The signing settings of the workspaces made from now on (`sign`).
    this.signing = {}
  }

  /** The signing settings of every workspace made from now on. */
  sign(settings = {}) {
    this.signing = { ...UNSET, ...settings }
  }

  static async make(t) {
    const team = new Team(t)
    for (const name of ['alice', 'bob']) await team.cloneAs(name)
    for (const name of ['alice', 'mallory']) team.key(name)
    return team
  }

  at(name) {
    return path.join(this.root, name)
  }

  ws(name) {
    return new Workspace(this.at(name), this.signing)
  }

  git(dir, ...args) {
    return run('git', ['-C', dir, ...args]).stdout
  }

  fetchRefspecs(name) {
    return this.git(this.at(name), 'config', '--get-all', 'remote.origin.fetch').split('\n').filter(Boolean)
  }

  /** A fresh clone of the remote, its ledger remote set up (added the first
   * time, there the second; the fetch refspec once in Git's config). */
  async cloneAs(name) {
    this.git(this.root, 'clone', '-q', 'remote.git', name)
    const ws = this.ws(name)
    const first = await ws.remoteSetup()
    assert.deepEqual(first, { remote: 'origin', fetch: FETCH, added: true, push: PUSH })
    assert.ok(this.fetchRefspecs(name).includes(FETCH))
    const again = ws.remoteSetupSync({ remote: 'origin' })
    assert.deepEqual(again, { ...first, added: false })
    assert.equal(this.fetchRefspecs(name).filter((r) => r === FETCH).length, 1)
    return ws
  }

  /** An Ed25519 key `keys/<name>` and `keys/<name>.allowed` naming it. */
  key(name) {
    const keys = path.join(this.root, 'keys')
    fs.mkdirSync(keys, { recursive: true })
    const key = path.join(keys, name)
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key])
    const pub = fs.readFileSync(`${key}.pub`, 'utf8')
    fs.writeFileSync(path.join(keys, `${name}.allowed`), `${name}@example.com namespaces="git" ${pub}`)
  }

  keyPath(name) {
    return path.join(this.root, 'keys', name)
  }

  allowed(name) {
    return this.keyPath(`${name}.allowed`)
  }

  counter(name) {
    return path.join(this.root, `${name}.runs`)
  }

  /** How often the gate ran in `name`. */
  runs(name) {
    const file = this.counter(name)
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0
  }

  gateRun(name, gate = 'test') {
    process.env.COUNTER = this.counter(name)
    try {
      return this.ws(name).runGateSync(gate, { argv: ARGV, echo: 'off' })
    } finally {
      delete process.env.COUNTER
    }
  }

  gateCheck(name, gate = 'test') {
    return this.ws(name).checkGate(gate, { argv: ARGV })
  }

  approve(name, source) {
    return this.ws(name).approve(CHANGE, 'proposal', { source })
  }

  push(name) {
    const out = run('git', ['-C', this.at(name), 'push', '-q', 'origin', 'refs/ledger/heads/*'], { ok: [0, 1] })
    return out.status === 0
  }

  fetch(name) {
    this.git(this.at(name), 'fetch', '-q', 'origin')
  }
}

const reasons = (freshness) => freshness.reasons.map((r) => r.reason)

test('remoteSetup adds the fetch refspec once and refuses an unknown remote', async (t) => {
  const team = await Team.make(t) // checked added true, then false, for alice and bob
  for (const remote of ['upstream', 'no/such']) {
    await expectCode(assert, () => team.ws('alice').remoteSetup({ remote }), 'invalid-argument', undefined)
  }
  assert.ok(team.fetchRefspecs('alice').includes(FETCH))
  assert.ok(!team.git(team.at('alice'), 'config', '--list').includes('upstream'))
})

test('a fresh clone reuses signed evidence and keeps approvals with their provenance', async (t) => {
  const team = await Team.make(t)
  team.sign({ signingKey: team.keyPath('alice') })
  const made = team.ws('alice').settings()
  assert.deepEqual([made.signingKey, made.allowedSigners], [team.keyPath('alice'), null])
  const ran = team.gateRun('alice')
  assert.equal(ran.exitCode, 0)
  assert.equal(ran.reused, false)
  assert.equal(team.runs('alice'), 1)
  await team.approve('alice', 'review #12')
  // alice's own records are local: no signature needed to trust them.
  const own = await team.ws('alice').provenance('gates/test')
  assert.equal(own.local, true)
  assert.equal(own.remote, null)
  assert.equal(own.record, ran.record)
  assert.ok(team.push('alice'))

  // CI: a fresh clone at another path, trusting alice's key.
  team.sign({ allowedSigners: team.allowed('alice') })
  let ci = await team.cloneAs('ci')
  assert.equal(await ci.provenance('gates/test'), null, 'nothing fetched yet')
  team.fetch('ci')
  const check = await team.gateCheck('ci')
  assert.equal(check.fresh, true, JSON.stringify(check))
  assert.equal(check.record, ran.record)
  const reused = team.gateRun('ci')
  assert.equal(reused.reused, true)
  assert.equal(reused.exitCode, 0)
  assert.equal(team.runs('ci'), 0, 'signed evidence is reused: the command did not run')

  const came = await ci.provenance('gates/test')
  assert.equal(came.record, ran.record)
  assert.equal(came.local, false)
  assert.equal(came.remote, 'origin')
  assert.equal(came.signer, 'alice@example.com')
  assert.match(came.key, /^SHA256:/)
  assert.equal(came.signatureProblem, null)

  // The approval travelled, and says where it came from and who signed it.
  const status = await ci.status(CHANGE)
  assert.equal(status.artifacts[0].artifact, 'proposal')
  assert.equal(status.artifacts[0].state, 'approved')
  assert.equal(status.provenance.remote, 'origin')
  assert.equal(status.provenance.local, false)
  assert.equal(status.provenance.signer, 'alice@example.com')
  assert.equal(status.provenance.record, status.stateRecord)

  // Nobody trusted: the same evidence is untrusted, and would run.
  team.sign()
  ci = team.ws('ci')
  assert.deepEqual([ci.settings().signingKey, ci.settings().allowedSigners], [null, null])
  const untrusted = await team.gateCheck('ci')
  assert.equal(untrusted.fresh, false)
  assert.deepEqual(reasons(untrusted), ['untrusted-evidence'])
  assert.ok(untrusted.reasons[0].why, JSON.stringify(untrusted))
  const unsigned = ci.provenanceSync('gates/test')
  assert.equal(unsigned.signer, null)
  assert.ok(unsigned.signatureProblem, JSON.stringify(unsigned))
  // The approval still reads (it binds content), with no signer now.
  const plain = ci.statusSync(CHANGE)
  assert.equal(plain.artifacts[0].state, 'approved')
  assert.equal(plain.provenance.remote, 'origin')
  assert.equal(plain.provenance.signer, null)
})

test('evidence signed by another key is untrusted and the gate runs', async (t) => {
  const team = await Team.make(t)
  team.sign({ signingKey: team.keyPath('mallory') })
  assert.equal(team.gateRun('alice').exitCode, 0)
  assert.ok(team.push('alice'))
  team.sign({ allowedSigners: team.allowed('alice') })
  await team.cloneAs('ci')
  team.fetch('ci')
  const check = await team.gateCheck('ci')
  assert.equal(check.fresh, false)
  assert.deepEqual(reasons(check), ['untrusted-evidence'])
  assert.match(check.reasons[0].why, /SHA256:/)
  const ran = team.gateRun('ci')
  assert.equal(ran.reused, false)
  assert.equal(ran.exitCode, 0)
  assert.equal(team.runs('ci'), 1, 'untrusted evidence is not reused: the gate ran')
  // Evidence ci wrote itself is its own: reused from then on.
  assert.equal(team.gateRun('ci').reused, true)
  assert.equal(team.runs('ci'), 1)
  const mine = await team.ws('ci').provenance('gates/test')
  assert.equal(mine.local, true)
  assert.equal(mine.record, ran.record)
})

test('a verdict from elsewhere stands only when an allowed signer signed it', async (t) => {
  const team = await Team.make(t)
  team.sign({ signingKey: team.keyPath('mallory') })
  await team.ws('alice').verdictRecord('by-mallory', { verdict: 'PASS', source: 'review 1', scope: { roots: ['src'] } })
  team.sign({ signingKey: team.keyPath('alice') })
  await team.ws('alice').verdictRecord('by-alice', { verdict: 'PASS', source: 'review 2', scope: { roots: ['src'] } })
  assert.ok(team.push('alice'))
  team.sign({ allowedSigners: team.allowed('alice') })
  await team.cloneAs('ci')
  team.fetch('ci')
  const untrusted = await team.ws('ci').verdictCheck('by-mallory')
  assert.equal(untrusted.comparison.matches, true, 'its state is unchanged')
  assert.equal(untrusted.stands, false, 'nobody allowed signed it')
  assert.match(untrusted.unproven, /fetched from origin/)
  const trusted = await team.ws('ci').verdictCheck('by-alice')
  assert.equal(trusted.stands, true)
  assert.equal(trusted.unproven, null)
})

test('two clones that advanced one change see a divergence and lose nothing', async (t) => {
  const team = await Team.make(t)
  const alice = team.ws('alice')
  const bob = team.ws('bob')
  await team.approve('alice', 'base')
  assert.ok(team.push('alice'))
  team.fetch('bob')
  const base = (await bob.status(CHANGE)).stateRecord
  assert.ok(base)
  assert.equal((await alice.status(CHANGE)).stateRecord, base)
  await team.approve('alice', "alice's review")
  await team.approve('bob', "bob's review")
  const mine = (await bob.status(CHANGE)).stateRecord
  assert.ok(mine && mine !== base)
  // alice pushes first and wins; bob's push is not a fast-forward.
  assert.ok(team.push('alice'))
  assert.equal(team.push('bob'), false, 'git refuses a push that is not a fast-forward')
  team.fetch('bob')

  const error = await expectCode(assert, () => bob.status(CHANGE), 'divergent-heads', undefined)
  assert.ok(error.message.includes(mine), error.message)
  const report = await bob.storeCheck()
  assert.equal(report.clean, false)
  assert.deepEqual(report.divergent.map((d) => d.reference), [REF])
  const keep = (await alice.status(CHANGE)).stateRecord
  assert.ok(keep && keep !== base && keep !== mine)
  assert.deepEqual(report.divergent[0].heads, [`${mine} (local)`, `${keep} (fetched from origin)`])

  await expectCode(assert, () => bob.resolve(REF, '0'.repeat(64)), 'invalid-argument', undefined)
  assert.equal(await bob.resolve(REF, keep), keep)
  assert.deepEqual(bob.storeCheckSync().divergent, [])
  assert.ok(team.push('bob'), 'the resolution fast-forwards')
  assert.equal((await bob.status(CHANGE)).stateRecord, keep)
  const count = team.git(team.at('bob'), 'rev-list', '--count', `refs/ledger/heads/${REF}`).trim()
  assert.equal(count, '4', 'base, both reviews, the resolution')
  team.fetch('alice')
  assert.equal((await alice.status(CHANGE)).stateRecord, keep)

  // A ref that has not gone apart has nothing to resolve.
  await expectCode(assert, () => alice.resolve(REF, keep), 'invalid-argument', undefined)
  assert.throws(() => alice.resolveSync(REF, keep), (e) => e instanceof ledger.LedgerError && e.code === 'invalid-argument')
})

test('signing settings are the workspace\'s; an empty file name is refused', async (t) => {
  const team = new Team(t)
  team.key('alice')
  const both = { signingKey: team.keyPath('alice'), allowedSigners: team.allowed('alice') }
  const ws = new Workspace(team.root, both)
  assert.equal(ws.settings().signingKey, both.signingKey)
  assert.equal(ws.settings().allowedSigners, both.allowedSigners)
  for (const options of [{ signingKey: '' }, { allowedSigners: '' }]) {
    assert.throws(() => new Workspace(team.root, options), (e) => e instanceof ledger.LedgerError && e.code === 'invalid-argument')
  }
  // Another workspace of the same directory has its own settings.
  const other = new Workspace(team.root, { allowedSigners: team.allowed('alice') })
  assert.equal(other.settings().signingKey, null)
  assert.equal(ws.settings().signingKey, both.signingKey)
})

test('two workspaces with different signers judge the same evidence each their way', async (t) => {
  // Issue 44: in one process, at once, a workspace that trusts alice and one
  // that trusts nobody; neither sees the other's settings.
  const team = await Team.make(t)
  team.sign({ signingKey: team.keyPath('alice') })
  assert.equal(team.gateRun('alice').exitCode, 0)
  assert.ok(team.push('alice'))
  team.sign()
  await team.cloneAs('ci')
  team.fetch('ci')
  const trusting = new Workspace(team.at('ci'), { allowedSigners: team.allowed('alice') })
  const doubting = new Workspace(team.at('ci'))
  process.env.COUNTER = team.counter('ci')
  const [trusted, doubted] = await Promise.all([
    trusting.checkGate('test', { argv: ARGV }),
    doubting.checkGate('test', { argv: ARGV }),
  ])
  assert.equal(trusted.fresh, true, JSON.stringify(trusted))
  assert.deepEqual(reasons(doubted), ['untrusted-evidence'])
  assert.equal(trusting.checkGateSync('test', { argv: ARGV }).fresh, true, 'the other workspace\'s settings leaked')
})
