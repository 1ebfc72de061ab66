// Type-level tests (`npx tsc`, ci.sh), never run: what the generated types
// allow, and with `@ts-expect-error` what they must refuse — each because the
// runtime refuses it too (test/types.test.mjs and test/door.test.mjs check
// that at run time).
import * as ledger from '../index.js'
import { LedgerError, Workspace } from '../index.js'
import type { ApprovalStatus, Inventory } from '../index.js'

/** `true` exactly when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

// Workspace: named once, by a path; every verb is a method returning a Promise,
// with a Sync twin returning the value itself.
export async function workspaces(path: string): Promise<string[]> {
  const ws: Workspace = new Workspace(path)
  const pending: Promise<string> = ws.fingerprint({ roots: ['src'] })
  const now: string = ws.fingerprintSync({ roots: ['src'] })
  const inventory: Inventory = await ws.inventory()
  const status: ApprovalStatus = ws.statusSync('add-auth')
  const same: Equal<Awaited<ReturnType<Workspace['status']>>, ReturnType<Workspace['statusSync']>> = true
  // @ts-expect-error a workspace is a path, a string
  new Workspace(42)
  // @ts-expect-error the change is a positional parameter, not an option
  await ws.status({ change: 'add-auth' })
  console.log(same, status.stateRecord)
  return [await pending, now, inventory.fingerprint]
}

// Options: camelCase keys, each of its type; a key the verb does not know
// and a value of the wrong type are refused (invalid-argument at run time).
export async function options(ws: Workspace): Promise<void> {
  await ws.fingerprint({ roots: ['src'], taskRule: 'openspec-checkbox', exclude: ['a', { path: 'b', reason: 'vendored' }] })
  await ws.status('add-auth', { changesRoot: 'openspec/changes', schema: 'spec-driven' })
  // @ts-expect-error `root` for `roots`
  await ws.fingerprint({ root: ['src'] })
  // @ts-expect-error the snake_case spelling is not the JavaScript one
  await ws.status('add-auth', { changes_root: 'x' })
  // @ts-expect-error a list of roots, not one string
  await ws.fingerprint({ roots: 'src' })
  // @ts-expect-error not a task rule
  await ws.fingerprint({ taskRule: 'v2' })
  // @ts-expect-error `source` is required
  await ws.approve('add-auth', 'proposal', {})
}

// Gates: the echo is one of three strings; the exit code is a number, and
// results are camelCase like everything else (`exitCode`, not `exit_code`).
export async function gates(ws: Workspace): Promise<number> {
  const outcome = await ws.runGate('test', { argv: ['make', 'test'], echo: 'stderr', timeoutMs: 60_000 })
  const code: number = outcome.exitCode
  const signal: number | null | undefined = outcome.evidence?.signal
  const reused: boolean = ws.runGateSync('test', { argv: ['make', 'test'], echo: 'off' }).reused
  // @ts-expect-error not an echo
  await ws.runGate('test', { argv: ['true'], echo: 'loud' })
  // @ts-expect-error the field is `exitCode`
  console.log(outcome.exit_code)
  // @ts-expect-error never null, unlike `evidence.exitStatus`
  const nullable: null = outcome.exitCode
  console.log(signal, reused, nullable)
  return code
}

// Errors: LedgerError is a class (`instanceof` narrows), its code one of
// ErrorCode's values, its path a string when the error concerns one.
export async function errors(ws: Workspace): Promise<string | undefined> {
  try {
    await ws.fingerprint({ roots: ['../outside'] })
  } catch (e) {
    if (e instanceof LedgerError) {
      const message: string = e.message
      const code: (typeof ledger.ErrorCode)[keyof typeof ledger.ErrorCode] = e.code
      const known: boolean = code === ledger.ErrorCode.OutsideWorkspace
      // @ts-expect-error not a code any error has
      const never: boolean = e.code === 'no-such-code'
      console.log(message, known, never)
      return e.path ?? undefined
    }
  }
  // @ts-expect-error ErrorCode's members are read-only
  ledger.ErrorCode.Conflict = 'x'
  return undefined
}

// Free functions: no workspace; bytes are Buffers.
export async function free(): Promise<number> {
  const normalized: Buffer = await ledger.normalizeTasks(Buffer.from('- [x] 1.1 [core] Done\n'))
  const tasks = ledger.readTasksBytesSync(normalized, { rule: 'openspec-checkbox' })
  const ws = new ledger.Workspace('.', { threads: 2, digestCache: false })
  // @ts-expect-error a count is a number
  new ledger.Workspace('.', { threads: '2' })
  return tasks.total + ws.settings().threads
}
