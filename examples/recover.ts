// The recovery protocol an agent runs when it resumes (docs/lifecycle.md):
// find the changes with recorded state, then for each print its approvals,
// the freshness of every gate with evidence, the envelope and the next outcome.
//
//     node recover.js [WORKSPACE]     (compiled with examples/tsconfig.json)
//
// Reads only; exits 0. The same protocol in Python: examples/recover.py.
import { Workspace } from 'ledger-fingerprint'

async function recover(path: string): Promise<void> {
  const ws = new Workspace(path)
  const refs = (await ws.refs()).map((r) => r.name)
  const changes = refs.filter((r) => r.startsWith('changes/')).map((r) => r.slice('changes/'.length))
  const gates = refs.filter((r) => r.startsWith('gates/')).map((r) => r.slice('gates/'.length))
  if (changes.length === 0) console.log('no change has recorded state')
  for (const change of changes) {
    const { record, state } = await ws.currentState(change)
    console.log(`change ${change} (state record ${record})`)
    const status = await ws.status(change)
    for (const row of status.artifacts) {
      const cause = row.resetBy.length > 0 ? ` (reset by ${row.resetBy.join(', ')})` : ''
      console.log(`  approval ${row.artifact}: ${row.state}${cause}`)
    }
    const stands = status.artifacts.every((a) => ['approved', 'archived', 'skipped'].includes(a.state))
    console.log(`  all approvals stand: ${stands && status.schemaChanged.length === 0}`)
    console.log(`  role ${state.role || '-'}, outcome ${state.outcome || '-'}`)
    console.log(`  tasks done ${JSON.stringify(state.tasksCompleted)}, left ${JSON.stringify(state.tasksRemaining)}`)
    for (const check of state.checks) console.log(`  check ${check.name}: ${check.result}`)
    for (const blocker of state.blockers) console.log(`  blocker: ${blocker}`)
    if (state.validation) {
      const v = state.validation
      console.log(`  validation ${v.verdict} on ${v.fingerprint} (${v.source})`)
    }
    console.log(`  next outcome: ${state.nextOutcome ?? '-'}`)
  }
  for (const gate of gates) {
    const freshness = await ws.checkRecordedGate(gate)
    const reasons = freshness.reasons.map((r) => r.reason).join(', ')
    console.log(`gate ${gate}: ${freshness.fresh ? 'fresh' : 'stale'}${reasons ? ` (${reasons})` : ''}`)
  }
}

recover(process.argv[2] ?? '.').catch((e: unknown) => {
  console.error(e)
  process.exit(2)
})
