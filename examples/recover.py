"""The recovery protocol an agent runs when it resumes (docs/lifecycle.md):
one call, `Workspace.check()`, reports every active change — its approvals,
its verdict and the gates it relied on, its envelope, its tasks — the gates
`ledger.toml` declares, the verdicts the store records and the store's
health, with every work item in one list; one return code says whether there
is work. The same call serves every stage, from the proposal to after the
finalization.

    python examples/recover.py [--allow-env-cmd] [WORKSPACE]

Reads only; exits 0 when there is nothing to do, 1 when there is work (red is
work, not "done"). `--allow-env-cmd` runs the prerequisite commands that
`ledger.toml` declares, to observe them: a decision for whoever runs this,
which nothing in the checkout can make. The same protocol in TypeScript:
examples/recover.ts.
"""

from __future__ import annotations

import argparse
import sys

import ledger


def recover(ws: ledger.Workspace, allow_env_cmd: bool = False) -> int:
    report = ws.check(allow_env_cmd=allow_env_cmd)
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
        print(f"  next: {change['next'] or '-'}")
    for declared in report["declared_gates"]:
        print(f"declared gate {declared['gate']}: {'fresh' if declared['fresh'] else 'stale'}")
    for verdict in report["verdicts"]:
        print(f"verdict {verdict['name']}: {'stands' if verdict['stands'] else 'does not stand'}")
    # `work` is every item of the report, each naming its change, if any.
    for work in report["work"]:
        where = f" ({work['change']})" if work["change"] is not None else ""
        print(f"work {work['kind']}{where}: {work['message']}")
    for note in report["notes"]:
        print(f"note: {note['message']}")
    print("nothing to do" if report["nothing_to_do"] else "work to do")
    return 0 if report["nothing_to_do"] else 1


def main() -> int:
    parser = argparse.ArgumentParser(description="Resume: everything to know, one exit code.")
    parser.add_argument("workspace", nargs="?", default=".")
    parser.add_argument("--allow-env-cmd", action="store_true", help="run the prerequisite commands ledger.toml declares")
    args = parser.parse_args()
    return recover(ledger.Workspace(args.workspace), allow_env_cmd=args.allow_env_cmd)


if __name__ == "__main__":
    sys.exit(main())
