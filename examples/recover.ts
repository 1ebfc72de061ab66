// The recovery protocol an agent runs when it resumes (docs/lifecycle.md):
// one call, `ws.check()`, reports every active change — its approvals, its
// verdict and the gates it relied on, its envelope, its tasks and the work
// left — and the store's health; one return code says whether there is work.
//
//     node recover.js [WORKSPACE]     (compiled with examples/tsconfig.json)
//
// Reads only; exits 0 when there is nothing to do, 1 when there is work (red
// is work, not "done"), 2 on an error. The same protocol in Python:
// examples/recover.py.
import { Workspace } from 'ledger-fingerprint'

async function recover(path: string): Promise<number> {
  const report = await new Workspace(path).check()
  if (report.changes.length === 0) console.log('no active change')
  for (const change of report.changes) {
    const { record, state } = change.state
    console.log(`change ${change.change} (${change.location.state}, state record ${record})`)
    for (const row of change.approvals.artifacts) console.log(`  approval ${row.artifact}: ${row.state}`)
    const validation = change.validation
    if (validation) {
      const standing = validation.stands ? 'stands' : 'does not stand'
      console.log(`  validation ${validation.verdict} on ${validation.fingerprint}: ${standing}`)
      for (const gate of validation.gates) {
        console.log(`  gate ${gate.gate}: ${gate.fresh && !gate.rerun ? 'fresh' : 'stale'}`)
      }
    }
    console.log(`  role ${state.role || '-'}, outcome ${state.outcome || '-'}`)
    if (change.tasks) console.log(`  tasks ${change.tasks.done} of ${change.tasks.total} done`)
    for (const blocker of state.blockers) console.log(`  blocker: ${blocker}`)
    console.log(`  next outcome: ${state.nextOutcome ?? '-'}`)
    for (const work of change.work) console.log(`  work ${work.kind}: ${work.message}`)
  }
  for (const work of report.work) console.log(`work ${work.kind}: ${work.message}`)
  console.log(report.nothingToDo ? 'nothing to do' : 'work to do')
  return report.nothingToDo ? 0 : 1
}

recover(process.argv[2] ?? '.').then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e)
    process.exit(2)
  },
)
