//! A test that reads or sets what belongs to the whole process (the
//! expansions' progress counts, whether the process met the disk, its threads,
//! its environment) runs alone in a process of its own: this binary run again
//! with `--exact <module>::<test>`, so that no test of another module, on
//! another thread of this binary, moves what it measures or sees what it sets.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::process::Command;

/// Set in the child process to the path of the one test it runs.
const CHILD: &str = "LEDGER_CORE_TEST_OWN_PROCESS";

/// Runs the test `path` (`module::name`, as the harness lists it) in a new
/// process of this binary, alone, and asserts that it passed there: `true`,
/// and the caller returns. In that process it is `false`, and the caller goes
/// on with the test's body.
///
/// ```ignore
/// #[test]
/// fn counts() {
///     if own_process::ran_in_child("progress::counts") {
///         return;
///     }
///     // ... alone in this process
/// }
/// ```
pub fn ran_in_child(path: &str) -> bool {
    if std::env::var_os(CHILD).is_some_and(|running| running == path) {
        return false;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", path, "--test-threads=1", "--nocapture"])
        .env(CHILD, path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Shown as this test's own output (with `--nocapture`, or on failure).
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(
        out.status.success(),
        "{path} failed in its own process ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // A path that names no test runs none, and succeeds.
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "{path} did not run in its own process:\n{stdout}\n{stderr}"
    );
    true
}
