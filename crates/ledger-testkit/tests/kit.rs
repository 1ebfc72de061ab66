//! The kit's own tests: the isolated environment each git command gets.
#![allow(clippy::unwrap_used)]

use std::ffi::OsString;
use std::path::Path;

use ledger_testkit::{Git, LOCATING_VARIABLES};

#[test]
fn the_environment_is_set_on_each_command() {
    let git = Git::isolated()
        .home("/h")
        .identity("n", "e@x")
        .global_config("/g");
    assert_eq!(
        git.variables(),
        [
            ("HOME", "/h".into()),
            ("XDG_CONFIG_HOME", "/h/.config".into()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("GIT_CONFIG_GLOBAL", "/g".into()),
            ("GIT_AUTHOR_NAME", "n".into()),
            ("GIT_AUTHOR_EMAIL", "e@x".into()),
            ("GIT_COMMITTER_NAME", "n".into()),
            ("GIT_COMMITTER_EMAIL", "e@x".into()),
        ]
    );
    let cmd = git.command(Path::new("/d"), &["status"]);
    let envs: Vec<_> = cmd.get_envs().collect();
    for name in LOCATING_VARIABLES {
        assert!(envs.contains(&(OsString::from(name).as_os_str(), None)));
    }
    let args: Vec<_> = cmd.get_args().collect();
    assert_eq!(args, ["-C", "/d", "status"]);
}

#[test]
fn init_and_commit_all_make_a_commit_by_the_identity() {
    let dir = tempfile::tempdir().unwrap();
    let git = Git::isolated().identity("Test", "test@example.invalid");
    git.init(dir.path(), &["-b", "main"]);
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git.commit_all(dir.path(), "first");
    let log = git.stdout(dir.path(), &["log", "--format=%an <%ae> %s", "main"]);
    assert_eq!(log, b"Test <test@example.invalid> first\n");
    assert!(!git.succeeds(dir.path(), &["rev-parse", "--verify", "no-such-ref"]));
}
