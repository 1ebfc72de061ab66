//! End-to-end tests of the `ledger` binary on real Git repositories, with the git
//! CLI as the oracle for what a checkout contains.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command;

use crate::common::*;

#[test]
fn fingerprint_of_a_checkout_matches_the_oracle() {
    let s = sample_checkout();
    std::fs::remove_file(s.w().join("src/lib.rs")).unwrap(); // deleted but tracked → missing
    let out = s.ledger(&s.w(), &["fingerprint"]);
    let fp = last_line(&out);
    assert!(fp.starts_with("sha256:") && fp.len() == 71, "{fp}");
    assert_eq!(fp, s.oracle_fingerprint(&s.w()));
    // The same from a subdirectory: the default workspace is the checkout's top.
    assert_eq!(
        last_line(&s.ledger(&s.w().join("src/deep"), &["fingerprint"])),
        fp
    );
}

#[test]
fn staging_and_committing_do_not_change_the_fingerprint_but_edits_do() {
    let s = sample_checkout();
    let before = last_line(&s.ledger(&s.w(), &["fingerprint"]));
    s.commit_all();
    assert_eq!(last_line(&s.ledger(&s.w(), &["fingerprint"])), before);
    s.write("README.md", b"# changed\n");
    let edited = last_line(&s.ledger(&s.w(), &["fingerprint"]));
    assert_ne!(edited, before);
    std::fs::set_permissions(
        s.w().join("README.md"),
        std::fs::Permissions::from_mode(0o744),
    )
    .unwrap();
    let chmodded = last_line(&s.ledger(&s.w(), &["fingerprint"]));
    assert_ne!(chmodded, edited);
    std::fs::rename(s.w().join("untracked.txt"), s.w().join("moved.txt")).unwrap();
    assert_ne!(last_line(&s.ledger(&s.w(), &["fingerprint"])), chmodded);
}

#[test]
fn workspace_below_the_checkout_lists_only_below_it() {
    let s = sample_checkout();
    let sub = s.w().join("src");
    let out = s.ledger(&s.w(), &["entries", "--workspace", sub.to_str().unwrap()]);
    let text = stdout(&out);
    let paths: Vec<&str> = text.lines().filter_map(|l| l.split('\t').nth(1)).collect();
    assert_eq!(paths, ["deep/er/x.txt", "lib.rs"]);
    assert_eq!(last_line(&out), s.oracle_fingerprint(&sub));
}

#[test]
fn entries_show_kinds_modes_and_quoted_names() {
    let s = sample_checkout();
    let text = stdout(&s.ledger(&s.w(), &["entries"]));
    assert!(
        text.contains(&format!("100755 file    {}\trun.sh\n", hex(b"#!/bin/sh\n"))),
        "{text}"
    );
    assert!(
        text.contains(&format!("120000 symlink {}\tlink\n", hex(b"README.md"))),
        "{text}"
    );
    assert!(text.contains("\t\"tab\\there name\"\n"), "{text}");
    assert!(
        !text.contains("target/out.bin") && !text.contains("debug.log"),
        "{text}"
    );
}

#[test]
fn json_output_carries_fingerprint_and_entries() {
    let s = sample_checkout();
    let fp = last_line(&s.ledger(&s.w(), &["fingerprint"]));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&s.ledger(&s.w(), &["fingerprint", "--json"]))).unwrap();
    assert_eq!(json["fingerprint"], fp.as_str());
    let inv: serde_json::Value =
        serde_json::from_str(&stdout(&s.ledger(&s.w(), &["entries", "--json"]))).unwrap();
    assert_eq!(inv["fingerprint"], fp.as_str());
    let paths: Vec<&str> = inv["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    assert!(paths.contains(&"untracked.txt"));
    assert_eq!(inv["scope"]["repositories"][0], ".");
    assert_eq!(inv["scope"]["exclusions"][0]["path"], ".ledger");
}

/// Seed 001: parallel fixers' file sets are intersected before they are
/// launched; an overlap means they run one after another.
#[test]
fn overlap_lists_every_shared_path_with_its_writers() {
    let s = sample_checkout();
    s.write("src/auth/login.rs", b"fn login() {}\n");
    let w = s.w();
    let shared = s.ledger(
        &w,
        &[
            "overlap",
            "fixer-a=src/auth,README.md",
            "fixer-b=src",
            "docs=README.md",
        ],
    );
    assert_eq!(shared.status.code(), Some(1), "{shared:?}");
    assert_eq!(
        String::from_utf8(shared.stdout).unwrap(),
        "README.md\tfixer-a, docs\n\
         src/auth/login.rs\tfixer-a, fixer-b\n\
         2 paths shared: fixer-a (2 paths), fixer-b (3 paths), docs (1 path); \
         run these writers one after another\n"
    );
    let apart = s.ledger(
        &w,
        &["overlap", "--json", "fixer-a=src/auth", "fixer-b=src/deep"],
    );
    assert_eq!(apart.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&apart.stdout).unwrap();
    assert_eq!(json["disjoint"], true);
    assert_eq!(json["shared"], serde_json::json!([]));
    assert_blocked(
        &s.ledger(&w, &["overlap", "a=src", "b=../x"]),
        "outside-workspace",
        "..",
    );
    assert_blocked(
        &s.ledger(&w, &["overlap", "a=src", "a=README.md"]),
        "invalid-argument",
        "`a`",
    );
    assert_blocked(
        &s.ledger(&w, &["overlap", "a=src"]),
        "invalid-argument",
        "2 values",
    );
}

/// The kit's artifacts are named by pattern (`case-*.md`, `risks-*.md`,
/// `handoff-*.md`): a writer's set may name patterns beside its roots.
#[test]
fn overlap_on_the_kit_s_artifact_patterns() {
    let s = sample_checkout();
    for file in [
        "g/case-1.md",
        "g/case-2.md",
        "g/risks-1.md",
        "notes/handoff-1.md",
    ] {
        s.write(file, b"x\n");
    }
    let w = s.w();
    let out = s.ledger(
        &w,
        &[
            "overlap",
            "cases=case-*.md",
            "risks=g/risks-*.md,notes",
            "g=g/case-2.md",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "g/case-2.md\tcases, g\n\
         1 path shared: cases (2 paths), risks (2 paths), g (1 path); \
         run these writers one after another\n"
    );
    let apart = s.ledger(
        &w,
        &[
            "overlap",
            "cases=g/case-*.md",
            "risks=risks-*.md,handoff-*.md",
        ],
    );
    assert_eq!(apart.status.code(), Some(0), "{apart:?}");
}

/// Seed 000: an exclusion has an explained boundary. `--exclude-because`
/// records the reason; a bare `--exclude` the default one.
#[test]
fn an_exclusion_records_its_reason() {
    let s = sample_checkout();
    let w = s.w();
    let out = stdout(&s.ledger(
        &w,
        &[
            "inventory",
            "--root",
            "src",
            "--exclude-because",
            "src/deep",
            "another fixer's files",
            "--exclude",
            "src/lib.rs",
        ],
    ));
    let record: serde_json::Value = serde_json::from_str(&out).unwrap();
    let reasons: Vec<(&str, &str)> = (record["scope"]["exclusions"].as_array().unwrap().iter())
        .map(|e| (e["path"].as_str().unwrap(), e["reason"].as_str().unwrap()))
        .filter(|(path, _)| *path != ".ledger")
        .collect();
    assert_eq!(
        reasons,
        [
            ("src/lib.rs", "excluded by the caller"),
            ("src/deep", "another fixer's files")
        ]
    );
    assert_eq!(record["entries"], serde_json::json!([]));
    let half = s.ledger(&w, &["fingerprint", "--exclude-because", "src/deep"]);
    assert_blocked(&half, "invalid-argument", "--exclude-because");
}

#[test]
fn roots_paths_excludes_and_tasks() {
    let s = sample_checkout();
    s.write("tasks.md", b"- [x] 1.1 [core] Do it\n");
    s.write(".ledger/records/r1", b"store content is never hashed");
    let w = s.w();
    let text = stdout(&s.ledger(
        &w,
        &[
            "entries",
            "--root",
            "src",
            "--exclude",
            "src/deep",
            "--path",
            "debug.log",
            "--tasks",
            "tasks.md",
        ],
    ));
    let paths: Vec<&str> = text.lines().filter_map(|l| l.split('\t').nth(1)).collect();
    assert_eq!(paths, ["debug.log", "src/lib.rs", "tasks.md"]);
    assert!(
        text.contains(&hex(b"- [ ] 1.1 [core] Do it\n")),
        "tasks normalized: {text}"
    );
    let all = stdout(&s.ledger(&w, &["entries"]));
    assert!(!all.contains(".ledger"), "{all}");
    // Ticking the box does not change the Tasks approval fingerprint; raw it does.
    let tasks = |w: &Path| last_line(&s.ledger(w, &["fingerprint", "--tasks", "tasks.md"]));
    let raw = |w: &Path| last_line(&s.ledger(w, &["fingerprint", "--path", "tasks.md"]));
    let (t0, r0) = (tasks(&w), raw(&w));
    s.write("tasks.md", b"- [ ] 1.1 [core] Do it\n");
    assert_eq!(tasks(&w), t0);
    assert_ne!(raw(&w), r0);
}

#[test]
fn outside_git_roots_are_walked_and_nested_repositories_block() {
    let s = Sandbox::new();
    s.write("notes/a.txt", b"a");
    s.write("notes/.hidden", b"h");
    symlink("/etc/passwd", s.w().join("notes/abs-link")).unwrap();
    let text = stdout(&s.ledger(&s.w(), &["entries"]));
    let paths: Vec<&str> = text.lines().filter_map(|l| l.split('\t').nth(1)).collect();
    assert_eq!(paths, ["notes/.hidden", "notes/a.txt", "notes/abs-link"]);
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&s.ledger(&s.w(), &["fingerprint", "--json"]))).unwrap();
    assert_eq!(json["walked_roots"][0], ".");
    // An undeclared repository inside a walked root blocks; declared, it is listed by Git.
    let inner = s.w().join("vendor/lib");
    std::fs::create_dir_all(&inner).unwrap();
    s.git(&inner, &["init", "-q"]);
    std::fs::write(inner.join("x.c"), b"int x;").unwrap();
    std::fs::write(inner.join(".gitignore"), b"*.o\n").unwrap();
    std::fs::write(inner.join("x.o"), b"obj").unwrap();
    assert_blocked(
        &s.ledger(&s.w(), &["fingerprint"]),
        "nested-repository",
        "vendor/lib",
    );
    let text = stdout(&s.ledger(&s.w(), &["entries", "--repo", "vendor/lib", "--root", "."]));
    let paths: Vec<&str> = text.lines().filter_map(|l| l.split('\t').nth(1)).collect();
    assert_eq!(
        paths,
        [
            "notes/.hidden",
            "notes/a.txt",
            "notes/abs-link",
            "vendor/lib/.gitignore",
            "vendor/lib/x.c"
        ]
    );
}

#[test]
fn several_repositories_in_one_workspace() {
    let s = Sandbox::new();
    for repo in ["one", "two"] {
        let dir = s.w().join(repo);
        std::fs::create_dir_all(&dir).unwrap();
        s.git(&dir, &["init", "-q"]);
        std::fs::write(dir.join("f.txt"), repo).unwrap();
    }
    let text = stdout(&s.ledger(&s.w(), &["entries", "--repo", "one", "--repo", "two"]));
    let paths: Vec<&str> = text.lines().filter_map(|l| l.split('\t').nth(1)).collect();
    assert_eq!(paths, ["one/f.txt", "two/f.txt"]);
}

#[test]
fn conflict_blocks() {
    let s = sample_checkout();
    let w = s.w();
    s.git(&w, &["checkout", "-q", "-b", "other"]);
    s.write("README.md", b"other\n");
    s.commit_all();
    s.git(&w, &["checkout", "-q", "main"]);
    s.write("README.md", b"main\n");
    s.commit_all();
    let merge = s.git_output(&w, &["merge", "-q", "other"]);
    assert!(!merge.status.success(), "the merge must conflict");
    assert_blocked(&s.ledger(&w, &["fingerprint"]), "conflict", "README.md");
    // Out of scope, the conflict does not block.
    assert!(
        s.ledger(&w, &["fingerprint", "--root", "src"])
            .status
            .success()
    );
}

#[test]
fn special_files_block() {
    let s = sample_checkout();
    let fifo = s.w().join("notes.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert_blocked(
        &s.ledger(&s.w(), &["fingerprint", "--path", "notes.fifo"]),
        "special-file",
        "notes.fifo",
    );
    // A tracked file replaced by a directory.
    std::fs::remove_file(s.w().join("README.md")).unwrap();
    s.write("README.md/inner", b"x");
    assert_blocked(
        &s.ledger(&s.w(), &["fingerprint"]),
        "special-file",
        "README.md",
    );
}

#[test]
fn undeclared_nested_repository_and_submodule_block() {
    let s = sample_checkout();
    let nested = s.w().join("nested");
    std::fs::create_dir(&nested).unwrap();
    s.git(&nested, &["init", "-q"]);
    std::fs::write(nested.join("n.txt"), b"n").unwrap();
    assert_blocked(
        &s.ledger(&s.w(), &["fingerprint"]),
        "nested-repository",
        "nested",
    );
    let text = stdout(&s.ledger(&s.w(), &["entries", "--repo", ".", "--repo", "nested"]));
    assert!(text.contains("\tnested/n.txt\n"), "{text}");
    assert!(
        s.ledger(&s.w(), &["fingerprint", "--exclude", "nested"])
            .status
            .success()
    );
    // A submodule (gitlink) in the index.
    s.git(&nested, &["add", "-A"]);
    s.git(&nested, &["commit", "-q", "-m", "n"]);
    s.git(&s.w(), &["add", "nested"]);
    assert_blocked(
        &s.ledger(&s.w(), &["fingerprint"]),
        "nested-repository",
        "nested",
    );
}

#[test]
fn non_utf8_name_blocks_with_escaped_bytes() {
    let s = sample_checkout();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(s.w().join(name), b"x").unwrap();
    assert_blocked(
        &s.ledger(&s.w(), &["fingerprint"]),
        "non-utf8-path",
        "caf\\351.txt",
    );
    // Outside the roots, the name is never decoded and does not block.
    assert!(
        s.ledger(&s.w(), &["fingerprint", "--root", "src"])
            .status
            .success()
    );
}

#[test]
fn symlinked_parent_blocks() {
    let s = sample_checkout();
    std::fs::rename(s.w().join("src"), s.w().join("real-src")).unwrap();
    symlink("real-src", s.w().join("src")).unwrap();
    // The files of `src/` are still in the index; reading them would go through
    // the link. The first one in byte order is named.
    assert_blocked(
        &s.ledger(&s.w(), &["fingerprint", "--root", "src"]),
        "symlinked-parent",
        "'src/deep/er/x.txt' lies below the symlink 'src'",
    );
}

#[test]
fn invalid_paths_are_refused() {
    let s = sample_checkout();
    for (flag, bad, code) in [
        ("--path", "../outside", "outside-workspace"),
        ("--path", "/etc/passwd", "outside-workspace"),
        ("--root", "src/../..", "outside-workspace"),
        ("--exclude", "/", "outside-workspace"),
        ("--path", "a//b", "invalid-path"),
        ("--tasks", "./tasks.md", "invalid-path"),
    ] {
        assert_blocked(&s.ledger(&s.w(), &["fingerprint", flag, bad]), code, bad);
    }
}

#[test]
fn unreadable_file_blocks() {
    let s = sample_checkout();
    std::fs::set_permissions(s.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(s.w().join("secret.txt"), b"s").unwrap();
    std::fs::set_permissions(
        s.w().join("secret.txt"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let is_root = unsafe_free_uid() == 0;
    let out = if is_root {
        // Root reads anything: drop to `nobody` to meet a real permission error.
        // The repository then belongs to another user, so mark it safe.
        s.git(
            &s.w(),
            &["config", "--global", "--add", "safe.directory", "*"],
        );
        std::fs::set_permissions(s.home(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(
            s.home().join(".gitconfig"),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        let mut cmd = Command::new("setpriv");
        s.env(&mut cmd);
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(s.ledger_for_nobody())
            .arg("fingerprint")
            .current_dir(s.w())
            .output()
            .unwrap()
    } else {
        s.ledger(&s.w(), &["fingerprint"])
    };
    assert_blocked(&out, "unreadable", "secret.txt");
}

fn unsafe_free_uid() -> u32 {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn not_a_declared_repository_is_an_error() {
    let s = Sandbox::new();
    s.write("plain/a.txt", b"a");
    assert_blocked(
        &s.ledger(&s.w(), &["fingerprint", "--repo", "plain"]),
        "git",
        "plain",
    );
}

#[test]
fn help_documents_exit_codes() {
    let s = Sandbox::new();
    let text = stdout(&s.ledger(&s.w(), &["--help"]));
    assert!(
        text.contains("Exit codes:") && text.contains("2  error"),
        "{text}"
    );
}

#[test]
fn every_error_code_is_documented() {
    let catalog =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/errors.md"))
            .unwrap();
    for code in ledger_core::Error::CODES {
        assert!(
            catalog.contains(&format!("| `{code}` |")),
            "docs/errors.md does not document `{code}`"
        );
    }
}

/// In a hook of `git commit -a` or `git commit <path>`, git points `GIT_INDEX_FILE`
/// at a temporary index; ledger lists from that index, as `git ls-files` does there.
#[test]
fn the_index_named_by_git_index_file_is_listed() {
    let s = Sandbox::new();
    s.init();
    s.write("a", b"a");
    s.write("b", b"b");
    s.commit_all();
    let alt = s.dir.path().join("alt-index");
    std::fs::copy(s.w().join(".git/index"), &alt).unwrap();
    let with_index = |program: &str, index: Option<&Path>, args: &[&str]| {
        let mut cmd = Command::new(program);
        s.env(&mut cmd);
        if let Some(index) = index {
            cmd.env("GIT_INDEX_FILE", index);
        }
        let out = cmd.current_dir(s.w()).args(args).output().unwrap();
        assert!(out.status.success(), "{program} {args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    // The deletion of `a` is staged in the alternate index only.
    with_index("git", Some(&alt), &["rm", "-q", "--cached", "a"]);
    std::fs::remove_file(s.w().join("a")).unwrap();
    let paths = |listing: String| -> Vec<String> {
        listing
            .lines()
            .filter_map(|line| line.split_once('\t').map(|(_, path)| path.to_owned()))
            .collect()
    };
    let ledger = env!("CARGO_BIN_EXE_ledger");
    assert_eq!(paths(with_index(ledger, Some(&alt), &["entries"])), ["b"]);
    assert_eq!(paths(with_index(ledger, None, &["entries"])), ["a", "b"]);
    let git_listing = with_index(
        "git",
        Some(&alt),
        &["ls-files", "-co", "--exclude-standard"],
    );
    assert_eq!(git_listing, "b\n");
}

/// The settings are read once, in `main`, before the verb runs (issue 44):
/// a malformed `LEDGER_THREADS` is refused even by a verb that reads no file
/// of the workspace, and `--threads` replaces the variable, which is then not
/// read at all.
#[test]
fn the_settings_are_read_once_before_the_verb() {
    let s = sample_checkout();
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
        s.env(&mut cmd);
        (cmd.current_dir(s.w()).envs(env.iter().copied()).args(args))
            .output()
            .unwrap()
    };
    let plain = run(&[], &["store", "check"]);
    let out = run(&[("LEDGER_THREADS", "many")], &["store", "check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("LEDGER_THREADS='many' is not a thread count"),
        "{err}"
    );
    let flag = run(
        &[("LEDGER_THREADS", "many")],
        &["--threads", "2", "store", "check"],
    );
    assert_eq!(flag.status.code(), plain.status.code());
    assert_eq!(flag.stdout, plain.stdout);
    let out = run(
        &[("LEDGER_NO_CACHE", "1")],
        &["--threads", "2000", "store", "check"],
    );
    assert_eq!(out.status.code(), Some(2), "a bad flag is refused as early");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("threads: 2000"), "{err}");
}

#[test]
fn the_thread_count_changes_nothing_but_a_bad_one_is_refused() {
    let s = sample_checkout();
    let fp = s.oracle_fingerprint(&s.w());
    for threads in ["1", "3", "0"] {
        let out = s.ledger(&s.w(), &["fingerprint", "--threads", threads]);
        assert_eq!(last_line(&out), fp, "--threads {threads}");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
        s.env(&mut cmd);
        let out = cmd
            .current_dir(s.w())
            .env("LEDGER_THREADS", threads)
            .arg("fingerprint")
            .output()
            .unwrap();
        assert_eq!(last_line(&out), fp, "LEDGER_THREADS={threads}");
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
    s.env(&mut cmd);
    let out = cmd
        .current_dir(s.w())
        .env("LEDGER_THREADS", "many")
        .arg("fingerprint")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error[invalid-argument]: ")
            && err.contains("LEDGER_THREADS='many' is not a thread count")
            && err.lines().count() == 1,
        "{err}"
    );
    // The flag wins over the variable.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
    s.env(&mut cmd);
    let out = cmd
        .current_dir(s.w())
        .env("LEDGER_THREADS", "many")
        .args(["fingerprint", "--threads", "2"])
        .output()
        .unwrap();
    assert_eq!(last_line(&out), fp);
    let out = s.ledger(&s.w(), &["fingerprint", "--threads", "-1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error[invalid-argument]: "));
}

/// The files a cache holds, from `store check`.
fn cached_files(s: &Sandbox) -> u64 {
    let report = String::from_utf8(s.ledger(&s.w(), &["store", "check"]).stdout).unwrap();
    let line = report
        .lines()
        .find(|line| line.starts_with("digest cache: "))
        .unwrap_or_else(|| panic!("no cache line: {report}"));
    let files = line
        .strip_suffix(" files")
        .unwrap_or_else(|| panic!("{line}"));
    files.rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn every_file_changed_twice_leaves_one_version_of_each_in_the_cache() {
    let s = sample_checkout();
    std::fs::create_dir(s.w().join(".ledger")).unwrap();
    std::fs::write(s.w().join(".ledger/.gitignore"), "*\n").unwrap();
    let regular = [
        "README.md",
        "src/lib.rs",
        "src/deep/er/x.txt",
        ".gitignore",
        "run.sh",
        "untracked.txt",
        "tab\there name",
    ];
    // Old enough for the cache to record them (it skips files changed within 2 s).
    std::thread::sleep(std::time::Duration::from_millis(2200));
    let out = s.ledger(&s.w(), &["fingerprint"]);
    assert_eq!(last_line(&out), s.oracle_fingerprint(&s.w()));
    assert_eq!(cached_files(&s), regular.len() as u64);
    for round in 0..2 {
        for path in regular {
            let mut bytes = std::fs::read(s.w().join(path)).unwrap();
            bytes.extend_from_slice(format!("\nround {round}\n").as_bytes());
            s.write(path, &bytes);
        }
        std::thread::sleep(std::time::Duration::from_millis(2200));
        let out = s.ledger(&s.w(), &["fingerprint"]);
        assert_eq!(last_line(&out), s.oracle_fingerprint(&s.w()));
        assert_eq!(
            cached_files(&s),
            regular.len() as u64,
            "a path's old versions go when it has a current one (round {round})"
        );
    }
}

#[test]
fn no_cache_reads_everything_and_answers_the_same() {
    let s = sample_checkout();
    let fp = s.oracle_fingerprint(&s.w());
    std::fs::create_dir(s.w().join(".ledger")).unwrap();
    std::fs::write(s.w().join(".ledger/.gitignore"), "*\n").unwrap();
    // Old enough for the cache to record them (it skips files changed within 2 s).
    std::thread::sleep(std::time::Duration::from_millis(2200));
    let out = s.ledger(&s.w(), &["fingerprint"]);
    assert_eq!(last_line(&out), fp);
    assert!(s.w().join(".ledger/digest-cache").exists());
    let report = String::from_utf8(s.ledger(&s.w(), &["store", "check"]).stdout).unwrap();
    assert!(report.contains("digest cache: "), "{report}");
    assert!(report.contains(" files"), "{report}");
    // A cache that answers otherwise is what --no-cache and LEDGER_NO_CACHE bypass.
    std::fs::write(s.w().join(".ledger/digest-cache"), b"garbage").unwrap();
    let out = s.ledger(&s.w(), &["--no-cache", "fingerprint"]);
    assert_eq!(last_line(&out), fp);
    assert_eq!(
        std::fs::read(s.w().join(".ledger/digest-cache")).unwrap(),
        b"garbage",
        "--no-cache neither reads nor writes the cache"
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
    s.env(&mut cmd);
    let out = cmd
        .current_dir(s.w())
        .env("LEDGER_NO_CACHE", "1")
        .arg("fingerprint")
        .output()
        .unwrap();
    assert_eq!(last_line(&out), fp);
    assert_eq!(
        std::fs::read(s.w().join(".ledger/digest-cache")).unwrap(),
        b"garbage"
    );
    let out = s.ledger(&s.w(), &["fingerprint"]);
    assert_eq!(
        last_line(&out),
        fp,
        "a cache that does not check out is discarded"
    );
    assert_ne!(
        std::fs::read(s.w().join(".ledger/digest-cache")).unwrap(),
        b"garbage"
    );
}

/// A usage error is one line and one hint at most; with --json every error is
/// one JSON object on stderr.
#[test]
fn usage_errors_are_one_line_and_json_errors_are_json() {
    let s = sample_checkout();
    for (args, hint) in [
        (&["status", "--bogus"][..], "usage: ledger status"),
        (
            &["fingerprint", "--task-rule", "nope"],
            "possible values: task-checkbox-v1, openspec-checkbox",
        ),
        (
            &["fingerprint", "--task-rule", "openspec"],
            "a similar value exists",
        ),
    ] {
        let out = s.ledger(&s.w(), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
        assert_eq!(lines.len(), 2, "{args:?}: {stderr}");
        assert!(
            lines[0].starts_with("error[invalid-argument]: "),
            "{stderr}"
        );
        assert!(
            lines[1].starts_with("hint: ") && lines[1].contains(hint),
            "{args:?}: {stderr}"
        );
    }
    let help = String::from_utf8(s.ledger(&s.w(), &["fingerprint", "--help"]).stdout).unwrap();
    assert!(
        help.contains("[possible values: task-checkbox-v1, openspec-checkbox]"),
        "{help}"
    );
    for args in [
        &["status", "--change", "nope", "--json"][..],
        &["fingerprint", "--root", "../x", "--json"],
        &["--json", "status", "--bogus"],
    ] {
        let out = s.ledger(&s.w(), args);
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let error: serde_json::Value = serde_json::from_slice(&out.stderr)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        assert!(
            error["code"].is_string() && error["message"].is_string(),
            "{error}"
        );
        assert!(error.get("path").is_some(), "{error}");
    }
    // After `--` the arguments are a gate's command: its --json is not ledger's.
    let out = s.ledger(
        &s.w(),
        &["gate", "check", "--name", "t", "--", "tool", "--json"],
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("stale: gate t"),
        "{out:?}"
    );
}

/// Completions and the man page come from the clap definitions: every shell
/// gets a script naming the verbs, bash loads its own, and the man page is
/// roff for ledger(1).
#[test]
fn completions_and_the_man_page_are_generated_from_the_definitions() {
    let s = Sandbox::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = s.ledger(&s.w(), &["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for verb in ["fingerprint", "approve", "gate", "remote", "completions"] {
            assert!(script.contains(verb), "{shell} completes {verb}");
        }
    }
    let bash = s.ledger(&s.w(), &["completions", "bash"]).stdout;
    let script = s.dir.path().join("ledger.bash");
    std::fs::write(&script, bash).unwrap();
    let loaded = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source '{}' && complete -p ledger",
            script.display()
        ))
        .output()
        .unwrap();
    assert!(
        loaded.status.success(),
        "{}",
        String::from_utf8_lossy(&loaded.stderr)
    );
    assert!(String::from_utf8_lossy(&loaded.stdout).contains("ledger"));
    let out = s.ledger(&s.w(), &["man"]);
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH ledger 1"), "{page}");
    assert!(
        page.contains("fingerprint") && page.contains("gate"),
        "{page}"
    );
    let refused = s.ledger(&s.w(), &["completions", "tcsh"]);
    assert_eq!(refused.status.code(), Some(2));
}

/// Every subcommand's help starts with the description its parent lists for
/// it: the subcommands' arguments are built only when one runs (clap's
/// `defer`), and a description set where they are built would replace it.
#[test]
fn each_subcommand_s_help_starts_with_the_description_its_parent_lists() {
    let s = Sandbox::new();
    let help = |args: &[&str]| {
        let out = s.ledger(&s.w(), &[args, &["--help"]].concat());
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let mut parents: Vec<Vec<String>> = vec![Vec::new()];
    let mut checked = 0;
    while let Some(parent) = parents.pop() {
        let args: Vec<&str> = parent.iter().map(String::as_str).collect();
        let listing = help(&args);
        let listed = listing
            .lines()
            .skip_while(|line| *line != "Commands:")
            .skip(1)
            .take_while(|line| line.starts_with("  "));
        for line in listed {
            let (name, about) = line
                .trim_start()
                .split_once(' ')
                .unwrap_or((line.trim(), ""));
            if name == "help" {
                continue;
            }
            let child: Vec<String> = parent.iter().cloned().chain([name.to_owned()]).collect();
            let args: Vec<&str> = child.iter().map(String::as_str).collect();
            let own = help(&args);
            // The listing drops a one-line description's closing period.
            let first = own.lines().next().unwrap_or_default();
            assert_eq!(
                first.trim_end_matches('.'),
                about.trim().trim_end_matches('.'),
                "ledger {args:?} --help"
            );
            checked += 1;
            parents.push(child);
        }
    }
    assert!(checked > 30, "only {checked} subcommands found");
}

/// Each verb's help states its own exit codes, not every verb's.
#[test]
fn each_verb_s_help_shows_only_its_own_exit_codes() {
    let s = Sandbox::new();
    let help = |args: &[&str]| String::from_utf8(s.ledger(&s.w(), args).stdout).unwrap();
    let verify = help(&["verify", "--help"]);
    assert!(
        verify.contains("1  the files changed since the record"),
        "{verify}"
    );
    assert!(
        !verify.contains("approved") && !verify.contains("PASS"),
        "{verify}"
    );
    let fingerprint = help(&["fingerprint", "--help"]);
    assert!(
        fingerprint.contains("0  success") && !fingerprint.contains("  1  "),
        "{fingerprint}"
    );
    assert!(help(&["status", "--help"]).contains("1  some artifact is not approved"));
    assert!(help(&["gate", "check", "--help"]).contains("1  it is stale"));
    // The whole table stays on the top-level help.
    let top = help(&["--help"]);
    assert!(
        top.contains("verify: the files changed") && top.contains("status: some artifact"),
        "{top}"
    );
}
