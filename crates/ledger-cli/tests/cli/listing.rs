//! The listing of SPEC §4 through the `ledger` binary, with the git CLI as the
//! oracle under the very same environment and from several working directories:
//! configuration paths, broken `.git` files, unreadable directories, `GIT_DIR` and
//! friends, and the one-line error contract.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;

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

/// A hook of `git -c core.excludesFile=... commit` inherits the value in
/// `GIT_CONFIG_PARAMETERS`; git lists with it, and so must ledger.
#[test]
fn git_c_values_passed_down_by_git_are_applied() {
    let s = checkout_for_excludes();
    std::fs::write(s.dir.path().join("user.exclude"), "*.up\n").unwrap();
    let parameters = "'user.name'='a b' 'core.excludesfile'='../user.exclude'";
    assert_same_from_everywhere(&s, &[("GIT_CONFIG_PARAMETERS", parameters)], ".up");
    // What git calls a bogus format, git refuses too.
    let bogus: &[(&str, &str)] = &[("GIT_CONFIG_PARAMETERS", "core.excludesfile=x")];
    let git = run(&s, "git", &s.w(), bogus, &["ls-files"]);
    assert!(!git.status.success());
    let out = run(
        &s,
        env!("CARGO_BIN_EXE_ledger"),
        &s.w(),
        bogus,
        &["entries"],
    );
    assert_one_line(&out, "git", "GIT_CONFIG_PARAMETERS");
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

/// Runs `ledger args` in `cwd` with the sandbox's environment.
fn ledger(s: &Sandbox, cwd: &Path, args: &[&str]) -> Output {
    run(s, env!("CARGO_BIN_EXE_ledger"), cwd, &[], args)
}

/// Asserts that git refuses to list in `dir` (it names `gitfile` in its message).
fn assert_git_refuses(s: &Sandbox, dir: &Path, gitfile: &str) {
    let out = run(
        s,
        "git",
        dir,
        &[],
        &["ls-files", "-co", "--exclude-standard"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "git lists in {}", dir.display());
    assert!(
        stderr.contains(gitfile) || stderr.contains("not a git repository"),
        "{stderr}"
    );
}

#[test]
fn a_broken_gitfile_of_a_submodule_is_refused_not_listed_empty() {
    let (s, _upstream) = checkout_with_submodule();
    let sub = s.w().join("sub");
    for gitfile in ["garbage\n", "gitdir: ../.git/modules/gone\n", "gitdir: \n"] {
        std::fs::write(sub.join(".git"), gitfile).unwrap();
        assert_git_refuses(&s, &sub, "sub/.git");
        // The workspace is the broken checkout: given, or found from the cwd.
        let workspace = sub.to_str().unwrap();
        let given = ledger(&s, &s.w(), &["fingerprint", "--workspace", workspace]);
        assert_blocked(&given, "invalid-gitfile", "sub/.git");
        assert_blocked(
            &ledger(&s, &sub, &["fingerprint"]),
            "invalid-gitfile",
            "sub/.git",
        );
        // Declared as a repository of the superproject's workspace.
        let declared = ledger(&s, &s.w(), &["fingerprint", "--repo", ".", "--repo", "sub"]);
        assert_blocked(&declared, "invalid-gitfile", "'sub/.git'");
        // Undeclared, it is the superproject's gitlink, as git lists it.
        let undeclared = ledger(&s, &s.w(), &["fingerprint"]);
        assert_blocked(&undeclared, "nested-repository", "sub");
    }
}

#[test]
fn a_broken_gitfile_outside_git_is_refused_as_such() {
    let s = Sandbox::new();
    s.write("a.txt", b"a");
    s.write("nested/b.txt", b"b");
    std::fs::write(s.w().join("nested/.git"), "gitdir: /nonexistent\n").unwrap();
    let walked = ledger(&s, &s.w(), &["fingerprint"]);
    assert_blocked(&walked, "invalid-gitfile", "'nested/.git'");
    // At the workspace root: not "nested-repository '.'".
    std::fs::write(s.w().join(".git"), "not a gitfile\n").unwrap();
    assert_git_refuses(&s, &s.w(), ".git");
    assert_blocked(
        &ledger(&s, &s.w(), &["fingerprint"]),
        "invalid-gitfile",
        ".git",
    );
}

/// Runs `ledger args` in `cwd` as a user that meets permission errors: `nobody` when
/// the tests run as root (root reads anything), else the current user. The sandbox is
/// made readable and its repositories safe for that user; `nobody` runs the binary's
/// link in the sandbox ([`Sandbox::ledger_for_nobody`]).
fn ledger_unprivileged(s: &Sandbox, cwd: &Path, args: &[&str]) -> Output {
    let ledger = s.ledger_for_nobody();
    unprivileged(s, ledger.to_str().unwrap(), cwd, args)
}

/// [`ledger_unprivileged`] for any program.
fn unprivileged(s: &Sandbox, program: &str, cwd: &Path, args: &[&str]) -> Output {
    let uid = Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return run(s, program, cwd, &[], args);
    }
    s.git(
        &s.w(),
        &["config", "--global", "--add", "safe.directory", "*"],
    );
    for dir in [s.dir.path(), &s.home()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let config = s.home().join(".gitconfig");
    std::fs::set_permissions(config, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut cmd = Command::new("setpriv");
    s.env(&mut cmd);
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// The paths of `ledger entries` output.
fn paths_of(out: &Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter_map(|line| line.split_once('\t').map(|(_, path)| path.to_owned()))
        .collect()
}

#[test]
fn an_unreadable_directory_blocks_in_scope_and_is_never_opened_out_of_it() {
    let s = sample_checkout();
    s.write("secret/hidden.txt", b"h");
    std::fs::set_permissions(s.w().join("secret"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let w = s.w();
    // In scope: git would warn and list less; ledger refuses, naming the directory.
    let out = ledger_unprivileged(&s, &w, &["entries"]);
    assert_blocked(&out, "unreadable", "'secret'");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // Out of scope (outside every root, excluded, outside the workspace): the answer
    // is git's for the scope, as root (which reads everything) lists it.
    let cases: [(&Path, &[&str], &[&str]); 3] = [
        (&w, &["--root", "src"], &["src"]),
        (&w, &["--exclude", "secret"], &[".", ":(exclude)secret"]),
        (&w.join("src"), &[], &["."]),
    ];
    for (cwd, args, pathspecs) in cases {
        let mut all = vec!["entries"];
        all.extend_from_slice(args);
        let workspace_args: Vec<&str> = if cwd == w {
            all.clone()
        } else {
            let mut with = all.clone();
            with.extend(["--workspace", cwd.to_str().unwrap()]);
            with
        };
        let out = ledger_unprivileged(&s, &w, &workspace_args);
        let mut git_args = vec![
            "ls-files",
            "--cached",
            "--others",
            "--exclude-standard",
            "--",
        ];
        git_args.extend_from_slice(pathspecs);
        let listed = s.git(cwd, &git_args);
        // Both quote a name with a tab alike; the order of quoted names may differ.
        let sorted = |mut paths: Vec<String>| {
            paths.sort();
            paths
        };
        let expected = sorted(
            String::from_utf8(listed.stdout)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect(),
        );
        let ours = sorted(paths_of(&out));
        assert_eq!(ours, expected, "{args:?} in {}", cwd.display());
        assert!(!expected.is_empty());
        assert_eq!(last_line(&out), last_line(&ledger(&s, &w, &workspace_args)));
    }
    std::fs::set_permissions(s.w().join("secret"), std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A checkout with a submodule `sub` (holding `readme`), committed.
fn checkout_with_submodule() -> (Sandbox, Sandbox) {
    let upstream = Sandbox::new();
    upstream.init();
    upstream.write("readme", b"sub");
    upstream.commit_all();
    let s = Sandbox::new();
    s.init();
    s.write("top.txt", b"top");
    s.commit_all();
    let url = upstream.w();
    let url = url.to_str().unwrap();
    let allow = ["-c", "protocol.file.allow=always"];
    s.git(
        &s.w(),
        &[&allow[..], &["submodule", "add", "-q", url, "sub"]].concat(),
    );
    s.git(&s.w(), &["commit", "-q", "-m", "sub"]);
    (s, upstream)
}

#[test]
fn a_root_inside_an_undeclared_submodule_blocks() {
    let (s, _upstream) = checkout_with_submodule();
    let out = ledger(&s, &s.w(), &["fingerprint", "--root", "sub/readme"]);
    assert_blocked(&out, "nested-repository", "'sub'");
    let declared = ledger(
        &s,
        &s.w(),
        &[
            "entries",
            "--repo",
            ".",
            "--repo",
            "sub",
            "--root",
            "sub/readme",
        ],
    );
    assert_eq!(paths_of(&declared), ["sub/readme"]);
}

/// Asserts the one-line error contract: exit 2, nothing on stdout, stderr exactly
/// `error[code]: message` on one line naming `path`, no `Debug` rendering in it
/// (then at most the CLI's one `hint:` line).
fn assert_one_line(out: &Output, code: &str, path: &str) {
    assert_blocked(out, code, path);
    let stderr = String::from_utf8(out.stderr.clone()).unwrap();
    let mut lines = stderr.lines();
    let line = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    assert!(
        rest.is_empty() || (rest.len() == 1 && rest[0].starts_with("hint: ")),
        "more than one line: {stderr}"
    );
    for debug in ["{", "Os {", "Caused by", "Message {"] {
        assert!(!line.contains(debug), "a Debug dump: {stderr}");
    }
}

#[test]
fn every_reachable_git_failure_is_one_coded_line() {
    let s = sample_checkout();
    let w = s.w();
    // A regular file as the workspace.
    let out = ledger(&s, &w, &["fingerprint", "--workspace", "README.md"]);
    assert_one_line(&out, "unreadable", "README.md");
    // An index that is no index.
    let out = run(
        &s,
        env!("CARGO_BIN_EXE_ledger"),
        &w,
        &[("GIT_INDEX_FILE", "/dev/null")],
        &["fingerprint"],
    );
    assert_one_line(&out, "git", "/dev/null");
    // A worktree that does not exist: gix would call the repository unsafe.
    s.git(
        &w,
        &["config", "core.worktree", "/nonexistent/ledger-worktree"],
    );
    let out = ledger(&s, &w, &["fingerprint"]);
    assert_one_line(&out, "git", "/nonexistent/ledger-worktree");
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    let config = w.join(".git/config");
    let config = config.to_str().unwrap();
    s.git(
        s.dir.path(),
        &["config", "-f", config, "--unset", "core.worktree"],
    );
    // A broken gitfile below.
    s.write("nested/x", b"x");
    std::fs::write(w.join("nested/.git"), "gitdir:\n").unwrap();
    let out = ledger(&s, &w, &["fingerprint", "--workspace", "nested"]);
    assert_one_line(&out, "invalid-gitfile", "nested/.git");
    std::fs::remove_dir_all(w.join("nested")).unwrap();
    // A split index whose shared part is damaged (a byte of an entry's status:
    // git does not check the checksum when it reads an index, and lists it; so
    // does ledger), then gone.
    s.git(&w, &["update-index", "--split-index"]);
    let shared: Vec<_> = std::fs::read_dir(w.join(".git"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("sharedindex.")
        })
        .collect();
    assert_eq!(shared.len(), 1, "{shared:?}");
    let mut bytes = std::fs::read(&shared[0]).unwrap();
    bytes[40] ^= 0xff;
    std::fs::set_permissions(&shared[0], std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(&shared[0], &bytes).unwrap();
    assert!(s.git_output(&w, &["ls-files"]).status.success());
    let listed = ledger(&s, &w, &["fingerprint"]);
    assert_eq!(listed.status.code(), Some(0), "{listed:?}");
    std::fs::remove_file(&shared[0]).unwrap();
    assert_one_line(&ledger(&s, &w, &["fingerprint"]), "git", "sharedindex");
}

#[test]
fn unreadable_ignore_files_block_and_an_unreadable_home_does_not() {
    let s = sample_checkout();
    let w = s.w();
    // Files the unreadable user excludes file would ignore: git warns and lists them.
    std::fs::create_dir_all(s.home().join(".config/git")).unwrap();
    std::fs::write(s.home().join(".config/git/ignore"), "*.txt\n").unwrap();
    std::fs::set_permissions(
        s.home().join(".config"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    let git = unprivileged(&s, "git", &w, &["ls-files", "-co", "--exclude-standard"]);
    assert!(git.status.success());
    assert!(
        String::from_utf8_lossy(&git.stderr).contains("warning"),
        "{git:?}"
    );
    let mut expected: Vec<String> = String::from_utf8(git.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    expected.sort();
    assert!(expected.iter().any(|p| p == "untracked.txt"));
    let mut ours = paths_of(&ledger_unprivileged(&s, &w, &["entries"]));
    ours.sort();
    assert_eq!(ours, expected);
    // An ignore file in the repository git would skip with a warning: refused.
    s.write("src/.gitignore", b"*.rs\n");
    std::fs::set_permissions(
        w.join("src/.gitignore"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let out = ledger_unprivileged(&s, &w, &["entries"]);
    assert_one_line(&out, "unreadable", "'src/.gitignore'");
    std::fs::remove_file(w.join("src/.gitignore")).unwrap();
    s.write(".git/info/exclude", b"*.sh\n");
    std::fs::set_permissions(
        w.join(".git/info/exclude"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let out = ledger_unprivileged(&s, &w, &["entries"]);
    assert_one_line(&out, "unreadable", ".git/info/exclude");
}

#[test]
fn a_missing_workspace_is_an_error_for_every_verb() {
    let s = Sandbox::new();
    let file = s.dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    for workspace in ["/nonexistent/ledger-workspace", file.to_str().unwrap()] {
        let verbs: [&[&str]; 7] = [
            &["store", "check"],
            &["state", "show", "--change", "x"],
            &["status", "--change", "x"],
            &["fingerprint"],
            &["entries"],
            &["gate", "check", "--name", "g"],
            &["gate", "run", "--name", "g"],
        ];
        for verb in verbs {
            let mut args = verb.to_vec();
            args.extend(["--workspace", workspace]);
            if verb[0] == "gate" {
                args.extend(["--", "true"]);
            }
            let out = ledger(&s, s.dir.path(), &args);
            if verb.starts_with(&["gate", "run"]) {
                // `gate run` reports ledger's own failure as 125 (docs/gates.md).
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(125), "{stderr}");
                assert!(stderr.starts_with("error[unreadable]: ") && stderr.contains(workspace));
                continue;
            }
            assert_one_line(&out, "unreadable", workspace);
        }
    }
}

#[test]
fn git_locating_variables_are_refused_unless_they_name_what_ledger_opens() {
    let s = Sandbox::new();
    s.init();
    s.write("fa", b"a");
    s.write("sub/s", b"s");
    s.commit_all();
    s.write("u.txt", b"untracked");
    let w = s.w();
    let other = s.dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    s.git(&other, &["init", "-q", "-b", "main"]);
    std::fs::write(other.join("fb"), b"b").unwrap();
    s.git(&other, &["add", "fb"]);
    // The common directory holds `info/exclude`: here one that hides `u.txt`.
    std::fs::write(other.join(".git/info/exclude"), b"u.txt\n").unwrap();
    let other_git = other.join(".git");
    let (other, other_git) = (other.to_str().unwrap(), other_git.to_str().unwrap());
    let plain = git_paths(&s, &w, &[]);
    let refused: [(&str, &[(&str, &str)]); 5] = [
        ("", &[("GIT_DIR", other_git)]),
        ("", &[("GIT_WORK_TREE", other)]),
        ("", &[("GIT_COMMON_DIR", other_git)]),
        ("", &[("GIT_DIR", "/nonexistent/ledger.git")]),
        // From a subdirectory, git takes it for the top of the worktree.
        ("sub", &[("GIT_DIR", "../.git")]),
    ];
    for (cwd, env) in refused {
        let cwd = w.join(cwd);
        let git = run(
            &s,
            "git",
            &cwd,
            env,
            &["ls-files", "-co", "--exclude-standard"],
        );
        let git_listing = String::from_utf8_lossy(&git.stdout)
            .lines()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        assert!(
            !git.status.success() || git_listing != plain,
            "{env:?}: git agrees"
        );
        let out = run(&s, env!("CARGO_BIN_EXE_ledger"), &cwd, env, &["entries"]);
        assert_one_line(&out, "git-environment", env[0].0);
    }
    // Naming exactly the repository and worktree ledger finds: git's answer.
    let top = w.to_str().unwrap().to_owned();
    let git_dir = format!("{top}/.git");
    let agreeing: [&[(&str, &str)]; 4] = [
        &[("GIT_DIR", ".git")],
        &[("GIT_DIR", &git_dir), ("GIT_WORK_TREE", &top)],
        &[("GIT_WORK_TREE", ".")],
        &[("GIT_COMMON_DIR", &git_dir)],
    ];
    for env in agreeing {
        let expected = git_paths(&s, &w, env);
        assert_eq!(expected, plain, "{env:?}");
        assert_eq!(ledger_paths(&s, &w, env, &[]), expected, "{env:?}");
    }
    // A linked worktree, as its hooks see it.
    let linked = s.dir.path().join("linked");
    s.git(&w, &["worktree", "add", "-q", linked.to_str().unwrap()]);
    std::fs::write(linked.join("new.txt"), b"n").unwrap();
    let linked_git = format!("{git_dir}/worktrees/linked");
    let env: &[(&str, &str)] = &[("GIT_DIR", &linked_git), ("GIT_COMMON_DIR", &git_dir)];
    let expected = git_paths(&s, &linked, env);
    assert!(expected.iter().any(|p| p == "new.txt"), "{expected:?}");
    assert_eq!(ledger_paths(&s, &linked, env, &[]), expected);
    let env: &[(&str, &str)] = &[("GIT_DIR", &git_dir)];
    assert_one_line(
        &run(&s, env!("CARGO_BIN_EXE_ledger"), &linked, env, &["entries"]),
        "git-environment",
        "GIT_DIR",
    );
}

/// git reads a relative `GIT_INDEX_FILE` from the top of the worktree, as it reads
/// everything, wherever it was started.
#[test]
fn a_relative_git_index_file_is_relative_to_the_worktree_top() {
    let s = sample_checkout();
    let w = s.w();
    std::fs::copy(w.join(".git/index"), w.join(".git/alt-index")).unwrap();
    s.write("ghost", b"g");
    let env: &[(&str, &str)] = &[("GIT_INDEX_FILE", ".git/alt-index")];
    let staged = run(&s, "git", &w, env, &["add", "ghost"]);
    assert!(staged.status.success());
    std::fs::remove_file(w.join("ghost")).unwrap();
    let expected = git_paths(&s, &w, env);
    assert!(expected.iter().any(|p| p == "ghost"), "{expected:?}");
    // git from the subdirectory lists the same index (`:/` is the whole tree).
    let below = run(
        &s,
        "git",
        &w.join("src"),
        env,
        &["ls-files", "--cached", "--full-name", ":/ghost"],
    );
    assert_eq!(String::from_utf8_lossy(&below.stdout), "ghost\n");
    let mut ours = ledger_paths(&s, &w.join("src"), env, &[]);
    ours.sort();
    let mut expected = expected;
    expected.sort();
    assert_eq!(ours, expected);
}

/// Below a ceiling git finds no repository; ledger neither, and walks the directory.
#[test]
fn git_ceiling_directories_bound_the_search_for_the_repository() {
    let s = sample_checkout();
    let w = s.w();
    s.write("src/ignored.log", b"log");
    let ceiling = w.to_str().unwrap().to_owned();
    let env: &[(&str, &str)] = &[("GIT_CEILING_DIRECTORIES", &ceiling)];
    let git = run(&s, "git", &w.join("src"), env, &["ls-files"]);
    assert!(!git.status.success(), "git finds a repository");
    let paths = ledger_paths(&s, &w.join("src"), env, &[]);
    assert_eq!(paths, ["deep/er/x.txt", "ignored.log", "lib.rs"]);
    // The ceiling itself is searched, as git searches the directory it runs in.
    let mut ours = ledger_paths(&s, &w, env, &[]);
    ours.sort();
    assert_eq!(ours, git_paths(&s, &w, env));
    // Without it, the checkout's listing (no ignored file).
    assert!(!ledger_paths(&s, &w.join("src"), &[], &[]).contains(&"src/ignored.log".to_owned()));
}

/// The walk memo never replays a directory whose `.git` decides whether it
/// is a nested repository by content it cannot watch (issue 42): `sub/.git`
/// names a gitdir that does not exist (git lists `sub/f`), warm runs follow
/// while the tree ages, then the file is rewritten in place to name a real
/// repository, and the next cached run refuses `sub` as `--no-cache` and git
/// do, instead of listing `sub/f` again.
#[test]
fn a_git_file_rewritten_in_place_is_never_answered_from_the_walk_memo() {
    let s = Sandbox::new();
    s.init();
    s.write("a.txt", b"a");
    // The checkout's own `.ledger/` (ignored) keeps the digest cache and the memo.
    s.write(".ledger/.gitignore", b"*\n");
    s.commit_all();
    let other = s.dir.path().join("other");
    s.git(s.dir.path(), &["init", "-q", other.to_str().unwrap()]);
    s.write("sub/f", b"f");
    s.write("sub/.git", b"gitdir: /nonexistent/ledger-test\n");
    for _ in 0..12 {
        std::thread::sleep(std::time::Duration::from_millis(150));
        let out = ledger(&s, &s.w(), &["--progress", "fingerprint"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let real = format!("gitdir: {}\n", other.join(".git").display());
    std::fs::write(s.w().join("sub/.git"), real).unwrap();
    let uncached = ledger(&s, &s.w(), &["--no-cache", "fingerprint"]);
    assert_blocked(&uncached, "nested-repository", "sub");
    assert_blocked(
        &ledger(&s, &s.w(), &["fingerprint"]),
        "nested-repository",
        "sub",
    );
}

/// The fingerprint of `rev` in the repository at `dir`, computed apart from
/// ledger: `git ls-tree -r` lists the tree, `git cat-file --batch` gives each
/// blob, and the entries are fingerprinted as SPEC §2 defines them.
fn tree_oracle(s: &Sandbox, dir: &Path, rev: &str) -> (String, usize) {
    let listed = s.git(dir, &["ls-tree", "-r", "-z", rev]);
    assert!(listed.status.success());
    let mut rows = Vec::new();
    for record in listed.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let text = std::str::from_utf8(record).unwrap();
        let (meta, path) = text.split_once('\t').unwrap();
        let fields: Vec<&str> = meta.split(' ').collect();
        rows.push((fields[0].to_owned(), fields[2].to_owned(), path.to_owned()));
    }
    let mut batch = Command::new("git");
    s.env(&mut batch);
    let mut child = batch
        .current_dir(dir)
        .args(["cat-file", "--batch"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ids: String = rows.iter().map(|(_, id, _)| format!("{id}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, ids.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let mut rest = out.stdout.as_slice();
    let mut entries = Vec::new();
    for (mode, _, path) in &rows {
        let header_end = rest.iter().position(|b| *b == b'\n').unwrap();
        let header = std::str::from_utf8(&rest[..header_end]).unwrap();
        let size: usize = header.rsplit(' ').next().unwrap().parse().unwrap();
        let content = &rest[header_end + 1..header_end + 1 + size];
        rest = &rest[header_end + 2 + size..];
        let kind = if mode == "120000" { "symlink" } else { "file" };
        entries
            .push(ledger_core::expand::Entry::from_parts(path, kind, mode, &hex(content)).unwrap());
    }
    let count = entries.len();
    (
        ledger_core::expand::fingerprint_entries(entries)
            .unwrap()
            .to_string(),
        count,
    )
}

/// `--rev` reads a commit's tree from Git's objects: it equals the fingerprint
/// `git ls-tree` and `git cat-file` give, whatever the working tree holds; a
/// clean checkout's equals the working tree's; `--json` names the full id.
#[test]
fn a_revision_is_fingerprinted_as_git_s_own_objects_give_it() {
    let s = sample_checkout();
    let w = s.w();
    s.write("README.md", b"# changed\n");
    s.write("src/new.rs", b"fn g() {}\n");
    s.git(&w, &["add", "-A"]);
    s.commit_all();
    s.write("README.md", b"# dirty working tree\n");
    let ledger = |args: &[&str]| last_line(&s.ledger(&w, args));
    for rev in ["HEAD", "HEAD~1"] {
        let (oracle, count) = tree_oracle(&s, &w, rev);
        assert_eq!(ledger(&["fingerprint", "--rev", rev]), oracle, "{rev}");
        let listed = stdout(&s.ledger(&w, &["entries", "--rev", rev]));
        assert_eq!(listed.lines().count(), count + 1, "{listed}");
    }
    assert_ne!(
        ledger(&["fingerprint", "--rev", "HEAD"]),
        ledger(&["fingerprint"])
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(
        &s.ledger(&w, &["fingerprint", "--rev", "HEAD~1", "--json"]),
    ))
    .unwrap();
    let id = stdout(&s.git(&w, &["rev-parse", "HEAD~1"]));
    assert_eq!(json["commit"], id.trim());
    assert_blocked(
        &s.ledger(&w, &["fingerprint", "--rev", "no-such-rev"]),
        "invalid-argument",
        "no-such-rev",
    );

    // This project's own history, where the tests run from a checkout of it.
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    assert!(
        project.join(".git").exists(),
        "the tests run in a Git checkout of ledger"
    );
    let (oracle, _) = tree_oracle(&s, &project, "HEAD");
    let out = s.ledger(
        &project,
        &["fingerprint", "--rev", "HEAD", "--workspace", "."],
    );
    assert_eq!(last_line(&out), oracle);
}

/// Exclusions through the CLI: a pattern removes what it matches and is
/// recorded as a pattern; one that removes nothing is refused with its code
/// unless allowed; `entries --excluded` lists what each removes.
#[test]
fn exclusion_patterns_and_exclusions_that_remove_nothing() {
    let s = sample_checkout();
    let w = s.w();
    s.write("g/case-1.md", b"1");
    s.write("g/case-2.md", b"2");
    s.write("g/risks-1.md", b"r");
    let entries = |args: &[&str]| {
        let mut all = vec!["entries"];
        all.extend_from_slice(args);
        s.ledger(&w, &all)
    };
    let listed = stdout(&entries(&["--exclude", "g/case-*.md"]));
    assert!(
        !listed.contains("g/case-") && listed.contains("g/risks-1.md"),
        "{listed}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&entries(&[
        "--json",
        "--exclude-because",
        "case-*.md",
        "the kit's cases",
    ])))
    .unwrap();
    let recorded = &json["scope"]["exclusions"][1];
    assert_eq!(recorded["path"], "case-*.md");
    assert_eq!(recorded["pattern"], true);
    assert_eq!(recorded["reason"], "the kit's cases");

    for unmatched in ["nonexistent/dir", "g/handoff-*.md"] {
        let out = entries(&["--exclude", unmatched]);
        assert_blocked(&out, "unmatched-exclusion", unmatched);
        assert!(
            stdout(&entries(&[
                "--exclude",
                unmatched,
                "--allow-unmatched-exclusions"
            ]))
            .contains("README.md")
        );
    }
    let shown = stdout(&entries(&[
        "--excluded",
        "--exclude",
        "g/case-*.md",
        "--exclude",
        "gone",
        "--allow-unmatched-exclusions",
    ]));
    assert_eq!(
        shown,
        "g/case-*.md\tg/case-1.md\ng/case-*.md\tg/case-2.md\ngone\t(removes nothing)\n\
         excluded by pattern g/case-*.md (2 paths): excluded by the caller\n\
         excluded by path gone (0 paths): excluded by the caller\n"
    );
}
