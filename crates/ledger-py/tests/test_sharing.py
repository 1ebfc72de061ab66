"""Evidence that travels (docs/sharing.md), through the Python door: a bare
repository as the remote, clones made with `git clone`, keys made with
ssh-keygen. Signed gate evidence is reused in a fresh clone without running
the command, unsigned trust is refused (`untrusted-evidence`), approvals
travel with their provenance, and two clones that advanced one change see a
divergence they resolve without losing a record. The CLI's version of the
same scenarios is crates/ledger-cli/tests/sharing.rs.

The signing settings are process-wide: every test here restores them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterator, Optional

import pytest

import ledger
from conftest import commit_all, git, init_repo, write

# The gate appends to `$COUNTER` (outside every checkout, so the argv is the
# same in every clone) and reads the checkout's input.
ARGV = ["sh", "-c", 'echo run >> "$COUNTER"; cat src/input.txt']
CHANGE = "add-auth"
REF = f"changes/{CHANGE}"
FETCH = "+refs/ledger/heads/*:refs/ledger/remotes/origin/*"
PUSH = "refs/ledger/heads/*:refs/ledger/heads/*"


@pytest.fixture(autouse=True)
def no_signing_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No signing settings from the environment: a workspace made here has
    only those its test gives it."""
    monkeypatch.delenv("LEDGER_SIGNING_KEY", raising=False)
    monkeypatch.delenv("LEDGER_ALLOWED_SIGNERS", raising=False)
    yield


class Team:
    """A seed checkout pushed to `remote.git`; `alice` and `bob` cloned from it,
    each with `remote_setup` done; keys for alice and mallory."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self.monkeypatch = monkeypatch
        # The signing settings of the workspaces made from now on (`sign`).
        self.signing: dict[str, Optional[str]] = {}
        seed = init_repo(root / "w")
        write(seed, "src/input.txt", "checked input\n")
        write(seed, f"openspec/changes/{CHANGE}/proposal.md", "# Why\n")
        commit_all(seed)
        git(root, "clone", "-q", "--bare", "w", "remote.git")
        for name in ("alice", "bob"):
            self.clone_as(name)
        for name in ("alice", "mallory"):
            self.key(name)

    def at(self, name: str) -> Path:
        return self.root / name

    def ws(self, name: str) -> ledger.Workspace:
        """`name`'s workspace, with the signing settings `sign` gave last."""
        return ledger.Workspace(self.at(name), **self.signing)  # type: ignore[arg-type]

    def sign(self, signing_key: Optional[str] = None, allowed_signers: Optional[str] = None) -> None:
        """The signing settings of every workspace made from now on."""
        self.signing = {"signing_key": signing_key, "allowed_signers": allowed_signers}

    def clone_as(self, name: str) -> ledger.Workspace:
        """A fresh clone of the remote, its ledger remote set up (added the
        first time, there the second; the fetch refspec in Git's config)."""
        git(self.root, "clone", "-q", "remote.git", name)
        ws = self.ws(name)
        first = ws.remote_setup()
        assert first == {"remote": "origin", "fetch": FETCH, "added": True, "push": PUSH}, first
        assert FETCH in git(self.at(name), "config", "--get-all", "remote.origin.fetch").splitlines()
        again = ws.remote_setup(remote="origin")
        assert again == {**first, "added": False}, again
        assert git(self.at(name), "config", "--get-all", "remote.origin.fetch").splitlines().count(FETCH) == 1
        return ws

    def key(self, name: str) -> None:
        """An Ed25519 key `keys/<name>` and `keys/<name>.allowed` naming it."""
        keys = self.root / "keys"
        keys.mkdir(exist_ok=True)
        key = keys / name
        made = subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)],
            capture_output=True,
            text=True,
        )
        assert made.returncode == 0, made.stderr
        public = (keys / f"{name}.pub").read_text()
        (keys / f"{name}.allowed").write_text(f'{name}@example.com namespaces="git" {public}')

    def key_path(self, name: str) -> str:
        return str(self.root / "keys" / name)

    def allowed(self, name: str) -> str:
        return self.key_path(f"{name}.allowed")

    def counter(self, name: str) -> Path:
        return self.root / f"{name}.runs"

    def runs(self, name: str) -> int:
        """How often the gate ran in `name`."""
        path = self.counter(name)
        return len(path.read_text().splitlines()) if path.exists() else 0

    def gate_run(self, name: str, gate: str = "test") -> ledger.GateRun:
        self.monkeypatch.setenv("COUNTER", str(self.counter(name)))
        return self.ws(name).run_gate(gate, argv=ARGV, echo="off")

    def gate_check(self, name: str, gate: str = "test") -> ledger.Freshness:
        self.monkeypatch.setenv("COUNTER", str(self.counter(name)))
        return self.ws(name).check_gate(gate, argv=ARGV)

    def approve(self, name: str, source: str) -> ledger.Binding:
        return self.ws(name).approve(CHANGE, "proposal", source=source)

    def push(self, name: str) -> bool:
        out = subprocess.run(
            ["git", "-C", str(self.at(name)), "push", "-q", "origin", "refs/ledger/heads/*"],
            capture_output=True,
            text=True,
        )
        return out.returncode == 0

    def fetch(self, name: str) -> None:
        git(self.at(name), "fetch", "-q", "origin")


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Team:
    return Team(tmp_path, monkeypatch)


def reasons(freshness: ledger.Freshness) -> list[str]:
    return [r["reason"] for r in freshness["reasons"]]


def code_of(error: pytest.ExceptionInfo[ledger.LedgerError]) -> Optional[str]:
    return error.value.code


def test_remote_setup_adds_the_refspec_once_and_refuses_an_unknown_remote(team: Team) -> None:
    # Team() checked added true, then false, for alice and bob.
    for remote in ("upstream", "no/such"):
        with pytest.raises(ledger.LedgerError) as e:
            team.ws("alice").remote_setup(remote=remote)
        assert code_of(e) == "invalid-argument", (remote, e.value)
    assert FETCH in git(team.at("alice"), "config", "--get-all", "remote.origin.fetch")
    assert "upstream" not in git(team.at("alice"), "config", "--list")


def test_a_fresh_clone_reuses_signed_evidence_and_keeps_approvals(team: Team) -> None:
    team.sign(signing_key=team.key_path("alice"))
    settings = team.ws("alice").settings()
    assert (settings["signing_key"], settings["allowed_signers"]) == (team.key_path("alice"), None)
    ran = team.gate_run("alice")
    assert ran["exit_code"] == 0 and not ran["reused"], ran
    assert team.runs("alice") == 1
    team.approve("alice", "review #12")
    # alice's own records are local: no signature needed to trust them.
    own = team.ws("alice").provenance("gates/test")
    assert own is not None and own["local"] and own["remote"] is None, own
    assert own["record"] == ran["record"]
    assert team.push("alice")

    # CI: a fresh clone at another path, trusting alice's key.
    team.sign(allowed_signers=team.allowed("alice"))
    ci = team.clone_as("ci")
    assert ci.provenance("gates/test") is None, "nothing fetched yet"
    team.fetch("ci")
    check = team.gate_check("ci")
    assert check["fresh"], check
    assert check["record"] == ran["record"]
    reused = team.gate_run("ci")
    assert reused["reused"] and reused["exit_code"] == 0, reused
    assert team.runs("ci") == 0, "signed evidence is reused: the command did not run"

    came = ci.provenance("gates/test")
    assert came is not None
    assert came["record"] == ran["record"]
    assert came["local"] is False and came["remote"] == "origin", came
    assert came["signer"] == "alice@example.com", came
    assert came["key"] is not None and came["key"].startswith("SHA256:"), came
    assert came["signature_problem"] is None, came

    # The approval travelled, and says where it came from and who signed it.
    status = ci.status(CHANGE)
    assert status["artifacts"][0]["artifact"] == "proposal"
    assert status["artifacts"][0]["state"] == "approved", status
    provenance = status["provenance"]
    assert provenance is not None
    assert provenance["remote"] == "origin" and provenance["local"] is False, provenance
    assert provenance["signer"] == "alice@example.com", provenance
    assert provenance["record"] == status["state_record"]

    # Nobody trusted: the same evidence is untrusted, and would run.
    team.sign()
    ci = team.ws("ci")
    assert (ci.settings()["signing_key"], ci.settings()["allowed_signers"]) == (None, None)
    untrusted = team.gate_check("ci")
    assert not untrusted["fresh"], untrusted
    assert reasons(untrusted) == ["untrusted-evidence"], untrusted
    assert untrusted["reasons"][0]["why"], untrusted
    unsigned = ci.provenance("gates/test")
    assert unsigned is not None and unsigned["signer"] is None, unsigned
    assert unsigned["signature_problem"], unsigned
    # The approval still reads (it binds content), with no signer now.
    status = ci.status(CHANGE)
    assert status["artifacts"][0]["state"] == "approved", status
    assert status["provenance"] is not None and status["provenance"]["remote"] == "origin"
    assert status["provenance"]["signer"] is None, status


def test_evidence_signed_by_another_key_is_untrusted_and_the_gate_runs(team: Team) -> None:
    team.sign(signing_key=team.key_path("mallory"))
    assert team.gate_run("alice")["exit_code"] == 0
    assert team.push("alice")
    team.sign(allowed_signers=team.allowed("alice"))
    team.clone_as("ci")
    team.fetch("ci")
    check = team.gate_check("ci")
    assert not check["fresh"] and reasons(check) == ["untrusted-evidence"], check
    assert "SHA256:" in check["reasons"][0]["why"], check
    ran = team.gate_run("ci")
    assert not ran["reused"] and ran["exit_code"] == 0, ran
    assert team.runs("ci") == 1, "untrusted evidence is not reused: the gate ran"
    # Evidence ci wrote itself is its own: reused from then on.
    assert team.gate_run("ci")["reused"]
    assert team.runs("ci") == 1
    mine = team.ws("ci").provenance("gates/test")
    assert mine is not None and mine["local"] and mine["record"] == ran["record"], mine


def test_two_clones_that_advanced_one_change_see_a_divergence_and_lose_nothing(team: Team) -> None:
    alice, bob = team.ws("alice"), team.ws("bob")
    team.approve("alice", "base")
    assert team.push("alice")
    team.fetch("bob")
    base = bob.status(CHANGE)["state_record"]
    assert base is not None and base == alice.status(CHANGE)["state_record"]
    team.approve("alice", "alice's review")
    team.approve("bob", "bob's review")
    mine = bob.status(CHANGE)["state_record"]
    assert mine is not None and mine != base
    # alice pushes first and wins; bob's push is not a fast-forward.
    assert team.push("alice")
    assert not team.push("bob"), "git refuses a push that is not a fast-forward"
    team.fetch("bob")

    with pytest.raises(ledger.LedgerError) as e:
        bob.status(CHANGE)
    assert code_of(e) == "divergent-heads", e.value
    assert isinstance(e.value, ledger.DivergentHeadsError)
    report = bob.store_check()
    assert not report["clean"], report
    assert [d["reference"] for d in report["divergent"]] == [REF], report
    heads = report["divergent"][0]["heads"]
    keep = alice.status(CHANGE)["state_record"]
    assert keep is not None and keep not in (base, mine)
    assert heads == [f"{mine} (local)", f"{keep} (fetched from origin)"], heads
    with pytest.raises(ledger.LedgerError) as e:
        bob.resolve(REF, "0" * 64)
    assert code_of(e) == "invalid-argument", "a record none of the heads names"
    assert bob.resolve(reference=REF, keep=keep) == keep
    assert bob.store_check()["divergent"] == []
    assert team.push("bob"), "the resolution fast-forwards"
    assert bob.status(CHANGE)["state_record"] == keep
    count = git(team.at("bob"), "rev-list", "--count", f"refs/ledger/heads/{REF}").strip()
    assert count == "4", "base, both reviews, the resolution"
    team.fetch("alice")
    assert alice.status(CHANGE)["state_record"] == keep

    # A ref that has not gone apart has nothing to resolve.
    with pytest.raises(ledger.LedgerError) as e:
        alice.resolve(reference=REF, keep=keep)
    assert code_of(e) == "invalid-argument", e.value


def test_signing_settings_are_the_workspace_s_and_refuse_an_empty_name(team: Team) -> None:
    both = ledger.Workspace(team.at("alice"), signing_key=team.key_path("alice"), allowed_signers=team.allowed("alice"))
    assert both.settings()["signing_key"] == team.key_path("alice")
    assert both.settings()["allowed_signers"] == team.allowed("alice")
    for options in ({"signing_key": ""}, {"allowed_signers": ""}):
        with pytest.raises(ledger.LedgerError) as e:
            ledger.Workspace(team.at("alice"), **options)  # type: ignore[arg-type]
        assert code_of(e) == "invalid-argument", (options, e.value)
    # Another workspace of the same checkout has its own settings.
    other = ledger.Workspace(team.at("alice"), allowed_signers=team.allowed("alice"))
    assert other.settings()["signing_key"] is None
    assert both.settings()["signing_key"] == team.key_path("alice")


def test_two_workspaces_with_different_signers_judge_the_same_evidence_each_their_way(team: Team) -> None:
    # Issue 44: in one process, at once, a workspace that trusts alice and one
    # that trusts nobody; neither sees the other's settings.
    team.sign(signing_key=team.key_path("alice"))
    assert team.gate_run("alice")["exit_code"] == 0
    assert team.push("alice")
    team.sign()
    team.clone_as("ci")
    team.fetch("ci")
    trusting = ledger.Workspace(team.at("ci"), allowed_signers=team.allowed("alice"))
    doubting = ledger.Workspace(team.at("ci"))
    team.monkeypatch.setenv("COUNTER", str(team.counter("ci")))
    assert trusting.check_gate("test", argv=ARGV)["fresh"]
    assert reasons(doubting.check_gate("test", argv=ARGV)) == ["untrusted-evidence"]
    assert trusting.check_gate("test", argv=ARGV)["fresh"], "the other workspace's settings leaked"


def test_a_verdict_from_elsewhere_stands_only_when_an_allowed_signer_signed_it(team: Team) -> None:
    team.sign(signing_key=team.key_path("mallory"))
    team.ws("alice").verdict_record("by-mallory", verdict="PASS", source="review 1", scope={"roots": ["src"]})
    team.sign(signing_key=team.key_path("alice"))
    team.ws("alice").verdict_record("by-alice", verdict="PASS", source="review 2", scope={"roots": ["src"]})
    assert team.push("alice")
    team.sign(allowed_signers=team.allowed("alice"))
    team.clone_as("ci")
    team.fetch("ci")
    ci = team.ws("ci")
    untrusted = ci.verdict_check("by-mallory")
    assert untrusted["comparison"] is not None and untrusted["comparison"]["matches"], untrusted
    assert not untrusted["stands"], "its state is unchanged, but nobody allowed signed it"
    assert untrusted["unproven"] is not None and "fetched from origin" in untrusted["unproven"], untrusted
    trusted = ci.verdict_check("by-alice")
    assert trusted["stands"] and trusted["unproven"] is None, trusted
