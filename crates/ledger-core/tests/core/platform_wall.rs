//! One platform layer (docs/architecture.md, The platform layer): every
//! operating-system call of the workspace's code that is not plain std lives
//! in ledger-core's `src/platform/`. Read from the sources of every crate (the
//! core, the CLI, both bindings and the test kit), so that a `libc::`,
//! `rustix::` or `std::os::` anywhere else fails here, not on the first build
//! for macOS or Windows. Unit tests inside `src/` are held to it too: they
//! build their fixtures through the platform's test helpers. The integration
//! tests under `tests/` are oracles that make symlinks, FIFOs and modes the
//! way a user's shell does; they are outside the wall.

use std::fs;
use std::path::{Path, PathBuf};

/// What only the platform layer may name.
const FORBIDDEN: &[&str] = &[
    "libc::",
    "rustix::",
    "std::os::unix",
    "std::os::linux",
    "std::os::fd",
    "std::os::macos",
    "std::os::windows",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The forbidden names `text` uses outside comments, with their line numbers.
fn uses(text: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for name in FORBIDDEN {
            if code.contains(name) {
                found.push((number + 1, *name));
            }
        }
    }
    found
}

#[test]
fn only_the_platform_layer_names_the_operating_system() {
    let core = Path::new(env!("CARGO_MANIFEST_DIR"));
    let crates = core.parent().expect("the crates folder");
    let platform = core.join("src/platform");
    let mut files = Vec::new();
    // In the workspace, every crate's sources; the packaged crate, tested
    // unpacked (tests/install/crate.sh), has only its own beside it.
    sources(&core.join("src"), &mut files);
    if crates.join("ledger-cli/src").is_dir() {
        for member in ["ledger-cli", "ledger-py", "ledger-node", "ledger-testkit"] {
            sources(&crates.join(member).join("src"), &mut files);
        }
    }
    assert!(files.len() > 100, "the crates' sources are found");
    let mut offences = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&platform)) {
        let text = fs::read_to_string(file).expect("read source");
        for (line, name) in uses(&text) {
            let shown = file.strip_prefix(crates).unwrap_or(file).display();
            offences.push(format!("crates/{shown}:{line} names `{name}`"));
        }
    }
    assert!(
        offences.is_empty(),
        "only src/platform/ may name the operating system; move these behind it:\n{}",
        offences.join("\n")
    );
}

/// The platform layer is the ground floor's lowest room: it uses nothing of
/// the crate (its files reach each other through `super::`).
#[test]
fn the_platform_layer_uses_nothing_of_the_crate() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/platform"),
        &mut files,
    );
    assert!(!files.is_empty());
    for file in files {
        let text = fs::read_to_string(&file).expect("read source");
        let code: Vec<&str> = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect();
        assert!(
            !code.iter().any(|l| l.contains("crate::")),
            "{} uses the crate; the platform layer stands on nothing of it",
            file.display()
        );
    }
}

/// The scan itself: it sees a use in code and ignores one in a comment.
#[test]
fn the_scan_finds_a_use_in_code_only() {
    assert_eq!(uses("let x = rustix::fs::fstat(f);"), [(1, "rustix::")]);
    assert_eq!(uses("\nuse std::os::fd::OwnedFd;"), [(2, "std::os::fd")]);
    assert!(uses("// rustix has no wrapper: libc::sync_file_range").is_empty());
    assert!(uses("let path = std::path::Path::new(\"x\");").is_empty());
}
