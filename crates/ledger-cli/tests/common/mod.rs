//! Helpers shared by the CLI test files: an isolated Git sandbox and the
//! `ledger` binary's contract checks.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ledger_core::expand::{Entry, fingerprint_entries};
use ledger_testkit::Git;
use sha2::{Digest, Sha256};

/// A temp dir with an isolated Git configuration (no user or system config).
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        std::fs::create_dir(dir.path().join("w")).unwrap();
        Sandbox { dir }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The workspace directory.
    pub fn w(&self) -> PathBuf {
        self.dir.path().join("w")
    }

    /// Where the workspace's store keeps its records: the repository's
    /// `ledger/` when the workspace is a Git checkout's top, else `.ledger/`.
    #[allow(dead_code)]
    pub fn store_dir(&self) -> PathBuf {
        match self.w().join(".git").is_dir() {
            true => self.w().join(".git/ledger"),
            false => self.w().join(".ledger"),
        }
    }

    /// The isolated git environment: `HOME` (and its `.gitconfig`) in the sandbox.
    pub fn testkit(&self) -> Git {
        Git::isolated()
            .home(self.home())
            .identity("t", "t@example.invalid")
    }

    pub fn env(&self, cmd: &mut Command) {
        self.testkit().env(cmd);
    }

    /// Runs `git -C dir args`, which must succeed.
    pub fn git(&self, dir: &Path, args: &[&str]) -> Output {
        self.testkit().run(dir, args)
    }

    /// Runs `git -C dir args`, whatever its exit status.
    pub fn git_output(&self, dir: &Path, args: &[&str]) -> Output {
        self.testkit().output(dir, args)
    }

    pub fn ledger(&self, cwd: &Path, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
        self.env(&mut cmd);
        cmd.current_dir(cwd).args(args).output().unwrap()
    }

    /// The `ledger` binary where the user `nobody` can run it, for the tests
    /// that drop to `nobody` (through `setpriv`) to meet real permission errors:
    /// the binary cargo built may sit where `nobody` cannot reach it, e.g. in a
    /// clone inside a 0700 home directory. A hard link in the sandbox (made
    /// traversable), or a copy when the sandbox is on another file system; a
    /// link writes nothing, so no other test's child can hold it open for
    /// writing when it is executed (ETXTBSY).
    pub fn ledger_for_nobody(&self) -> PathBuf {
        let bin = self.dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        for dir in [self.dir.path(), &bin] {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let ledger = bin.join("ledger");
        if !ledger.exists() && std::fs::hard_link(env!("CARGO_BIN_EXE_ledger"), &ledger).is_err() {
            std::fs::copy(env!("CARGO_BIN_EXE_ledger"), &ledger).unwrap();
        }
        ledger
    }

    pub fn write(&self, rel: &str, content: &[u8]) {
        let path = self.w().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn init(&self) {
        self.testkit().init(&self.w(), &["-b", "main"]);
    }

    pub fn commit_all(&self) {
        self.testkit().commit_all(&self.w(), "c");
    }

    /// The fingerprint computed independently: git's listing, files read with std.
    pub fn oracle_fingerprint(&self, dir: &Path) -> String {
        let paths = self.testkit().listed(dir);
        let entries = paths.iter().map(|p| {
            let rel = std::str::from_utf8(p).unwrap();
            let full = dir.join(rel);
            match std::fs::symlink_metadata(&full) {
                Err(_) => Entry::from_parts(rel, "missing", "-", "-").unwrap(),
                Ok(m) if m.file_type().is_symlink() => {
                    let target = std::fs::read_link(&full).unwrap();
                    Entry::from_parts(
                        rel,
                        "symlink",
                        "120000",
                        &hex(target.as_os_str().as_bytes()),
                    )
                    .unwrap()
                }
                Ok(m) => {
                    let mode = if m.permissions().mode() & 0o111 != 0 {
                        "100755"
                    } else {
                        "100644"
                    };
                    Entry::from_parts(rel, "file", mode, &hex(&std::fs::read(&full).unwrap()))
                        .unwrap()
                }
            }
        });
        fingerprint_entries(entries).unwrap().to_string()
    }
}

pub fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn last_line(out: &Output) -> String {
    stdout(out).lines().last().unwrap().to_owned()
}

/// Asserts the error contract: exit 2, empty stdout, `error[code]` naming `path`.
pub fn assert_blocked(out: &Output, code: &str, path: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "stdout must stay empty: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.starts_with(&format!("error[{code}]: ")), "{stderr}");
    assert!(stderr.contains(path), "message must name {path}: {stderr}");
}

pub fn sample_checkout() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write("README.md", b"# hi\n");
    s.write("src/lib.rs", b"pub fn f() {}\n");
    s.write("src/deep/er/x.txt", b"x");
    s.write(".gitignore", b"target/\n*.log\n");
    s.write("run.sh", b"#!/bin/sh\n");
    std::fs::set_permissions(s.w().join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    symlink("README.md", s.w().join("link")).unwrap();
    s.commit_all();
    s.write("untracked.txt", b"new");
    s.write("target/out.bin", b"ignored");
    s.write("debug.log", b"ignored");
    s.write("tab\there name", b"odd");
    s
}

/// A `gate run` that ledger itself refused: exit 125 (the wrapper
/// convention), the coded message on stderr, nothing on stdout.
pub fn assert_run_refused(out: &Output, status: i32, code: &str, path: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(status), "stderr: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(stderr.starts_with(&format!("error[{code}]: ")), "{stderr}");
    assert!(stderr.contains(path), "message must name {path}: {stderr}");
}
