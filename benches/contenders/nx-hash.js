#!/usr/bin/env node
// Hashes every file of a workspace with Nx's native hasher, the way Nx builds the file
// map of its project graph: `new WorkspaceContext(root, cacheDir)` walks the workspace
// (respecting .gitignore and .nxignore, in Rust, on all cores) and hashes each file with
// xxh3 (64 bit, not cryptographic); `allFileData()` returns [{file, hash}] for all of
// them. This is what `nx`'s `setupWorkspaceContext` + `getAllFileDataInContext` do.
//
// The context keeps an archive of its last walk in cacheDir (nx_files_v2.nxt) and re-reads
// only files whose stat changed since: with `--fresh` the archive is deleted first, so
// every file is read (Nx's first run); without it a second run is stat-only (Nx's warm
// state, the counterpart of ledger's digest cache).
//
// Usage: node nx-hash.js ROOT CACHE_DIR [--fresh]   prints "<files> <xxh3 of the map>", then
//        the seconds from the context's creation to the map (Node's start and the loading
//        of the native module left out, as for ledger's own binding rows)
//        node nx-hash.js --check                    prints the Nx version, or fails
// The nx package is taken from benches/contenders/.tools (install.sh), else from Node's
// usual resolution (a global or NODE_PATH install).
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

function loadNx(name) {
  const local = path.join(__dirname, '.tools', 'package.json');
  try {
    return createRequire(local)(name);
  } catch (err) {
    return require(name);
  }
}

function main(argv) {
  const native = loadNx('nx/src/native');
  if (argv[0] === '--check') {
    console.log(loadNx('nx/package.json').version);
    return;
  }
  const [root, cacheDir, flag] = argv;
  if (!root || !cacheDir) {
    throw new Error('usage: nx-hash.js ROOT CACHE_DIR [--fresh]');
  }
  if (flag === '--fresh') {
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
  const started = process.hrtime.bigint();
  const context = new native.WorkspaceContext(path.resolve(root), cacheDir);
  Promise.resolve(context.ready && context.ready()).then(() => {
    const files = context.allFileData();
    // One digest over the map, so that the work cannot be optimized away and two runs
    // can be compared.
    const digest = native.hashArray(files.map((f) => `${f.file}\0${f.hash}`));
    console.log(`${files.length} ${digest}`);
    console.log(Number(process.hrtime.bigint() - started) / 1e9);
  });
}

try {
  main(process.argv.slice(2));
} catch (err) {
  console.error(`nx-hash.js: ${err.message}`);
  process.exit(2);
}
