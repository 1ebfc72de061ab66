//! The listing of SPEC §4 through the `ledger` binary, with the git CLI as the
//! oracle under the very same environment and from several working directories:
//! configuration paths, broken `.git` files, unreadable directories, `GIT_DIR` and
//! friends, and the one-line error contract.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::*;

/// Runs `program` in `cwd` with the sandbox's environment plus `extra`.
fn run(s: &Sandbox, program: &str, cwd: &Path, extra: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(program);
    s.env(&mut cmd);
    for (name, value) in extra {
        cmd.env(name, value);
    }
    cmd.current_dir(cwd).args(args).output().unwrap()
}

/// What `git ls-files --cached --others --exclude-standard` lists in `dir` under
/// `extra`, one path per element, sorted.
fn git_paths(s: &Sandbox, dir: &Path, extra: &[(&str, &str)]) -> Vec<String> {
    let out = run(
        s,
        "git",
        dir,
        extra,
        &["ls-files", "--cached", "--others", "--exclude-standard"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut paths: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// The paths `ledger entries args` lists, run in `cwd` under `extra`.
fn ledger_paths(s: &Sandbox, cwd: &Path, extra: &[(&str, &str)], args: &[&str]) -> Vec<String> {
    let mut all = vec!["entries"];
    all.extend_from_slice(args);
    let out = run(s, env!("CARGO_BIN_EXE_ledger"), cwd, extra, &all);
    stdout(&out)
        .lines()
        .filter_map(|line| line.split_once('\t').map(|(_, path)| path.to_owned()))
        .collect()
}

/// Asserts that ledger lists the workspace `w` as git does, run from its top, from
/// `sub` (a subdirectory) and from outside with `--workspace`.
fn assert_same_from_everywhere(s: &Sandbox, extra: &[(&str, &str)], hidden: &str) {
    let w = s.w();
    let expected = git_paths(s, &w, extra);
    assert!(
        expected.iter().all(|p| !p.ends_with(hidden)),
        "the oracle lists {hidden}: {expected:?}"
    );
    assert!(expected.iter().any(|p| p == "sub/kept.txt"), "{expected:?}");
    let workspace = w.to_str().unwrap();
    assert_eq!(ledger_paths(s, &w, extra, &[]), expected, "from the top");
    assert_eq!(
        ledger_paths(s, &w.join("sub"), extra, &[]),
        expected,
        "from a subdirectory"
    );
    assert_eq!(
        ledger_paths(s, s.dir.path(), extra, &["--workspace", workspace]),
        expected,
        "from outside, with --workspace"
    );
}

/// A checkout with one file of each suffix the excludes files below ignore.
fn checkout_for_excludes() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    for file in ["kept.txt", "a.up", "b.in-git", "c.xdg", "d.home"] {
        s.write(&format!("sub/{file}"), b"x");
    }
    s
}

#[test]
fn relative_core_excludes_file_is_relative_to_the_worktree_top() {
    let s = checkout_for_excludes();
    std::fs::write(s.dir.path().join("user.exclude"), "*.up\n").unwrap();
    s.git(&s.w(), &["config", "core.excludesFile", "../user.exclude"]);
    assert_same_from_everywhere(&s, &[], ".up");
    s.write(".git/my-excludes", b"*.in-git\n");
    s.git(&s.w(), &["config", "core.excludesFile", ".git/my-excludes"]);
    assert_same_from_everywhere(&s, &[], ".in-git");
    std::fs::write(s.home().join("mine.exclude"), "*.home\n").unwrap();
    s.git(&s.w(), &["config", "core.excludesFile", "~/mine.exclude"]);
    assert_same_from_everywhere(&s, &[], ".home");
}

#[test]
fn the_default_excludes_file_follows_xdg_config_home_even_when_relative() {
    let s = checkout_for_excludes();
    // Unset `core.excludesFile`: `$XDG_CONFIG_HOME/git/ignore`.
    std::fs::create_dir_all(s.home().join(".config/git")).unwrap();
    std::fs::write(s.home().join(".config/git/ignore"), "*.xdg\n").unwrap();
    assert_same_from_everywhere(&s, &[], ".xdg");
    // A relative `$XDG_CONFIG_HOME` is relative to the worktree top as well.
    s.write("conf/git/ignore", b"*.up\n");
    assert_same_from_everywhere(&s, &[("XDG_CONFIG_HOME", "conf")], ".up");
    // An empty one counts as unset: `$HOME/.config/git/ignore`.
    assert_same_from_everywhere(&s, &[("XDG_CONFIG_HOME", "")], ".xdg");
}
