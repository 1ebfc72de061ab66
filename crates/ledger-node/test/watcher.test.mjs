// The walk memo and the opt-in watcher through the package: with
// setWatchman(true) and a private Watchman server named by WATCHMAN_SOCK, a
// fingerprint answers what it answers without the cache after every kind of
// change, after the server restarted and once it is gone; an unreachable
// Watchman changes nothing (docs/performance.md, The walk memo, The watcher).
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import { ledger, Sandbox } from './helpers.mjs'

// A step of the wait for a tree to age past the cache's timestamp granularity
// (a tenth of a second where times keep fractions, two seconds where not).
const STEP_MS = 120

// The most steps waited: well past two seconds, so a wait that ends here failed.
const STEPS = 100

const noWatchman = (process.env.PATH ?? '').split(':').some((dir) => dir && fs.existsSync(path.join(dir, 'watchman')))
  ? false
  : 'no watchman on PATH to run a private server (CI installs it: apt-get install watchman)'

/** Whether the Unix socket `sock` accepts a connection. */
function accepts(sock) {
  return new Promise((resolve) => {
    const probe = net.createConnection(sock)
    probe.once('connect', () => {
      probe.destroy()
      resolve(true)
    })
    probe.once('error', () => resolve(false))
  })
}

/** A private Watchman server: socket, state, log and pid files in a directory
 * of its own, the machine's configuration left out (as ledger_testkit's). */
class WatchmanServer {
  constructor(t) {
    // A short directory: a Unix socket's path has at most 107 bytes.
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-'))
    fs.writeFileSync(path.join(this.dir, 'config.json'), '{}')
    this.sock = path.join(this.dir, 'sock')
    this.child = undefined
    t.after(async () => {
      await this.stop()
      fs.rmSync(this.dir, { recursive: true, force: true })
    })
  }

  async start() {
    const file = (name) => path.join(this.dir, name)
    const child = spawn(
      'watchman',
      [
        '--foreground',
        '--no-save-state',
        `--sockname=${file('sock')}`,
        `--statefile=${file('state')}`,
        `--logfile=${file('log')}`,
        `--pidfile=${file('pid')}`,
      ],
      { env: { ...process.env, WATCHMAN_CONFIG_FILE: file('config.json') }, stdio: 'ignore' },
    )
    this.child = child
    let failed
    child.once('error', (e) => (failed = e))
    // Bounded: until the socket accepts a connection.
    for (let i = 0; i < 3000; i++) {
      if (await accepts(this.sock)) return
      if (failed) throw new Error(`cannot start watchman: ${failed.message}`)
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`watchman exited (${child.exitCode ?? child.signalCode}) before listening: ${this.log()}`)
      }
      await sleep(10)
    }
    throw new Error(`watchman did not listen within 30 s: ${this.log()}`)
  }

  async stop() {
    const child = this.child
    this.child = undefined
    if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }

  /** A fresh instance on the same socket: the clocks kept name a server that is gone. */
  async restart() {
    await this.stop()
    await this.start()
  }

  /** The roots this server watches (`watch-list`), asked without spawning one. */
  watched() {
    const out = execFileSync('watchman', [`--sockname=${this.sock}`, '--no-spawn', '--no-pretty', 'watch-list'], {
      timeout: 60_000,
    })
    return JSON.parse(out.toString()).roots
  }

  log() {
    try {
      return fs.readFileSync(path.join(this.dir, 'log'), 'utf8')
    } catch {
      return '(no log)'
    }
  }
}

/** Sets the environment variable `name` for the test (`undefined`: unset), as it was afterwards. */
function setEnv(t, name, value) {
  const saved = process.env[name]
  t.after(() => {
    if (saved === undefined) delete process.env[name]
    else process.env[name] = saved
  })
  if (value === undefined) delete process.env[name]
  else process.env[name] = value
}

/** The watcher switched `on` for the test, as it was afterwards. */
function watcher(t, on) {
  const before = ledger.watchmanEnabledSync()
  t.after(() => ledger.setWatchmanSync(before))
  ledger.setWatchmanSync(on)
}

/** Tracked, untracked and ignored files, a `.gitignore` and a store (which
 * the cache, and so the walk memo, needs). */
function checkout(t) {
  const s = new Sandbox(t)
  s.init()
  s.write('.ledger/.gitignore', '*\n')
  s.write('.gitignore', 'build/\n*.log\n')
  s.write('src/lib.rs', 'pub fn f() {}\n')
  s.write('docs/guide.md', 'guide\n')
  s.commitAll()
  s.write('notes.txt', 'notes\n')
  s.write('new/a.txt', 'a\n')
  s.write('new/deeper/b.txt', 'b\n')
  s.write('build/out.bin', 'ignored\n')
  s.write('run.log', 'ignored\n')
  return s
}

/** The answer without the cache, so without the walk memo or the watcher. */
function uncached(s) {
  try {
    ledger.setDigestCacheSync(false)
    return s.ws.fingerprintSync()
  } finally {
    ledger.setDigestCacheSync(true)
  }
}

/** The answers with the cache (and the watcher when on), async and Sync, equal the one without. */
async function check(s, what) {
  const cached = await s.ws.fingerprint()
  const cachedSync = s.ws.fingerprintSync()
  const truth = uncached(s)
  assert.equal(cached, truth, what)
  assert.equal(cachedSync, truth, `${what} (Sync)`)
  return truth
}

function memo(s) {
  try {
    return fs.readFileSync(s.path('.ledger/walk-memo'))
  } catch {
    return undefined
  }
}

/** Waits (bounded) until the tree is old enough for a call to remember its
 * walk: `checked` runs each step until the memo is written anew, then once
 * more, which replays it. */
async function settle(s, checked) {
  const before = memo(s)
  for (let i = 0; i < STEPS; i++) {
    await sleep(STEP_MS)
    await checked()
    const now = memo(s)
    if (now && !(before && now.equals(before))) {
      await checked()
      return
    }
  }
  throw new Error('no call remembered the walk of an aged tree')
}

// The change that leaves the answer as it was.
const UNSEEN = 'a new file in an ignored directory'

// Each kind of change: contents alone, and what the walk depends on.
const CHANGES = [
  ['an untracked file rewritten', (s) => s.write('notes.txt', 'notes, rewritten\n')],
  ['a new untracked file', (s) => s.write('new/c.txt', 'c\n')],
  ['a removed untracked file', (s) => fs.rmSync(s.path('new/a.txt'))],
  ['a removed tracked file', (s) => fs.rmSync(s.path('docs/guide.md'))],
  ['a new directory', (s) => s.write('fresh/f.txt', 'f\n')],
  ['a .gitignore rewritten', (s) => s.write('.gitignore', 'build/\n*.log\n*.txt\n')],
  [UNSEEN, (s) => s.write('build/more/new.bin', 'more\n')],
  ['a directory ignored no more', (s) => s.write('.gitignore', '*.log\n*.txt\n')],
]

test('setWatchman and watchmanEnabled round-trip', async (t) => {
  watcher(t, ledger.watchmanEnabledSync())
  assert.equal(await ledger.setWatchman(true), null)
  assert.equal(await ledger.watchmanEnabled(), true)
  assert.equal(ledger.watchmanEnabledSync(), true)
  ledger.setWatchmanSync(false)
  assert.equal(await ledger.watchmanEnabled(), false)
  assert.equal(ledger.watchmanEnabledSync(), false)
})

test('the watcher answers as without the cache after every change', { skip: noWatchman }, async (t) => {
  const server = new WatchmanServer(t)
  await server.start()
  setEnv(t, 'WATCHMAN_SOCK', server.sock)
  watcher(t, true)
  const s = checkout(t)
  await settle(s, () => check(s, 'aged'))
  // The core asked this server to watch the worktree: the watcher is on.
  assert.ok(server.watched().includes(fs.realpathSync(s.w)), `${s.w} is watched`)
  let last = await check(s, 'nothing changed')
  for (const [what, change] of CHANGES) {
    change(s)
    // At once: the memo is stale and the change too recent to be remembered.
    const now = await check(s, what)
    if (what !== UNSEEN) assert.notEqual(now, last, `${what} changes the answer`)
    await settle(s, () => check(s, what))
    last = await check(s, `${what}, settled`)
  }

  // A fresh instance knows no clock the memo kept: the directories are looked at instead.
  await server.restart()
  await check(s, 'the server restarted')
  s.write('after-restart.txt', 'r\n')
  await check(s, 'a new file after the restart')
  await settle(s, () => check(s, 'after the restart'))

  // Gone: the same answers, by looking at the directories.
  await server.stop()
  await check(s, 'the server gone')
  s.write('new/after-stop.txt', 'd\n')
  await check(s, 'a new file with the server gone')
  await settle(s, () => check(s, 'with the server gone'))
  s.write('new/deeper/b.txt', 'b, rewritten\n')
  await check(s, 'a rewrite with the server gone')
})

test('an unreachable Watchman changes nothing', async (t) => {
  watcher(t, true)
  const s = checkout(t)
  const nowhere = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-node-nowhere-'))
  t.after(() => fs.rmSync(nowhere, { recursive: true, force: true }))
  // Set after the repository is built: git needs PATH, the checks do not.
  // An empty PATH leaves no `watchman get-sockname` to fall back on.
  setEnv(t, 'PATH', nowhere)
  setEnv(t, 'WATCHMAN_SOCK', undefined)
  const socks = [path.join(nowhere, 'no-such-sock'), undefined, '']
  for (const [n, sock] of socks.entries()) {
    if (sock === undefined) delete process.env.WATCHMAN_SOCK
    else process.env.WATCHMAN_SOCK = sock
    const label = `WATCHMAN_SOCK=${JSON.stringify(sock)}`
    // A new file each round, so that each round's wait sees a memo written anew.
    await settle(s, () => check(s, `aged, ${label}`))
    s.write(`new/deeper/c${n}.txt`, 'c\n')
    await check(s, `a new untracked file, ${label}`)
  }
})

test('the walk memo alone replays only an unchanged tree', async (t) => {
  watcher(t, false)
  const s = checkout(t)
  await settle(s, () => check(s, 'aged'))
  const before = await check(s, 'nothing changed')
  // A new entry moves only its own directory's times, not its parents'.
  s.write('new/deeper/c.txt', 'c\n')
  const after = await check(s, 'a new untracked file')
  assert.notEqual(after, before)
  await settle(s, () => check(s, 'settled'))
  assert.equal(await check(s, 'settled, unchanged'), after)
})
