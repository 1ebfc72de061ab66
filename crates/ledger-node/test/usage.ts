// Type-checked by `npx tsc` (ci.sh), never run: every export used the way a
// TypeScript plugin would. The first function holds the README example.
import { fingerprint, inventory } from '../index.js'

export async function readmeExample(): Promise<void> {
  console.log(await fingerprint({ workspace: '/repo', roots: ['src'] })) // sha256:…, hashed off the main thread
  const approved = await inventory({ workspace: '/repo', roots: ['src'], exclude: ['src/generated'] })
  const { matches, changes } = await approved.compare() // later, after any restart
  if (!matches) for (const c of changes) console.log(c.change, c.new.path) // e.g. content-changed src/a.ts
}

import * as ledger from '../index.js'
import type {
  ApprovalStatus,
  Binding,
  ChangeKind,
  Comparison,
  CurrentState,
  Entry,
  Freshness,
  GateSpec,
  LatestEvidence,
  LedgerError,
  RunOutcome,
  Scope,
  ScopeOptions,
  StoreReport,
} from '../index.js'

export async function everything(workspace: string): Promise<void> {
  const options: ScopeOptions = {
    workspace,
    repos: ['.'],
    roots: ['src'],
    paths: ['build/config.ignored'],
    exclude: ['src/generated', { path: 'src/vendor', reason: 'third-party code, reviewed upstream' }],
    tasks: ['openspec/changes/x/tasks.md'],
    purpose: 'gate: make test',
  }
  const fp: string = await ledger.fingerprint(options)
  const fpSync: string = ledger.fingerprintSync(options)
  const inv: ledger.Inventory = ledger.inventorySync(options)
  const entries: Entry[] = inv.entries
  const kinds: Array<'file' | 'symlink' | 'missing'> = entries.map((e) => e.kind)
  const scope: Scope = inv.scope
  const walked: string[] = inv.walkedRoots
  const comparison: Comparison = inv.compareSync()
  const change: ChangeKind | undefined = comparison.changes[0]?.change
  const old: Entry | null | undefined = comparison.changes[0]?.old
  const record: string = inv.toRecord({ meta: { gate: 'make test' }, tools: { rustc: '1.89' } })
  const back = ledger.Inventory.fromRecord(record, { source: 'approved.json' })
  const read: ledger.Inventory = await ledger.readRecord('approved.json', { workspace })
  const unchanged: number = (await back.compare()).unchanged + (await read.compare()).unchanged
  const resolved: Scope = await ledger.resolveScope(options)
  const json: ledger.InventoryJson = inv.toJSON()
  const v1: string = ledger.fingerprintEntries([{ path: 'a.txt', kind: 'file', mode: '100644', digest: '0'.repeat(64) }])
  const normalized: Buffer = ledger.normalizeTasks(Buffer.from('- [x] 1.1 [core] Do it\n'))
  const rule: ledger.TaskRule = 'openspec-checkbox'
  const openspec: Buffer = ledger.normalizeTasks(Buffer.from('* [X] 1.1 Do it\n'), { rule })
  const tasks: ledger.Tasks = await ledger.readTasks('tasks.md', { rule })
  const ids: (string | null)[] = ledger.readTasksSync('tasks.md').tasks.map((t: ledger.Task) => t.id)
  const ruled: Scope = await ledger.resolveScope({ ...options, tasks: ['tasks.md'], taskRule: rule })
  const ruleOf: ledger.TaskRule | undefined = ruled.task_rules?.['tasks.md']

  const changeOptions: ledger.ChangeOptions = { workspace, change: 'add-auth', changesRoot: 'openspec/changes' }
  const status: ApprovalStatus = await ledger.status(changeOptions)
  const blocked: string | null | undefined = status.artifacts[0]?.blocked
  const binding: Binding = await ledger.approve(changeOptions, 'design', 'msg 1842')
  const state: CurrentState = ledger.currentStateSync(changeOptions)
  const design: ledger.Inventory = await ledger.changeInventory(changeOptions, 'design')
  const progress: ledger.ChangeTasks = await ledger.changeTasks({ ...changeOptions, taskRule: rule })
  const remaining: number = ledger.changeTasksSync(changeOptions).total - progress.done
  const graph: ledger.ArtifactGraph = ledger.artifactGraph({ yaml: 'artifacts: []\n' })

  const store = ledger.Store.open(workspace)
  const report: StoreReport = await store.check()
  const head: string | null = await store.head('changes/add-auth')
  const history: string[] = store.historySync('changes/add-auth')
  const refs: ledger.RefHead[] = await store.refs()

  const spec: GateSpec = {
    name: 'test',
    argv: ['make', 'test'],
    scope: options,
    prerequisites: { rustc: { command: 'rustc --version' }, ci: { environment: 'CI' }, mode: { literal: 'debug' } },
  }
  const freshness: Freshness = await ledger.checkGate(spec)
  const reasons: string[] = freshness.reasons.map((r) => r.reason)
  const outcome: RunOutcome = await ledger.runGate(spec, 'stderr')
  const latest: LatestEvidence | null = await ledger.latestEvidence({ workspace, gate: 'test' })
  const codes: string[] = ledger.errorCodes()

  try {
    await ledger.fingerprint({ workspace, roots: ['../outside'] })
  } catch (e) {
    const error = e as LedgerError
    console.log(error.code, error.path, error.message)
  }
  console.log(fp, fpSync, kinds, scope, walked, change, old, unchanged, resolved, json, v1, normalized)
  console.log(blocked, binding, state, design, graph, report, head, history, refs, reasons, outcome, latest, codes)
  console.log(openspec, tasks, ids, ruleOf, progress, remaining)
}

import type { Finalization, LogEntry, ValidationCheck, Verdict } from '../index.js'

/** The recovery protocol and the lifecycle, typed (examples/recover.ts runs it). */
export async function lifecycle(workspace: string): Promise<void> {
  const change = { workspace, change: 'add-auth' }
  const { record, state } = await ledger.advanceState(change, { role: 'implementation', next: 'validation' })
  const again = ledger.advanceStateSync(change, { checks: [{ name: 'npm test', result: 'PASS' }] }, record)
  const log: LogEntry[] = await ledger.stateLog(change)
  const verdict: Verdict = 'PASS'
  const pass = await ledger.recordValidation(change, { verdict, source: 'review 2', roots: ['src'], gates: ['test'] })
  const check: ValidationCheck = await ledger.checkValidation(change)
  const stale = check.gates.filter((g) => !g.fresh).map((g) => g.gate)
  const done: Finalization = await ledger.finalizeCheck(change, ['docs/registry.md'])
  const moved: number = done.archive_move?.files.length ?? 0
  const blocking: string[] = done.new_changes.map((c) => c.new.path)
  console.log(state.next_outcome, again.record, log[0]?.changes, pass.state.validation?.fingerprint, stale, moved, blocking)
}
