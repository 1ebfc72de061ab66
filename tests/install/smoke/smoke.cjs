// The installed package through require() (CommonJS).
'use strict'

const ledger = require('ledger-fingerprint')

require('./checks.cjs')
  .run(ledger, 'require')
  .catch((err) => {
    console.error(err)
    process.exit(1)
  })
