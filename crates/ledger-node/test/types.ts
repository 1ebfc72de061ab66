// Type-level tests (`npx tsc`, ci.sh), never run: what the types allow, and
// with `@ts-expect-error` what they must refuse — each because the runtime
// does not have it. test/types.test.mjs checks at run time that what is
// allowed here works.
import * as ledger from '../index.js'
import { Echo, Store } from '../index.js'
import type { GateSpec, RunOutcome } from '../index.js'

/** `true` exactly when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

// Store: `new Store(workspace)` is a real constructor (the same store as
// `Store.open(workspace)`); it needs the workspace, a string.
export function stores(workspace: string): string[] {
  const made: Store = new Store(workspace)
  const opened: Store = Store.open(workspace)
  const at: ledger.Store = ledger.Store.at(`${workspace}/.ledger`)
  // @ts-expect-error the workspace is required (napi throws InvalidArg without it)
  new Store()
  // @ts-expect-error a workspace is a string
  new Store(42)
  // @ts-expect-error `root` is a getter only
  made.root = '/elsewhere'
  return [made.root, opened.root, at.root]
}

// Echo: a value (the runtime object `{ Off: 'off', ... }`) and a type (the
// union of its strings), so members and plain strings are both accepted.
export async function echoes(spec: GateSpec): Promise<RunOutcome[]> {
  const member: ledger.Echo = Echo.Stderr
  const literal: ledger.Echo = 'passthrough'
  const values: ledger.Echo[] = Object.values(Echo)
  const exact: Equal<(typeof Echo)[keyof typeof Echo], ledger.Echo> = true
  const keys: Equal<keyof typeof Echo, 'Off' | 'Passthrough' | 'Stderr'> = true
  // @ts-expect-error not one of the three
  const unknown: ledger.Echo = 'stdout'
  // @ts-expect-error the members are read-only
  Echo.Off = 'stderr'
  // @ts-expect-error no such member
  console.log(Echo.Loud)
  console.log(literal, values, exact, keys, unknown)
  const outcomes = [await ledger.runGate(spec, member), ledger.runGateSync(spec, Echo.Off), await ledger.runGate(spec, 'off', 1000)]
  // @ts-expect-error not an echo
  await ledger.runGate(spec, 'loud')
  return outcomes
}

// RunOutcome: the exit code `ledger gate run` (and Python's
// `RunOutcome.exit_code`) reports, always a number.
export async function exitCodes(spec: GateSpec): Promise<number> {
  const outcome: RunOutcome = await ledger.runGate(spec)
  const code: number = outcome.exit_code
  const signal: number | undefined = outcome.evidence?.signal
  // @ts-expect-error never null, unlike `evidence.exit_status`
  const nullable: null = outcome.exit_code
  // @ts-expect-error spelled as the document's other fields: `exit_code`
  console.log(outcome.exitCode)
  console.log(signal, nullable)
  return code + ledger.runGateSync(spec, 'off').exit_code
}

// Inventory: `new Inventory(text, options)` reads a record's text, like
// `Inventory.fromRecord`; it needs the text.
export function inventories(text: string): string[] {
  const made: ledger.Inventory = new ledger.Inventory(text, { source: 'record.json' })
  const read: ledger.Inventory = ledger.Inventory.fromRecord(text)
  // @ts-expect-error the record's text is required
  new ledger.Inventory()
  // @ts-expect-error the text is a string
  new ledger.Inventory(Buffer.from(text))
  return [made.fingerprint, read.fingerprint]
}

// Threads: a count to set, a count to read.
export function threadCounts(): number {
  ledger.setThreads(2)
  ledger.setThreads(0)
  // @ts-expect-error a count is a number
  ledger.setThreads('2')
  return ledger.threads()
}
