// The installed package through import (ESM): the named exports come from
// Node's detection of the CommonJS entry's exports, which must see through
// index.js to the generated loader.
import assert from 'node:assert/strict'

import * as ledger from 'ledger-fingerprint'
import { fingerprint, runGate } from 'ledger-fingerprint'

import checks from './checks.cjs'

assert.equal(typeof fingerprint, 'function', 'named export fingerprint')
assert.equal(typeof runGate, 'function', 'named export runGate')
await checks.run(ledger, 'import')
