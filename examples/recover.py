"""The recovery protocol an agent runs when it resumes (docs/lifecycle.md):
find the changes with recorded state, then for each print its approvals, the
freshness of every gate with evidence, the envelope and the next outcome.

    python examples/recover.py [WORKSPACE]

Reads only; exits 0. The same protocol in TypeScript: examples/recover.ts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import ledger


def recover(workspace: Path) -> None:
    store = ledger.Store(workspace)
    refs = [name for name, _ in store.refs()]
    changes = [r.removeprefix("changes/") for r in refs if r.startswith("changes/")]
    gates = [r.removeprefix("gates/") for r in refs if r.startswith("gates/")]
    if not changes:
        print("no change has recorded state")
    for name in changes:
        record, envelope = ledger.current_state(store, name)
        print(f"change {name} (state record {record})")
        status = ledger.status(store, ledger.ChangeSet(workspace, name))
        for row in status.artifacts:
            cause = f" (reset by {', '.join(row.reset_by)})" if row.reset_by else ""
            print(f"  approval {row.artifact}: {row.state}{cause}")
        print(f"  all approvals stand: {status.all_approved()}")
        print(f"  role {envelope.role or '-'}, outcome {envelope.outcome or '-'}")
        print(f"  tasks done {envelope.tasks_completed}, left {envelope.tasks_remaining}")
        for check, result in envelope.checks:
            print(f"  check {check}: {result}")
        for blocker in envelope.blockers:
            print(f"  blocker: {blocker}")
        if envelope.validation is not None:
            v = envelope.validation
            print(f"  validation {v.verdict} on {v.fingerprint} ({v.source})")
        print(f"  next outcome: {envelope.next_outcome or '-'}")
    for gate in gates:
        freshness = ledger.check_recorded_gate(workspace, gate)
        reasons = ", ".join(r.reason for r in freshness.reasons)
        print(f"gate {gate}: {'fresh' if freshness.fresh else 'stale'}{f' ({reasons})' if reasons else ''}")


if __name__ == "__main__":
    recover(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
