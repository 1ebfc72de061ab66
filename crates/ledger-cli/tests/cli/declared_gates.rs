//! Gates declared once in `ledger.toml`: `gate run NAME`, `gate check NAME`
//! and `gate run --all` take everything from the file, flags override, and
//! a check runs nothing the file says.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::*;

/// A checkout with `ledger.toml` declaring `lint` and `test` (which needs
/// `lint`); each appends its name to `runs` outside the checkout.
fn setup(extra: &str) -> (Sandbox, PathBuf) {
    let s = sample_checkout();
    let counter = s.dir.path().join("runs");
    std::fs::write(&counter, b"").unwrap();
    let c = counter.display();
    let toml = format!(
        r#"
[gates.lint]
command = ["sh", "-c", "echo lint >> '{c}'; echo linting; test -f src/lib.rs"]
roots = ["src"]
env = ["MODE=ci"]
env-cmd = {{ shell = "echo sh-1" }}

[gates.test]
command = ["sh", "-c", "echo test >> '{c}'; echo testing; grep -q 'pub fn f' src/lib.rs"]
roots = ["src", "README.md"]
exclude = [{{ path = "src/deep", reason = "fixtures, not inputs" }}]
needs = ["lint"]
{extra}"#
    );
    s.write("ledger.toml", toml.as_bytes());
    (s, counter)
}

fn runs(counter: &Path) -> Vec<String> {
    std::fs::read_to_string(counter)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(out)))
}

fn reasons(json: &serde_json::Value) -> Vec<String> {
    json["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_declared_gate_runs_by_name_and_is_reused_while_fresh() {
    let (s, counter) = setup("");
    let first = s.ledger(&s.w(), &["gate", "run", "lint"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(stdout(&first), "linting\n");
    let again = s.ledger(&s.w(), &["gate", "run", "--name", "lint"]);
    assert_eq!(again.status.code(), Some(0));
    assert!(
        stderr(&again).contains("reused, not run"),
        "{}",
        stderr(&again)
    );
    assert!(again.stdout.is_empty());
    assert_eq!(runs(&counter), ["lint"]);
    // The evidence holds the declared spec: scope with ledger.toml, prerequisites observed.
    let out = s.ledger(&s.w(), &["gate", "run", "lint", "--json"]);
    let run = json(&out);
    let evidence = &run["freshness"]["evidence"];
    assert_eq!(
        evidence["spec"]["scope"]["roots"],
        serde_json::json!(["src"])
    );
    assert_eq!(
        evidence["spec"]["scope"]["paths"],
        serde_json::json!(["ledger.toml"])
    );
    assert_eq!(
        evidence["prerequisites"],
        serde_json::json!({"MODE": "ci", "shell": "sh-1"})
    );
    // A replay writes the kept output where the command's would have gone.
    let replayed = s.ledger(&s.w(), &["gate", "run", "lint", "--replay"]);
    assert_eq!(stdout(&replayed), "linting\n");
    assert_eq!(
        runs(&counter),
        ["lint"],
        "a replay does not run the command"
    );
}

#[test]
fn a_check_runs_no_declared_command_and_flags_override() {
    let marker = tempfile::tempdir().unwrap();
    let m = marker.path().join("ran");
    let (s, counter) = setup("");
    // A declared prerequisite command that would leave a trace if run.
    let toml = std::fs::read_to_string(s.w().join("ledger.toml"))
        .unwrap()
        .replace("echo sh-1", &format!("touch '{}'; echo sh-1", m.display()));
    s.write("ledger.toml", toml.as_bytes());
    let never = s.ledger(&s.w(), &["gate", "check", "lint", "--json"]);
    assert_eq!(never.status.code(), Some(1));
    assert_eq!(reasons(&json(&never)), ["no-evidence"]);
    assert_eq!(
        s.ledger(&s.w(), &["gate", "run", "lint"]).status.code(),
        Some(0)
    );
    assert!(m.exists(), "the run observes the declared command");
    std::fs::remove_file(&m).unwrap();
    let check = s.ledger(&s.w(), &["gate", "check", "lint", "--json"]);
    assert_eq!(check.status.code(), Some(1));
    let answer = json(&check);
    assert_eq!(reasons(&answer), ["prerequisite-unverified"], "{answer}");
    assert_eq!(answer["reasons"][0]["name"], "shell");
    assert!(!m.exists(), "a check ran a command read from ledger.toml");
    let text = s.ledger(&s.w(), &["gate", "check", "lint"]);
    let said = String::from_utf8_lossy(&text.stdout);
    assert!(said.contains("prerequisite shell not verified"), "{said}");
    // The caller observes it: fresh.
    let given = s.ledger(
        &s.w(),
        &["gate", "check", "lint", "--env-cmd", "shell=echo sh-1"],
    );
    assert_eq!(given.status.code(), Some(0), "{}", stdout(&given));
    // A declared literal is observed by the check: another value is a change.
    let other = s.ledger(
        &s.w(),
        &[
            "gate",
            "check",
            "lint",
            "--env",
            "MODE=dev",
            "--env-cmd",
            "shell=echo sh-1",
            "--json",
        ],
    );
    assert_eq!(reasons(&json(&other)), ["prerequisite-changed"]);
    // A command given overrides the declared one.
    let cmd = s.ledger(
        &s.w(),
        &[
            "gate",
            "check",
            "lint",
            "--env-cmd",
            "shell=echo sh-1",
            "--json",
            "--",
            "true",
        ],
    );
    assert_eq!(reasons(&json(&cmd)), ["command-differs"]);
    // Scope flags override the declared inputs.
    let scope = s.ledger(
        &s.w(),
        &[
            "gate",
            "check",
            "lint",
            "--root",
            "src",
            "--env-cmd",
            "shell=echo sh-1",
            "--json",
        ],
    );
    assert_eq!(reasons(&json(&scope)), ["scope-differs"]);
    let overridden = s.ledger(&s.w(), &["gate", "run", "lint", "--root", "src"]);
    assert_eq!(overridden.status.code(), Some(0));
    assert_eq!(runs(&counter), ["lint", "lint"], "another scope: it ran");
}

#[test]
fn the_file_is_an_input_of_every_declared_gate() {
    let (s, counter) = setup("");
    assert_eq!(
        s.ledger(&s.w(), &["gate", "run", "test"]).status.code(),
        Some(0)
    );
    let mut toml = std::fs::read(s.w().join("ledger.toml")).unwrap();
    toml.extend_from_slice(b"# a comment\n");
    s.write("ledger.toml", &toml);
    let check = s.ledger(&s.w(), &["gate", "check", "test", "--json"]);
    let answer = json(&check);
    assert_eq!(reasons(&answer), ["inputs-changed"], "{answer}");
    let changed = answer["reasons"][0]["comparison"]["changes"][0]["new"]["path"].clone();
    assert_eq!(changed, "ledger.toml");
    // An excluded path is not an input.
    s.write("src/deep/er/x.txt", b"changed");
    assert_eq!(
        s.ledger(&s.w(), &["gate", "run", "test"]).status.code(),
        Some(0)
    );
    s.write("src/deep/er/x.txt", b"changed again");
    let reused = s.ledger(&s.w(), &["gate", "run", "test"]);
    assert!(
        stderr(&reused).contains("reused, not run"),
        "{}",
        stderr(&reused)
    );
    assert_eq!(runs(&counter), ["test", "test"]);
}

#[test]
fn run_all_follows_needs_reuses_fresh_gates_and_blocks_on_a_failure() {
    let (s, counter) = setup("[gates.docs]\ncommand = [\"true\"]\nroots = [\"README.md\"]\n");
    let first = s.ledger(&s.w(), &["gate", "run", "--all"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(
        runs(&counter),
        ["lint", "test"],
        "lint before test, which needs it"
    );
    let said = stderr(&first);
    assert!(
        said.contains("3 declared gate(s): ran and passed: docs, lint, test"),
        "{said}"
    );
    let again = s.ledger(&s.w(), &["gate", "run", "--all", "--replay"]);
    assert_eq!(again.status.code(), Some(0));
    let said = stderr(&again);
    assert!(
        said.contains("reused (fresh, not run): docs, lint, test"),
        "{said}"
    );
    assert_eq!(stdout(&again), "linting\ntesting\n", "replayed in order");
    assert_eq!(runs(&counter), ["lint", "test"]);
    // lint now fails: test is not run, docs (independent) is reused.
    std::fs::remove_file(s.w().join("src/lib.rs")).unwrap();
    let failing = s.ledger(&s.w(), &["gate", "run", "--all", "--json"]);
    assert_eq!(failing.status.code(), Some(1), "lint's own status");
    let report = json(&failing);
    let statuses: Vec<(&str, &str)> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["gate"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [("docs", "reused"), ("lint", "failed"), ("test", "blocked")]
    );
    assert_eq!(report["runs"][2]["blocked_by"], serde_json::json!(["lint"]));
    assert_eq!(runs(&counter), ["lint", "test", "lint"]);
    let text = s.ledger(&s.w(), &["gate", "run", "--all"]);
    assert!(
        stderr(&text).contains("gate test not run: it needs lint, which did not pass"),
        "{}",
        stderr(&text)
    );
}

#[test]
fn a_declared_timeout_stops_the_gate_and_the_flag_overrides_it() {
    let (s, _counter) = setup("[gates.slow]\ncommand = [\"sleep\", \"5\"]\ntimeout = \"300ms\"\n");
    let out = s.ledger(&s.w(), &["gate", "run", "slow"]);
    assert_eq!(out.status.code(), Some(124), "{}", stderr(&out));
    let out = s.ledger(
        &s.w(),
        &["gate", "run", "slow", "--timeout", "200ms", "--json"],
    );
    assert_eq!(out.status.code(), Some(124));
    assert_eq!(
        json(&out)["evidence"]["stopped"],
        serde_json::json!({"by": "timeout", "after_ms": 200})
    );
}

#[test]
fn a_declared_keep_output_bounds_the_kept_output_and_the_flag_overrides_it() {
    // It fails, so that it runs every time (failed evidence is never reused).
    let (s, _counter) = setup(
        "[gates.big]\ncommand = [\"sh\", \"-c\", \"seq 1 1000; exit 1\"]\nkeep-output = \"1KiB\"\n",
    );
    let all: Vec<u8> = (1..=1000)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    let bound_and_cut = |out: &Output| {
        let output = json(out)["evidence"]["output"].clone();
        (output["bound_bytes"].clone(), output["truncated"].clone())
    };
    let out = s.ledger(&s.w(), &["gate", "run", "big", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let (bound, cut) = bound_and_cut(&out);
    assert_eq!(bound, 1024);
    // The first 256 bytes end inside line 89; the last 768 start inside line 809.
    assert_eq!(
        (
            &cut["head_bytes"],
            &cut["dropped_bytes"],
            &cut["dropped_from_line"],
            &cut["dropped_to_line"]
        ),
        (
            &serde_json::json!(256),
            &serde_json::json!(all.len() - 1024),
            &serde_json::json!(89),
            &serde_json::json!(809)
        )
    );
    let shown = s.ledger(&s.w(), &["gate", "show", "big"]);
    assert!(
        stdout(&shown).contains("[ledger: output elided: bytes 256..3125 (lines 89 to 809) of 3893 bytes dropped; the start and the end are kept]\n"),
        "{}",
        stdout(&shown)
    );
    let out = s.ledger(
        &s.w(),
        &["gate", "run", "big", "--keep-output", "2KiB", "--json"],
    );
    assert_eq!(
        bound_and_cut(&out).0,
        2048,
        "the flag overrides the declaration"
    );
    // --all: each gate's own bound, unless the flag sets one for all.
    let out = s.ledger(&s.w(), &["gate", "run", "--all", "--json"]);
    let runs = json(&out)["runs"].clone();
    let big = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["gate"] == "big")
        .unwrap();
    assert_eq!(big["outcome"]["evidence"]["output"]["bound_bytes"], 1024);
    let out = s.ledger(
        &s.w(),
        &["gate", "run", "--all", "--keep-output", "4096", "--json"],
    );
    let runs = json(&out)["runs"].clone();
    let big = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["gate"] == "big")
        .unwrap();
    let output = &big["outcome"]["evidence"]["output"];
    assert_eq!(output["bound_bytes"], 4096);
    assert!(output.get("truncated").is_none(), "{output}");
    let bad = s.ledger(&s.w(), &["gate", "run", "--all", "--keep-output", "0"]);
    assert_run_refused(&bad, 125, "invalid-argument", "--keep-output");
}

#[test]
fn bad_declarations_are_refused_in_every_verb() {
    let (s, _counter) = setup("[gates.oops]\ncommand = []\n");
    let run = s.ledger(&s.w(), &["gate", "run", "lint"]);
    assert_run_refused(&run, 125, "bad-gate-declaration", "ledger.toml");
    let check = s.ledger(&s.w(), &["gate", "check", "lint"]);
    assert_eq!(check.status.code(), Some(2));
    assert!(
        stderr(&check).contains("error[bad-gate-declaration]"),
        "{}",
        stderr(&check)
    );
    let (s, _counter) = setup(
        "[gates.a]\ncommand = [\"true\"]\nneeds = [\"b\"]\n[gates.b]\ncommand = [\"true\"]\nneeds = [\"a\"]\n",
    );
    let all = s.ledger(&s.w(), &["gate", "run", "--all"]);
    assert_eq!(all.status.code(), Some(125));
    assert!(
        stderr(&all).contains("error[gate-cycle]"),
        "{}",
        stderr(&all)
    );
    let (s, _counter) = setup("[gates.huge]\ncommand = [\"true\"]\nkeep-output = \"2GiB\"\n");
    let run = s.ledger(&s.w(), &["gate", "run", "lint"]);
    assert_run_refused(&run, 125, "bad-gate-declaration", "`keep-output` '2GiB'");
    let (s, _counter) = setup("");
    let unknown = s.ledger(&s.w(), &["gate", "run", "nope"]);
    assert_eq!(unknown.status.code(), Some(125));
    assert!(
        stderr(&unknown).contains("declared: lint, test"),
        "{}",
        stderr(&unknown)
    );
    let mixed = s.ledger(&s.w(), &["gate", "run", "--all", "--", "true"]);
    assert_eq!(mixed.status.code(), Some(125));
    // A symlinked ledger.toml is not followed.
    std::fs::rename(s.w().join("ledger.toml"), s.w().join("gates.toml")).unwrap();
    std::os::unix::fs::symlink("gates.toml", s.w().join("ledger.toml")).unwrap();
    let linked = s.ledger(&s.w(), &["gate", "run", "lint"]);
    assert_eq!(linked.status.code(), Some(125), "{}", stderr(&linked));
    assert!(
        stderr(&linked).contains("ledger.toml"),
        "{}",
        stderr(&linked)
    );
    // Without the file, --all says there is nothing declared.
    std::fs::remove_file(s.w().join("ledger.toml")).unwrap();
    let none = s.ledger(&s.w(), &["gate", "run", "--all"]);
    assert_run_refused(&none, 125, "invalid-argument", "ledger.toml");
}

#[test]
fn check_all_answers_for_every_declared_gate_and_runs_nothing() {
    let (s, counter) = setup("");
    let never = s.ledger(&s.w(), &["gate", "check", "--all", "--json"]);
    assert_eq!(never.status.code(), Some(1));
    let fresh: Vec<bool> = json(&never)
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fresh"].as_bool().unwrap())
        .collect();
    assert_eq!(fresh, [false, false]);
    let ran = s.ledger(&s.w(), &["gate", "run", "--all"]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    assert_eq!(runs(&counter), ["lint", "test"]);
    // The declared env-cmd is not run by a check: lint is unverified until given.
    let unverified = s.ledger(&s.w(), &["gate", "check", "--all"]);
    assert_eq!(unverified.status.code(), Some(1));
    let text = String::from_utf8_lossy(&unverified.stdout).into_owned();
    assert!(
        text.ends_with("1 of 2 declared gate(s) stale: lint\n"),
        "{text}"
    );
    let given = ["gate", "check", "--all", "--env-cmd", "shell=echo sh-1"];
    let all = s.ledger(&s.w(), &given);
    assert_eq!(
        all.status.code(),
        Some(0),
        "{}{}",
        stderr(&all),
        String::from_utf8_lossy(&all.stdout)
    );
    assert!(stdout(&all).ends_with("all 2 declared gate(s) fresh\n"));
    s.write("src/lib.rs", b"pub fn f() {} // changed\n");
    let stale = s.ledger(&s.w(), &given);
    assert_eq!(stale.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&stale.stdout).contains("stale: lint, test"));
    assert_eq!(runs(&counter), ["lint", "test"], "a check runs nothing");
    let named = s.ledger(&s.w(), &["gate", "check", "--all", "lint"]);
    assert_eq!(named.status.code(), Some(2));
}

/// A gate's working directory lies inside its workspace, symlinks resolved,
/// however it is given: a declared `cwd` reached through a symlink that
/// leaves the workspace is refused as the same directory given by the
/// current directory is, and the command never runs there (issue 42).
#[test]
fn a_cwd_through_a_symlink_out_of_the_workspace_is_refused_declared_or_not() {
    let (s, counter) = setup("");
    let outside = s.dir.path().join("x");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, s.w().join("out")).unwrap();
    let c = counter.display();
    s.write(
        "ledger.toml",
        format!(
            "[gates.escape]\ncommand = [\"sh\", \"-c\", \"echo escape >> '{c}'\"]\ncwd = \"out\"\n"
        )
        .as_bytes(),
    );
    let declared = s.ledger(&s.w(), &["gate", "run", "escape"]);
    assert_run_refused(&declared, 125, "outside-workspace", "out");
    let w = s.w();
    let w = w.to_str().unwrap();
    let flags = s.ledger(
        &s.w().join("out"),
        &[
            "gate",
            "run",
            "--name",
            "escape",
            "--workspace",
            w,
            "--",
            "true",
        ],
    );
    assert_run_refused(&flags, 125, "outside-workspace", "x");
    assert!(
        runs(&counter).is_empty(),
        "nothing ran outside the workspace"
    );
    // A symlink to a directory inside the workspace is a directory of it.
    std::fs::remove_file(s.w().join("out")).unwrap();
    std::os::unix::fs::symlink("src", s.w().join("out")).unwrap();
    let inside = s.ledger(&s.w(), &["gate", "run", "escape"]);
    assert_eq!(inside.status.code(), Some(0), "{}", stderr(&inside));
    assert_eq!(runs(&counter), ["escape"]);
}
