// The OpenCode plugin of the npm package (`ledger-fingerprint/opencode`), as
// OpenCode 1.18 loads and calls it, under Bun, from a project outside the
// repository (tests/install/npm.sh): the module's `{ id, server }`, the
// plugin input and each tool's `execute` context typed by the pinned
// @opencode-ai/plugin, the arguments checked by its zod as OpenCode checks
// them. One change from the first check to the real OpenSpec CLI's archive,
// each answer compared with the Node door's; the session-start report; the
// state envelope on compaction; a read-only plugin; an argument that tries
// to leave the workspace.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { tool, type Hooks, type PluginInput, type ToolContext, type ToolResult } from '@opencode-ai/plugin'
import { Workspace } from 'ledger-fingerprint'
import plugin from 'ledger-fingerprint/opencode'

const CHANGE = 'add-auth'
const openspecBin = process.env.LEDGER_OPENSPEC_BIN
assert.ok(openspecBin, 'LEDGER_OPENSPEC_BIN names the pinned OpenSpec CLI')

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-opencode-')))
const home = path.join(dir, '..', path.basename(dir) + '-home')
fs.mkdirSync(home)
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data'),
  GIT_CONFIG_NOSYSTEM: '1', OPENSPEC_TELEMETRY: '0', DO_NOT_TRACK: '1', CI: '1', NO_COLOR: '1' }
const run = (command: string, args: string[]): string => execFileSync(command, args, { cwd: dir, env, encoding: 'utf8' })
const write = (file: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
  fs.writeFileSync(path.join(dir, file), text)
}

// The project: a Git checkout, OpenSpec's own init, one change, one gate.
run('git', ['init', '-q'])
run('git', ['config', 'user.name', 'Harness'])
run('git', ['config', 'user.email', 'harness@example.com'])
run(openspecBin, ['init', '--tools', 'none', '.'])
write('src/app.py', "print('hi')\n")
write(`openspec/changes/${CHANGE}/proposal.md`, '# Why\nLogins.\n')
write(`openspec/changes/${CHANGE}/specs/auth/spec.md`,
  '## ADDED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n')
write(`openspec/changes/${CHANGE}/design.md`, '# Design\n')
write(`openspec/changes/${CHANGE}/tasks.md`, '- [ ] 1.1 Add login\n')
write('ledger.toml', '[gates.test]\ncommand = ["cat", "src/app.py"]\nroots = ["src"]\n')
run('git', ['add', '-A'])
run('git', ['commit', '-qm', 'change'])

// What OpenCode hands a plugin; the client and the shell are not used by it.
const input: PluginInput = {
  client: {} as PluginInput['client'],
  project: { id: 'project', worktree: dir, time: { created: 0 } } as unknown as PluginInput['project'],
  directory: dir,
  worktree: dir,
  experimental_workspace: { register() {} },
  serverUrl: new URL('http://localhost:4096'),
  $: undefined as unknown as PluginInput['$'],
}
assert.equal(plugin.id, 'ledger-fingerprint')
const hooks: Hooks = await plugin.server(input, {})
const tools = hooks.tool ?? {}
const context = (sessionID: string, abort: AbortSignal = new AbortController().signal): ToolContext => ({
  sessionID, messageID: 'message', agent: 'build', directory: dir, worktree: dir, abort,
  metadata() {}, async ask() {},
})

/** The structured result of the tool `name`, called as OpenCode calls it. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<any> {
  const definition = tools[`ledger_${name}`]
  assert.ok(definition, `the tool ledger_${name}`)
  const parsed = tool.schema.object(definition.args).parse(args)
  const result: ToolResult = await definition.execute(parsed, context('session-1'))
  assert.ok(typeof result === 'object' && result.output.length > 0, name)
  return (result.metadata as { result: unknown }).result
}

const ws = new Workspace(dir)
const listed = Object.keys(tools).sort()
assert.ok(listed.includes('ledger_check') && listed.includes('ledger_gate_run') && listed.length === 22, listed.join())
const definition = { description: '', parameters: {} as any }
await hooks['tool.definition']?.({ toolID: 'ledger_approve' }, definition)
assert.deepEqual([...definition.parameters.required].sort(), ['artifact', 'change', 'source'])

// A session starts: its system prompt carries the check report.
await hooks.event?.({ event: { type: 'session.created', properties: { info: { id: 'session-1' } } } as any })
const system = { system: [] as string[] }
await hooks['experimental.chat.system.transform']?.({ sessionID: 'session-1', model: {} as any }, system)
assert.match(system.system.join('\n'), /ledger check at the start of this session/)
assert.match(system.system.join('\n'), /artifact proposal is not approved/)

let report = await call('check')
const kinds = (work: Array<{ kind: string }>): string[] => work.map((w) => w.kind)
assert.deepEqual(kinds(report.work), kinds((await ws.check()).work))
assert.equal(report.nothing_to_do, false)

// Parallel approvals, as an agent's parallel tool calls make them.
await Promise.all(['proposal', 'specs', 'design', 'tasks'].map((artifact) =>
  call('approve', { change: CHANGE, artifact, source: 'review 1' })))
const status = await call('status', { change: CHANGE })
assert.deepEqual(status.artifacts.map((a: { state: string }) => a.state), (await ws.status(CHANGE)).artifacts.map((a) => a.state))
assert.ok(status.artifacts.every((a: { state: string }) => a.state === 'approved'))

write(`openspec/changes/${CHANGE}/tasks.md`, '- [x] 1.1 Add login\n')
const first = await call('gate_run', { name: 'test' })
const second = await call('gate_run', { name: 'test' })
assert.deepEqual([first.reused, second.reused], [false, true])
await call('validate_record', { change: CHANGE, verdict: 'PASS', source: 'review 2', roots: ['src'], gates: ['test'] })
assert.deepEqual(await call('validate_check', { change: CHANGE }).then((v) => v.stands), (await ws.checkValidation(CHANGE)).stands)

// A compacted session keeps the record of where the change stands.
const compacted = { context: [] as string[] }
await hooks['experimental.session.compacting']?.({ sessionID: 'session-1' }, compacted)
assert.match(compacted.context.join('\n'), new RegExp(`ledger state envelope[\\s\\S]*change ${CHANGE}`))

report = await call('check')
assert.deepEqual(kinds(report.work), ['archive'])
run(openspecBin, ['archive', CHANGE, '--yes'])
const finalized = await call('finalize_check', { change: CHANGE })
assert.equal(finalized.clean, true)
assert.equal(finalized.clean, (await ws.finalizeCheck(CHANGE)).clean)
report = await call('check')
assert.equal(report.nothing_to_do, true)
assert.equal(report.nothing_to_do, (await ws.check()).nothingToDo)

// An argument that leaves the workspace is refused with its code.
await assert.rejects(call('fingerprint', { roots: ['../outside'] }), /^Error: error\[outside-workspace\]/)

// A read-only plugin offers no writer, and refuses a command in the arguments.
const readOnly: Hooks = await plugin.server(input, { readOnly: true })
const readers = Object.keys(readOnly.tool ?? {})
assert.ok(!readers.includes('ledger_approve') && !readers.includes('ledger_gate_run') && readers.includes('ledger_check'))
const check = readOnly.tool?.ledger_check
assert.ok(check)
await assert.rejects(
  check.execute({ allow_env_cmd: true, gate_prerequisites: { test: { x: { command: 'touch ran' } } } }, context('session-2')),
  /error\[read-only\]/,
)
assert.ok(!fs.existsSync(path.join(dir, 'ran')))

fs.rmSync(dir, { recursive: true, force: true })
fs.rmSync(home, { recursive: true, force: true })
console.log('opencode plugin: a whole change under Bun, as OpenCode calls it: ok')
