// Type-checked by `npx tsc` (ci.sh), never run: the API used the way a
// TypeScript plugin would. The first function holds the README example.
import { Workspace } from '../index.js'

export async function readmeExample(): Promise<void> {
  const ws = new Workspace('/repo')
  console.log(await ws.fingerprint({ roots: ['src'] })) // sha256:…, hashed off the main thread
  const approved = await ws.inventory({ roots: ['src'], exclude: ['src/generated'] })
  const { matches, changes } = await ws.compare(approved) // later, after any restart
  if (!matches) for (const c of changes) console.log(c.change, c.new.path) // e.g. content-changed src/a.ts
}

import * as ledger from '../index.js'
import type {
  ApprovalStatus,
  Binding,
  Comparison,
  CurrentState,
  Entry,
  Freshness,
  Inventory,
  Scope,
} from '../index.js'

export async function everything(workspace: string): Promise<void> {
  const ws = new Workspace(workspace)
  const options = {
    repos: ['.'],
    roots: ['src'],
    paths: ['build/config.ignored'],
    exclude: ['src/generated', { path: 'src/vendor', reason: 'third-party code, reviewed upstream' }],
    tasks: ['openspec/changes/x/tasks.md'],
    purpose: 'gate: make test',
  }
  const fp: string = await ws.fingerprint(options)
  const fpSync: string = ws.fingerprintSync(options)
  const inv: Inventory = ws.inventorySync(options)
  const entries: Entry[] = inv.entries
  const kinds: Array<'file' | 'symlink' | 'missing'> = entries.map((e) => e.kind)
  const scope: Scope = inv.scope
  const walked: string[] = inv.walkedRoots
  const comparison: Comparison = ws.compareSync(inv)
  const change: string | undefined = comparison.changes[0]?.change
  const old: Entry | null | undefined = comparison.changes[0]?.old
  const record: string = await ledger.inventoryRecord(inv, { meta: { gate: 'make test' }, tools: { rustc: '1.89' } })
  const back = await ledger.parseRecord(record, { source: 'approved.json' })
  const read = await ledger.readRecord('approved.json')
  const unchanged: number = (await ws.compare(back)).unchanged + (await ws.compare(read)).unchanged
  const resolved: Scope = await ws.resolveScope(options)
  const v1: string = await ledger.fingerprintEntries([{ path: 'a.txt', kind: 'file', mode: '100644', digest: '0'.repeat(64) }])
  const normalized: Buffer = ledger.normalizeTasksSync(Buffer.from('- [x] 1.1 [core] Do it\n'))
  const rule = 'openspec-checkbox' as const
  const openspec: Buffer = await ledger.normalizeTasks(Buffer.from('* [X] 1.1 Do it\n'), { rule })
  const tasks = await ledger.readTasks('tasks.md', { rule })
  const ids: (string | null | undefined)[] = ledger.readTasksSync('tasks.md').tasks.map((t) => t.id)
  const ruled: Scope = await ws.resolveScope({ ...options, tasks: ['tasks.md'], taskRule: rule })
  const ruleOf: string | undefined = ruled.taskRules?.['tasks.md']

  const status: ApprovalStatus = await ws.status('add-auth', { changesRoot: 'openspec/changes' })
  const blocked: string | null | undefined = status.artifacts[0]?.blocked
  const binding: Binding = await ws.approve('add-auth', 'design', { source: 'msg 1842' })
  const state: CurrentState = ws.currentStateSync('add-auth')
  const design: Inventory = await ws.changeInventory('add-auth', 'design')
  const progress = await ws.changeTasks('add-auth', { taskRule: rule })
  const remaining: number = ws.changeTasksSync('add-auth').total - progress.done
  const graph = ledger.artifactGraphSync({ yaml: 'artifacts: []\n' })

  const report = await ws.storeCheck()
  const clean: boolean = report.clean
  const head: string | null | undefined = await ws.head('changes/add-auth')
  const history: string[] = ws.historySync('changes/add-auth')
  const refs = await ws.refs()

  const spec = {
    argv: ['make', 'test'],
    scope: options,
    prerequisites: { rustc: { command: 'rustc --version' }, ci: { environment: 'CI' }, mode: { literal: 'debug' } },
  }
  const freshness: Freshness = await ws.checkGate('test', spec)
  const reasons: string[] = freshness.reasons.map((r) => r.reason)
  const outcome = await ws.runGate('test', { ...spec, echo: 'stderr' })
  const controller = new AbortController()
  const all = await ws.runDeclaredGates({ echo: 'off', signal: controller.signal })
  const one = ws.runDeclaredGateSync('lint', { signal: AbortSignal.timeout(60_000) })
  const cancelled: ledger.ErrorCodeValue = ledger.ErrorCode.Cancelled
  const latest = await ws.latestEvidence('test')
  const output: Buffer | null | undefined = await ws.gateOutput('test')
  const codes: string[] = Object.values(ledger.ErrorCode)

  try {
    await ws.fingerprint({ roots: ['../outside'] })
  } catch (e) {
    if (e instanceof ledger.LedgerError) console.log(e.code, e.path, e.message)
  }
  console.log(fp, fpSync, kinds, scope, walked, change, old, unchanged, resolved, v1, normalized, clean, output)
  console.log(blocked, binding, state, design, graph, report, head, history, refs, reasons, outcome, latest, codes)
  console.log(openspec, tasks, ids, ruleOf, progress, remaining, all, one, cancelled)
}

import type { Finalization, LogEntry, ValidationCheck } from '../index.js'

/** The recovery protocol and the lifecycle, typed (examples/recover.ts runs it). */
export async function lifecycle(workspace: string): Promise<void> {
  const ws = new Workspace(workspace)
  const { record, state } = await ws.advanceState('add-auth', { role: 'implementation', next: 'validation' })
  const again = ws.advanceStateSync('add-auth', { checks: [{ name: 'npm test', result: 'PASS' }], expected: record ?? 'no-record' })
  const log: LogEntry[] = await ws.stateLog('add-auth')
  const pass = await ws.recordValidation('add-auth', { verdict: 'PASS', source: 'review 2', roots: ['src'], gates: ['test'] })
  const check: ValidationCheck = await ws.checkValidation('add-auth')
  const stale = check.gates.filter((g) => !g.fresh).map((g) => g.gate)
  const done: Finalization = await ws.finalizeCheck('add-auth', { expect: ['docs/registry.md'] })
  const moved: number = done.archiveMove?.files.length ?? 0
  const blocking: string[] = done.newChanges.map((c) => c.new.path)
  console.log(state.nextOutcome, again.record, log[0]?.changes, pass.state.validation?.fingerprint, stale, moved, blocking)
}
