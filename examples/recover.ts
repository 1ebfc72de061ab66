// The recovery protocol an agent runs when it resumes (docs/lifecycle.md):
// one call, `ws.check()`, reports every active change — its approvals, its
// verdict and the gates it relied on, its envelope, its tasks — the gates
// `ledger.toml` declares, the verdicts the store records and the store's
// health, with every work item in one list; one return code says whether
// there is work. The same call serves every stage, from the proposal to after
// the finalization.
//
//     node recover.js [--allow-env-cmd] [WORKSPACE]     (compiled with examples/tsconfig.json)
//
// Reads only; exits 0 when there is nothing to do, 1 when there is work (red
// is work, not "done"), 2 on an error. `--allow-env-cmd` runs the
// prerequisite commands that `ledger.toml` declares, to observe them: a
// decision for whoever runs this, which nothing in the checkout can make. The
// same protocol in Python: examples/recover.py.
import { Workspace } from 'ledger-fingerprint'

async function recover(path: string, allowEnvCmd: boolean): Promise<number> {
  const report = await new Workspace(path).check({ allowEnvCmd })
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
    console.log(`  next: ${change.next ?? '-'}`)
  }
  for (const gate of report.declaredGates) console.log(`declared gate ${gate.gate}: ${gate.fresh ? 'fresh' : 'stale'}`)
  for (const verdict of report.verdicts) {
    console.log(`verdict ${verdict.name}: ${verdict.stands ? 'stands' : 'does not stand'}`)
  }
  // `work` is every item of the report, each naming its change, if any.
  for (const work of report.work) {
    const where = work.change === null ? '' : ` (${work.change})`
    console.log(`work ${work.kind}${where}: ${work.message}`)
  }
  for (const note of report.notes) console.log(`note: ${note.message}`)
  console.log(report.nothingToDo ? 'nothing to do' : 'work to do')
  return report.nothingToDo ? 0 : 1
}

const args = process.argv.slice(2)
const allowEnvCmd = args.includes('--allow-env-cmd')
const path = args.find((a) => a !== '--allow-env-cmd') ?? '.'
recover(path, allowEnvCmd).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e)
    process.exit(2)
  },
)
