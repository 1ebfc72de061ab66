// The installed package through import (ESM): the named exports come from
// Node's detection of the CommonJS entry's exports, which must see through
// index.js to the generated loader.
import assert from 'node:assert/strict'

import * as ledger from 'ledger-fingerprint'
import { LedgerError, Workspace, fingerprintEntries } from 'ledger-fingerprint'

import checks from './checks.cjs'

assert.equal(typeof Workspace, 'function', 'named export Workspace')
assert.equal(typeof LedgerError, 'function', 'named export LedgerError')
assert.equal(typeof fingerprintEntries, 'function', 'named export fingerprintEntries')
await checks.run(ledger, 'import')
