//! How the `ledger` binary is linked for a fast start (crates/ledger-cli/build.rs):
//! position-dependent, and without `libgcc_s.so.1` where the C compiler has the
//! static unwinder. Read with binutils' `readelf`, as a user would check.
#![cfg(all(target_os = "linux", target_env = "gnu"))]
#![allow(clippy::unwrap_used, clippy::panic)]

use std::process::Command;

/// `readelf` run on the binary with `flag`, its output.
fn readelf(flag: &str) -> String {
    let out = Command::new("readelf")
        .args([flag, "-W", env!("CARGO_BIN_EXE_ledger")])
        .output()
        .unwrap();
    assert!(out.status.success(), "readelf {flag} failed");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_binary_is_position_dependent() {
    let header = readelf("-h");
    let kind = header.lines().find(|l| l.trim_start().starts_with("Type:"));
    assert!(kind.is_some_and(|l| l.contains("EXEC")), "{header}");
}

#[test]
fn the_binary_loads_no_libgcc_s_where_the_compiler_has_its_static_unwinder() {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let found = Command::new(compiler)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .unwrap();
    let path = String::from_utf8(found.stdout).unwrap();
    let dynamic = readelf("-d");
    let needs = |lib: &str| {
        dynamic
            .lines()
            .any(|l| l.contains("(NEEDED)") && l.contains(&format!("[{lib}]")))
    };
    assert!(needs("libc.so.6"), "{dynamic}");
    if std::path::Path::new(path.trim()).is_absolute() {
        assert!(!needs("libgcc_s.so.1"), "{dynamic}");
    } else {
        assert!(needs("libgcc_s.so.1"), "{dynamic}");
    }
}
