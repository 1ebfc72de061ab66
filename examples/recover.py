"""The recovery protocol an agent runs when it resumes (docs/lifecycle.md):
one call, `Workspace.check()`, reports every active change — its approvals,
its verdict and the gates it relied on, its envelope, its tasks and the work
left — and the store's health; one return code says whether there is work.

    python examples/recover.py [WORKSPACE]

Reads only; exits 0 when there is nothing to do, 1 when there is work (red is
work, not "done"). The same protocol in TypeScript: examples/recover.ts.
"""

from __future__ import annotations

import sys

import ledger


def recover(ws: ledger.Workspace) -> int:
    report = ws.check()
    if not report["changes"]:
        print("no active change")
    for change in report["changes"]:
        current = change["state"]
        envelope = current["state"]
        print(f"change {change['change']} ({change['location']['state']}, state record {current['record']})")
        for row in change["approvals"]["artifacts"]:
            print(f"  approval {row['artifact']}: {row['state']}")
        validation = change["validation"]
        if validation is not None:
            standing = "stands" if validation["stands"] else "does not stand"
            print(f"  validation {validation['verdict']} on {validation['fingerprint']}: {standing}")
            for gate in validation["gates"]:
                fresh = gate["fresh"] and not gate["rerun"]
                print(f"  gate {gate['gate']}: {'fresh' if fresh else 'stale'}")
        print(f"  role {envelope['role'] or '-'}, outcome {envelope['outcome'] or '-'}")
        tasks = change["tasks"]
        if tasks is not None:
            print(f"  tasks {tasks['done']} of {tasks['total']} done")
        for blocker in envelope["blockers"]:
            print(f"  blocker: {blocker}")
        print(f"  next outcome: {envelope['next_outcome'] or '-'}")
        for work in change["work"]:
            print(f"  work {work['kind']}: {work['message']}")
    for work in report["work"]:
        print(f"work {work['kind']}: {work['message']}")
    print("nothing to do" if report["nothing_to_do"] else "work to do")
    return 0 if report["nothing_to_do"] else 1


if __name__ == "__main__":
    sys.exit(recover(ledger.Workspace(sys.argv[1] if len(sys.argv) > 1 else ".")))
