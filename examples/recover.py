"""The recovery protocol an agent runs when it resumes (docs/lifecycle.md):
find the changes with recorded state, then for each print its approvals, the
freshness of every gate with evidence, the envelope and the next outcome.

    python examples/recover.py [WORKSPACE]

Reads only; exits 0. The same protocol in TypeScript: examples/recover.ts.
"""

from __future__ import annotations

import sys

import ledger

# The states in which an approval stands (docs/approvals.md, States).
STANDING = ("approved", "archived", "skipped")


def recover(ws: ledger.Workspace) -> None:
    refs = [ref["name"] for ref in ws.refs()]
    changes = [r.removeprefix("changes/") for r in refs if r.startswith("changes/")]
    gates = [r.removeprefix("gates/") for r in refs if r.startswith("gates/")]
    if not changes:
        print("no change has recorded state")
    for name in changes:
        current = ws.current_state(name)
        envelope = current["state"]
        print(f"change {name} (state record {current['record']})")
        status = ws.status(name)
        for row in status["artifacts"]:
            cause = f" (reset by {', '.join(row['reset_by'])})" if row["reset_by"] else ""
            print(f"  approval {row['artifact']}: {row['state']}{cause}")
        stand = all(row["state"] in STANDING for row in status["artifacts"]) and not status["schema_changed"]
        print(f"  all approvals stand: {stand}")
        print(f"  role {envelope['role'] or '-'}, outcome {envelope['outcome'] or '-'}")
        print(f"  tasks done {envelope['tasks_completed']}, left {envelope['tasks_remaining']}")
        for check in envelope["checks"]:
            print(f"  check {check['name']}: {check['result']}")
        for blocker in envelope["blockers"]:
            print(f"  blocker: {blocker}")
        validation = envelope["validation"]
        if validation is not None:
            print(f"  validation {validation['verdict']} on {validation['fingerprint']} ({validation['source']})")
        print(f"  next outcome: {envelope['next_outcome'] or '-'}")
    for gate in gates:
        freshness = ws.check_recorded_gate(gate)
        reasons = ", ".join(r["reason"] for r in freshness["reasons"])
        print(f"gate {gate}: {'fresh' if freshness['fresh'] else 'stale'}{f' ({reasons})' if reasons else ''}")


if __name__ == "__main__":
    recover(ledger.Workspace(sys.argv[1] if len(sys.argv) > 1 else "."))
