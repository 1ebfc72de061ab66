// The async API leaves the JavaScript thread free: timers keep firing while a
// large fingerprint runs on the libuv pool. The Sync twin holds the thread for
// the whole call: not one timer fires during it.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import { Sandbox } from './helpers.mjs'

const FILES = 40
const FILE_BYTES = 8 << 20 // 40 x 8 MiB = 320 MiB: long enough to see timers tick
const TICK_MS = 5

test('timers fire during a large async fingerprint; the Sync twin blocks them', async (t) => {
  const s = new Sandbox(t)
  const block = randomBytes(FILE_BYTES)
  for (let i = 0; i < FILES; i++) {
    block.writeUInt32LE(i, 0) // every file different
    s.write(`big/${String(i).padStart(2, '0')}.bin`, block)
  }
  const ws = s.ws
  const options = { roots: ['big'] }

  let ticks = 0
  const timer = setInterval(() => ticks++, TICK_MS)
  t.after(() => clearInterval(timer))
  await sleep(3 * TICK_MS) // the interval is running
  assert.ok(ticks > 0)

  // Async: the interval keeps ticking until the Promise settles.
  ticks = 0
  let started = performance.now()
  const promise = ws.fingerprint(options)
  const fp = await promise
  const asyncMs = performance.now() - started
  const asyncTicks = ticks
  t.diagnostic(`async: ${asyncMs.toFixed(0)} ms, ${asyncTicks} ticks of ${TICK_MS} ms`)
  assert.match(fp, /^sha256:[0-9a-f]{64}$/)
  assert.ok(asyncTicks >= 3, `expected the timer to fire during the async call, got ${asyncTicks} ticks in ${asyncMs} ms`)

  // Sync: no callback can run while it holds the thread.
  ticks = 0
  started = performance.now()
  const fpSync = ws.fingerprintSync(options)
  const syncMs = performance.now() - started
  const syncTicks = ticks
  t.diagnostic(`sync: ${syncMs.toFixed(0)} ms, ${syncTicks} ticks`)
  assert.equal(fpSync, fp)
  assert.equal(syncTicks, 0)
  assert.ok(syncMs >= 3 * TICK_MS, `the sync call took ${syncMs} ms: too short to show blocking`)
  // And once it returns, the timer resumes.
  await sleep(4 * TICK_MS)
  assert.ok(ticks > 0)

  // The same holds for inventory() and compare().
  ticks = 0
  const inventory = await ws.inventory(options)
  assert.equal(inventory.entries.length, FILES)
  const comparison = await ws.compare(inventory)
  assert.equal(comparison.matches, true)
  assert.ok(ticks >= 3, `timer ticks during inventory + compare: ${ticks}`)
})
