//! Test-only helpers of the ledger workspace (never a normal dependency of a
//! published crate, like gitoxide's `gix-testtools`).
//!
//! Compiled once, as a dev-dependency of every crate whose tests use it
//! (`ledger-core`'s unit and integration tests, the CLI's, the benches).
//!
//! [`Git`] runs the `git` CLI with an isolated environment set on each
//! [`Command`]: no system configuration (`GIT_CONFIG_NOSYSTEM=1`), a chosen global
//! configuration file (`/dev/null` unless told otherwise), optionally a `HOME` and
//! an author/committer identity. Nothing is set process-wide, so tests running in
//! parallel cannot see each other's environment.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use camino::Utf8Path;

/// `path` as the UTF-8 path ledger's API takes (temporary directories are UTF-8).
#[allow(clippy::panic)]
pub fn utf8(path: &Path) -> &Utf8Path {
    Utf8Path::from_path(path).unwrap_or_else(|| panic!("non-UTF-8 test path {path:?}"))
}

/// Writes `text` to the file `path` below `root`, making its directories.
pub fn write_below(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    let made = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, text));
    if let Err(e) = made {
        fail(&format!("cannot write {path:?}: {e}"));
    }
}

/// Fails the test with `message`.
#[allow(clippy::panic)]
fn fail(message: &str) -> ! {
    panic!("{message}")
}

/// Variables that make git look somewhere else than the directory it is given (or
/// read configuration from the environment); removed from every `git` command
/// built by [`Git::command`], so a test run from inside a git hook, say, still
/// builds its repositories where it means to.
pub const LOCATING_VARIABLES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
];

/// How to run the `git` CLI in isolation: the environment given to every command.
#[derive(Clone, Debug)]
pub struct Git {
    global_config: PathBuf,
    home: Option<PathBuf>,
    identity: Option<(String, String)>,
}

impl Default for Git {
    fn default() -> Self {
        Self::isolated()
    }
}

impl Git {
    /// No system configuration, `/dev/null` as the global configuration, `HOME` and
    /// identity inherited.
    pub fn isolated() -> Self {
        Git {
            global_config: PathBuf::from("/dev/null"),
            home: None,
            identity: None,
        }
    }

    /// The same, with `path` as the global configuration file (`GIT_CONFIG_GLOBAL`).
    pub fn global_config(mut self, path: impl Into<PathBuf>) -> Self {
        self.global_config = path.into();
        self
    }

    /// The same, with `home` as `HOME`, `home/.config` as `XDG_CONFIG_HOME` and
    /// `home/.gitconfig` as the global configuration file.
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        let home = home.into();
        self.global_config = home.join(".gitconfig");
        self.home = Some(home);
        self
    }

    /// The same, with `name` and `email` as author and committer
    /// (`GIT_AUTHOR_NAME` and friends).
    pub fn identity(mut self, name: &str, email: &str) -> Self {
        self.identity = Some((name.to_owned(), email.to_owned()));
        self
    }

    /// The `HOME` given to commands, if one is.
    pub fn home_dir(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Sets the isolated environment on `cmd` (any program: a binary under test
    /// gets the very environment git gets). Returns `cmd` for chaining.
    pub fn env<'a>(&self, cmd: &'a mut Command) -> &'a mut Command {
        for (name, value) in self.variables() {
            cmd.env(name, value);
        }
        cmd
    }

    /// The variables [`Git::env`] sets, in the order it sets them.
    pub fn variables(&self) -> Vec<(&'static str, OsString)> {
        let mut vars = Vec::new();
        if let Some(home) = &self.home {
            vars.push(("HOME", home.clone().into_os_string()));
            vars.push(("XDG_CONFIG_HOME", home.join(".config").into_os_string()));
        }
        vars.push(("GIT_CONFIG_NOSYSTEM", "1".into()));
        vars.push(("GIT_CONFIG_GLOBAL", self.global_config.clone().into()));
        if let Some((name, email)) = &self.identity {
            vars.push(("GIT_AUTHOR_NAME", name.into()));
            vars.push(("GIT_AUTHOR_EMAIL", email.into()));
            vars.push(("GIT_COMMITTER_NAME", name.into()));
            vars.push(("GIT_COMMITTER_EMAIL", email.into()));
        }
        vars
    }

    /// `git -C dir args` with the isolated environment, the
    /// [`LOCATING_VARIABLES`] removed; not yet run.
    pub fn command(&self, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        for name in LOCATING_VARIABLES {
            cmd.env_remove(name);
        }
        self.env(&mut cmd);
        cmd.arg("-C").arg(dir).args(args);
        cmd
    }

    /// Runs `git -C dir args`, returning its output whatever the exit status.
    ///
    /// # Panics
    ///
    /// When git cannot be started.
    pub fn output(&self, dir: &Path, args: &[&str]) -> Output {
        self.command(dir, args)
            .output()
            .unwrap_or_else(|err| panic_on(&format!("cannot run git {args:?}: {err}")))
    }

    /// Whether `git -C dir args` succeeds.
    ///
    /// # Panics
    ///
    /// When git cannot be started.
    pub fn succeeds(&self, dir: &Path, args: &[&str]) -> bool {
        self.output(dir, args).status.success()
    }

    /// Runs `git -C dir args`, which must succeed; returns its output.
    ///
    /// # Panics
    ///
    /// When git cannot be started or fails (with its stderr in the message).
    pub fn run(&self, dir: &Path, args: &[&str]) -> Output {
        let out = self.output(dir, args);
        assert!(
            out.status.success(),
            "git {args:?} in {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Runs `git -C dir args`, which must succeed; returns its stdout.
    ///
    /// # Panics
    ///
    /// As [`Git::run`].
    pub fn stdout(&self, dir: &Path, args: &[&str]) -> Vec<u8> {
        self.run(dir, args).stdout
    }

    /// The oracle: what `git -C dir ls-files --cached --others --exclude-standard -z`
    /// lists, each path once (a conflict lists a path once per stage), in byte order.
    ///
    /// # Panics
    ///
    /// As [`Git::run`].
    pub fn listed(&self, dir: &Path) -> std::collections::BTreeSet<Vec<u8>> {
        let args = [
            "ls-files",
            "--cached",
            "--others",
            "--exclude-standard",
            "-z",
        ];
        self.stdout(dir, &args)
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    }

    /// `git init -q` in the existing directory `dir`, then any `extra` arguments
    /// (`["-b", "main"]`, say).
    ///
    /// # Panics
    ///
    /// As [`Git::run`].
    pub fn init(&self, dir: &Path, extra: &[&str]) {
        let mut args = vec!["init", "-q"];
        args.extend_from_slice(extra);
        self.run(dir, &args);
    }

    /// Stages everything in `dir` (`git add -A`) and commits it with `message`.
    ///
    /// # Panics
    ///
    /// As [`Git::run`].
    pub fn commit_all(&self, dir: &Path, message: &str) {
        self.run(dir, &["add", "-A"]);
        self.run(dir, &["commit", "-q", "-m", message]);
    }
}

/// Fails the test with `message` (the one place this crate panics by design).
#[allow(clippy::panic)]
fn panic_on(message: &str) -> ! {
    panic!("{message}")
}

/// A writer through a shared mapping of a file (`mmap(MAP_SHARED)`), as a
/// database or an editor that maps its file writes it: the kernel moves the
/// file's times on a write fault only, and a page already dirty and writable
/// takes further writes without one.
pub struct SharedWriter {
    file: File,
    map: memmap2::MmapMut,
}

impl SharedWriter {
    /// Maps `path` (an existing, non-empty file) shared and writable.
    pub fn open(path: &Path) -> SharedWriter {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .unwrap_or_else(|e| panic_on(&format!("open {}: {e}", path.display())));
        // SAFETY: the mapping is only written byte by byte within the file's
        // length, and no test shrinks a mapped file below it.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::MmapMut::map_mut(&file) }
            .unwrap_or_else(|e| panic_on(&format!("mmap {}: {e}", path.display())));
        SharedWriter { file, map }
    }

    /// Loads the byte at `at` through the mapping: a read fault, no write.
    pub fn peek(&self, at: usize) -> u8 {
        self.map[at]
    }

    /// Stores `byte` at `at` through the mapping: a plain memory write.
    pub fn poke(&mut self, at: usize, byte: u8) {
        self.map[at] = byte;
    }

    /// `msync(MS_SYNC)`: the dirty pages written back.
    pub fn msync(&self) {
        self.map
            .flush()
            .unwrap_or_else(|e| panic_on(&format!("msync: {e}")));
    }

    /// `munmap`, then `fsync`.
    pub fn close(self) {
        let SharedWriter { file, map } = self;
        drop(map);
        file.sync_all()
            .unwrap_or_else(|e| panic_on(&format!("fsync: {e}")));
    }
}
