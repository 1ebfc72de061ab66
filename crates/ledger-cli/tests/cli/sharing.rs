//! Evidence that travels (docs/sharing.md), as a team uses it: a bare
//! repository as the remote, two clones and a worktree, and a fresh clone at
//! another path playing CI. Signed gate evidence is reused there without
//! running the command; unsigned or wrongly signed evidence is not; approvals
//! travel; two clones that advanced the same change see a conflict, never a
//! lost record.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// The gate: appends to `$COUNTER` (outside every checkout, so the argv is the
/// same everywhere) and reads the checkout's input.
const SCRIPT: &str = "echo run >> \"$COUNTER\"; cat src/input.txt";
const CHANGE: &str = "openspec/changes/add-auth";

struct Team {
    s: Sandbox,
}

impl Team {
    /// A seed checkout pushed to `remote.git`; `alice` and `bob` cloned from it,
    /// each with `ledger remote setup` done; keys for alice and mallory.
    fn new() -> Team {
        let s = Sandbox::new();
        s.init();
        s.write("src/input.txt", b"checked input\n");
        s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
        s.commit_all();
        let team = Team { s };
        team.git(team.root(), &["clone", "-q", "--bare", "w", "remote.git"]);
        for name in ["alice", "bob"] {
            team.clone_as(name);
        }
        for name in ["alice", "mallory"] {
            team.key(name);
        }
        team
    }

    fn root(&self) -> &Path {
        self.s.dir.path()
    }

    fn at(&self, name: &str) -> PathBuf {
        self.root().join(name)
    }

    fn git(&self, dir: &Path, args: &[&str]) -> Output {
        self.s.git(dir, args)
    }

    /// A fresh clone of the remote at `name`, its ledger remote set up.
    fn clone_as(&self, name: &str) -> PathBuf {
        self.git(self.root(), &["clone", "-q", "remote.git", name]);
        let out = self.ledger(name, &["remote", "setup"]);
        assert!(stdout(&out).contains("refs/ledger/remotes/origin/*"));
        self.at(name)
    }

    /// An Ed25519 key `keys/<name>` and `keys/<name>.allowed` naming it.
    fn key(&self, name: &str) {
        let keys = self.root().join("keys");
        std::fs::create_dir_all(&keys).unwrap();
        let key = keys.join(name);
        let made = Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
            .arg(&key)
            .status()
            .unwrap();
        assert!(made.success());
        let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
        let line = format!("{name}@example.com namespaces=\"git\" {public}");
        std::fs::write(keys.join(format!("{name}.allowed")), line).unwrap();
    }

    fn key_path(&self, name: &str) -> String {
        self.root()
            .join("keys")
            .join(name)
            .to_str()
            .unwrap()
            .to_owned()
    }

    fn allowed(&self, name: &str) -> String {
        self.key_path(&format!("{name}.allowed"))
    }

    fn ledger(&self, dir: &str, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
        self.s.env(&mut cmd);
        cmd.env("COUNTER", self.counter(dir));
        cmd.env_remove("LEDGER_SIGNING_KEY");
        cmd.env_remove("LEDGER_ALLOWED_SIGNERS");
        cmd.current_dir(self.at(dir)).args(args).output().unwrap()
    }

    fn counter(&self, dir: &str) -> PathBuf {
        self.root().join(format!("{dir}.runs"))
    }

    /// How often the gate ran in `dir`.
    fn runs(&self, dir: &str) -> usize {
        std::fs::read_to_string(self.counter(dir)).map_or(0, |t| t.lines().count())
    }

    /// `ledger [signing] gate run --name NAME -- sh -c SCRIPT` in `dir`.
    fn gate_run(&self, dir: &str, name: &str, signing: &[&str]) -> Output {
        let mut args: Vec<&str> = signing.to_vec();
        args.extend(["gate", "run", "--name", name, "--", "sh", "-c", SCRIPT]);
        self.ledger(dir, &args)
    }

    fn gate_check(&self, dir: &str, name: &str, signing: &[&str]) -> serde_json::Value {
        let mut args: Vec<&str> = signing.to_vec();
        args.extend(["gate", "check", "--name", name, "--json"]);
        let out = self.ledger(dir, &args);
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)))
    }

    fn push(&self, dir: &str) -> bool {
        let out = self.s.git_output(
            &self.at(dir),
            &["push", "-q", "origin", "refs/ledger/heads/*"],
        );
        out.status.success()
    }

    fn fetch(&self, dir: &str) {
        self.git(&self.at(dir), &["fetch", "-q", "origin"]);
    }

    fn approve(&self, dir: &str, source: &str) -> Output {
        let args = [
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            "proposal",
            "--source",
            source,
        ];
        self.ledger(dir, &args)
    }

    fn status(&self, dir: &str, signing: &[&str]) -> (Option<i32>, serde_json::Value) {
        let mut args: Vec<&str> = signing.to_vec();
        args.extend(["status", "--change", "add-auth", "--json"]);
        let out = self.ledger(dir, &args);
        let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
        (out.status.code(), json)
    }
}

fn reasons(check: &serde_json::Value) -> Vec<String> {
    check["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_fresh_clone_reuses_signed_evidence_and_keeps_approvals() {
    let team = Team::new();
    let alice_key = team.key_path("alice");
    let signed = ["--signing-key", alice_key.as_str()];
    assert_eq!(
        team.gate_run("alice", "test", &signed).status.code(),
        Some(0)
    );
    assert_eq!(team.runs("alice"), 1);
    assert_eq!(team.approve("alice", "review #12").status.code(), Some(0));
    assert!(team.push("alice"));

    // CI: a fresh clone at another path, trusting alice's key.
    team.clone_as("ci");
    team.fetch("ci");
    let trusting = ["--allowed-signers", &team.allowed("alice")];
    let check = team.gate_check("ci", "test", &trusting);
    assert_eq!(check["fresh"], true, "{check}");
    let run = team.gate_run("ci", "test", &trusting);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        team.runs("ci"),
        0,
        "signed evidence is reused: the command did not run"
    );
    let mut args: Vec<&str> = trusting.to_vec();
    args.extend(["store", "provenance", "--ref", "gates/test"]);
    let seen = stdout(&team.ledger("ci", &args));
    assert!(
        seen.contains("fetched from origin, signed by alice@example.com (SHA256:"),
        "{seen}"
    );
    args.push("--json");
    let seen: serde_json::Value = serde_json::from_str(&stdout(&team.ledger("ci", &args))).unwrap();
    assert_eq!(seen["local"], false);
    assert_eq!(seen["signer"], "alice@example.com");
    let none = team.ledger("ci", &["store", "provenance", "--ref", "gates/none"]);
    assert_eq!(none.status.code(), Some(1));
    // The approval travelled, and says where it came from and who signed it.
    let (code, status) = team.status("ci", &trusting);
    assert_eq!(code, Some(1), "only the proposal is approved: {status}");
    assert_eq!(status["artifacts"][0]["state"], "approved", "{status}");
    assert_eq!(status["provenance"]["remote"], "origin", "{status}");
    assert_eq!(status["provenance"]["local"], false);
    let text = team.ledger("ci", &["status", "--change", "add-auth"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("state record fetched from origin"));
}

#[test]
fn unsigned_or_wrongly_signed_evidence_from_elsewhere_makes_the_gate_run() {
    let team = Team::new();
    let mallory_key = team.key_path("mallory");
    assert_eq!(team.gate_run("alice", "test", &[]).status.code(), Some(0));
    let mallory = ["--signing-key", mallory_key.as_str()];
    assert_eq!(
        team.gate_run("alice", "lint", &mallory).status.code(),
        Some(0)
    );
    assert!(team.push("alice"));
    team.clone_as("ci");
    team.fetch("ci");
    let trusting = ["--allowed-signers", &team.allowed("alice")];
    for gate in ["test", "lint"] {
        let check = team.gate_check("ci", gate, &trusting);
        assert_eq!(check["fresh"], false, "{check}");
        assert_eq!(reasons(&check), ["untrusted-evidence"], "{gate}: {check}");
    }
    let why = team.gate_check("ci", "lint", &trusting)["reasons"][0]["why"].clone();
    assert!(why.as_str().unwrap().contains("SHA256:"), "{why}");
    let text = team.ledger(
        "ci",
        &[
            "--allowed-signers",
            &team.allowed("alice"),
            "gate",
            "check",
            "--name",
            "test",
        ],
    );
    assert_eq!(text.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&text.stdout)
            .contains("untrusted evidence: it was fetched from origin and it is not signed")
    );
    for gate in ["test", "lint"] {
        assert_eq!(team.gate_run("ci", gate, &trusting).status.code(), Some(0));
    }
    assert_eq!(team.runs("ci"), 2, "each gate ran");
    // Evidence ci wrote itself is its own: reused from then on.
    assert_eq!(
        team.gate_run("ci", "test", &trusting).status.code(),
        Some(0)
    );
    assert_eq!(team.runs("ci"), 2);
}

#[test]
fn a_worktree_and_a_copy_reuse_evidence_without_a_remote() {
    let team = Team::new();
    assert_eq!(team.gate_run("alice", "test", &[]).status.code(), Some(0));
    team.git(
        &team.at("alice"),
        &["worktree", "add", "-q", "../alice-fix"],
    );
    assert_eq!(
        team.gate_run("alice-fix", "test", &[]).status.code(),
        Some(0)
    );
    assert_eq!(team.runs("alice-fix"), 0, "the worktree shares the store");
    let copied = Command::new("cp")
        .args(["-a"])
        .arg(team.at("alice"))
        .arg(team.at("alice-copy"))
        .status()
        .unwrap();
    assert!(copied.success());
    assert_eq!(
        team.gate_run("alice-copy", "test", &[]).status.code(),
        Some(0)
    );
    assert_eq!(team.runs("alice-copy"), 0, "the copy holds the store");
    // A change in the worktree is a change: the gate runs there.
    std::fs::write(team.at("alice-fix/src/input.txt"), "fixed\n").unwrap();
    assert_eq!(
        team.gate_run("alice-fix", "test", &[]).status.code(),
        Some(0)
    );
    assert_eq!(team.runs("alice-fix"), 1);
}

#[test]
fn two_clones_that_advanced_one_change_see_a_conflict_and_lose_nothing() {
    let team = Team::new();
    assert_eq!(team.approve("alice", "base").status.code(), Some(0));
    assert!(team.push("alice"));
    team.fetch("bob");
    assert_eq!(
        team.approve("alice", "alice's review").status.code(),
        Some(0)
    );
    assert_eq!(team.approve("bob", "bob's review").status.code(), Some(0));
    // Both push at once: git lets one through and refuses the other.
    let pushes: Vec<bool> = std::thread::scope(|scope| {
        let a = scope.spawn(|| team.push("alice"));
        let b = scope.spawn(|| team.push("bob"));
        vec![a.join().unwrap(), b.join().unwrap()]
    });
    assert_eq!(pushes.iter().filter(|ok| **ok).count(), 1, "{pushes:?}");
    let (won, lost) = if pushes[0] {
        ("alice", "bob")
    } else {
        ("bob", "alice")
    };
    team.fetch(lost);
    let (code, _) = team.status(lost, &[]);
    assert_eq!(code, Some(2));
    let out = team.ledger(lost, &["status", "--change", "add-auth"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("error[divergent-heads]: "), "{stderr}");
    let check = team.ledger(lost, &["store", "check", "--json"]);
    assert_eq!(check.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    let heads = report["divergent"][0]["heads"].as_array().unwrap().clone();
    assert_eq!(heads.len(), 2, "{report}");
    // Keep the winner's head; the loser's record stays in the history.
    let winner = team.ledger(won, &["state", "show", "--change", "add-auth", "--json"]);
    let winner: serde_json::Value = serde_json::from_slice(&winner.stdout).unwrap();
    let keep = winner[0]["record"]
        .as_str()
        .unwrap_or_else(|| panic!("{winner}"))
        .to_owned();
    let resolved = team.ledger(
        lost,
        &[
            "store",
            "resolve",
            "--ref",
            "changes/add-auth",
            "--keep",
            &keep,
        ],
    );
    assert_eq!(
        resolved.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&resolved.stderr)
    );
    assert!(team.push(lost), "the resolution fast-forwards");
    let (_, status) = team.status(lost, &[]);
    assert_eq!(status["state_record"], keep.as_str(), "{status}");
    let log = team.git(
        &team.at(lost),
        &["rev-list", "--count", "refs/ledger/heads/changes/add-auth"],
    );
    assert_eq!(
        String::from_utf8_lossy(&log.stdout).trim(),
        "4",
        "base, both reviews, the resolution"
    );
    team.fetch(won);
    assert_eq!(team.status(won, &[]).1["state_record"], keep.as_str());
}

#[test]
fn a_verdict_from_elsewhere_stands_only_when_an_allowed_signer_signed_it() {
    let team = Team::new();
    let record = |dir: &str, name: &str, signing: &[&str]| {
        let mut args: Vec<&str> = signing.to_vec();
        args.extend([
            "verdict",
            "record",
            "--name",
            name,
            "--verdict",
            "PASS",
            "--source",
            "review:1",
            "--root",
            "src",
        ]);
        let out = team.ledger(dir, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let alice_key = team.key_path("alice");
    let mallory_key = team.key_path("mallory");
    record("alice", "unsigned", &[]);
    record("alice", "by-mallory", &["--signing-key", &mallory_key]);
    record("alice", "by-alice", &["--signing-key", &alice_key]);
    assert!(team.push("alice"));
    team.clone_as("ci");
    team.fetch("ci");
    let check = |name: &str, json: bool| {
        let allowed = team.allowed("alice");
        let mut args = vec!["--allowed-signers", allowed.as_str()];
        args.extend(["verdict", "check", "--name", name]);
        if json {
            args.push("--json");
        }
        team.ledger("ci", &args)
    };
    for name in ["unsigned", "by-mallory"] {
        let out = check(name, true);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["stands"], false, "{json}");
        // The state is unchanged: only the proof is missing.
        assert_eq!(json["comparison"]["matches"], true, "{json}");
        assert!(
            json["unproven"]
                .as_str()
                .unwrap()
                .contains("fetched from origin"),
            "{json}"
        );
    }
    let text = String::from_utf8_lossy(&check("unsigned", false).stdout).into_owned();
    assert!(
        text.contains("is unproven here: it was fetched from origin and it is not signed"),
        "{text}"
    );
    let out = check("by-alice", true);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (json["stands"].clone(), json["unproven"].clone()),
        (true.into(), serde_json::Value::Null)
    );
    // A verdict ci recorded itself is its own.
    record("ci", "unsigned", &[]);
    assert_eq!(check("unsigned", false).status.code(), Some(0));
}
