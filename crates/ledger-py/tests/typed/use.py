"""Real use of the typed API, checked by `mypy --strict` (ci.sh and
test_types.py), never run: every verb family with its options and results as
a user writes them. A result is a plain dict typed by its TypedDict."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import ledger

ws = ledger.Workspace(Path("."))
here = ledger.Workspace()
fp: str = ws.fingerprint(roots=["src"], exclude=["src/gen", {"path": "vendor", "reason": "third-party"}])
inv: ledger.Inventory = ws.inventory(paths=["a.txt"], tasks=["tasks.md"], task_rule="openspec-checkbox")
kinds: list[str] = [e["kind"] for e in inv["entries"]]
scope: ledger.Scope = ws.resolve_scope(roots=["src"])
# A tuple is a list of paths too.
also: str = ws.fingerprint(roots=("src", "docs"))
comparison: ledger.Comparison = ws.compare(inv)
changed: list[str] = [c["new"]["path"] for c in comparison["changes"] if c["change"] == "added"]
old: Optional[ledger.Entry] = comparison["changes"][0]["old"]
text: str = ledger.inventory_record(inv, meta={"k": "v"}, command=["make", "test"])
record: ledger.InventoryRecord = ledger.parse_record(text, source="rec.json")
again: ledger.InventoryRecord = ledger.read_record("rec.json")
entries_fp: str = ledger.fingerprint_entries(inv["entries"])
canonical: str = ledger.parse_fingerprint(fp)

status: ledger.ApprovalStatus = ws.status("add-auth", schema="rapid", task_rule="openspec-checkbox")
states: list[str] = [a["state"] for a in status["artifacts"]]
binding: ledger.Binding = ws.approve("add-auth", "proposal", source="msg 1", reviewed=fp, expected="no-record")
current: ledger.CurrentState = ws.current_state("add-auth")
head: Optional[str] = current["record"]
envelope: ledger.StateEnvelope = current["state"]
retired: str = ws.retire("add-auth", reason="abandoned", expected=head)
graph: ledger.ArtifactGraph = ledger.artifact_graph(yaml="artifacts: []", source="schema.yaml")
tracked: Optional[ledger.Artifact] = ledger.tracked(graph)
upstream: list[str] = ledger.upstream(graph, "tasks")
change_tasks: ledger.ChangeTasks = ws.change_tasks("add-auth", graph=graph)
change_scope: ledger.Scope = ws.change_scope("add-auth", "design")
change_inv: ledger.Inventory = ws.change_inventory("add-auth", "design", changes_root="changes")

written: ledger.CurrentState = ws.advance_state(
    "add-auth", role="implementation", checks=[{"name": "pytest", "result": "PASS"}], expected=head
)
log: list[ledger.LogEntry] = ws.state_log("add-auth")
verdict: ledger.CurrentState = ws.record_validation(
    "add-auth", verdict="PASS", source="review 2", roots=["src"], gates=["test"],
    gate_prerequisites={"test": {"rustc": {"command": "rustc --version"}}},
)
check: ledger.ValidationCheck = ws.check_validation("add-auth")
done: ledger.Finalization = ws.finalize_check("add-auth", expect=["docs/registry.md"])

prerequisites: dict[str, ledger.Observe] = {"rustc": {"command": "rustc --version"}, "ci": {"environment": "CI"}}
observed: dict[str, Optional[str]] = ledger.observe(prerequisites)
run: ledger.GateRun = ws.run_gate(
    "test", argv=["make", "test"], scope={"roots": ["src"]}, prerequisites=prerequisites, echo="passthrough",
    timeout_ms=60_000,
)
exit_code: int = run["exit_code"]
token = ledger.Cancel()  # token.cancel() from another thread stops the gate
try:
    declared: ledger.DeclaredRuns = ws.run_declared_gates(echo="stderr", cancel=token)
    one: ledger.GateRun = ws.run_declared_gate("lint", cancel=token)
except ledger.CancelledError as e:
    stopped: bool = token.cancelled and e.code == "cancelled"
fresh: bool = ws.check_gate("test", argv=["make", "test"], cwd="src")["fresh"]
recorded: ledger.Freshness = ws.check_recorded_gate("test", argv=["make", "test"])
latest: Optional[ledger.LatestEvidence] = ws.latest_evidence("test")
output: Optional[bytes] = ws.gate_output("test")
kept: bytes = ws.evidence_output("0" * 64)

tasks: ledger.Tasks = ledger.read_tasks("tasks.md", rule="openspec-checkbox")
ids: list[Optional[str]] = [t["id"] for t in ledger.read_tasks_bytes(b"- [x] 1.1 a\n")["tasks"]]
payload: bytes = ledger.normalize_tasks(b"- [x] 1.1 a\n", rule="openspec-checkbox")
root: Optional[str] = ledger.worktree_root(".")
settings: ledger.Settings = ledger.Workspace(".", threads=2, digest_cache=False).settings()
count: int = settings["threads"]
report: ledger.StoreCheck = ws.store_check()
refs: list[str] = [ref["name"] for ref in ws.refs()]
audit: ledger.VerdictSummary = ws.verdict_record("pr-1", verdict="PASS", source="s", scope={"roots": ["src"]}, findings=["f"], reports=["reports/s.md"])
stands: bool = ws.verdict_check("pr-1")["stands"]
lowered: Optional[ledger.Downgrade] = ws.verdict_downgrade("pr-1", to="FAIL", reason="r")["downgrade"]
events: list[ledger.VerdictEvent] = [r["event"] for r in ws.verdict_log("pr-1")]
try:
    ws.fingerprint()
except ledger.ConflictError as e:
    code: str = e.code
    where: Optional[str] = e.path
