//! The vectors this crate carries (`tests/vectors/`, packaged with the crate so
//! that its tests run outside the repository) are the workspace's shared ones
//! (`<repository>/tests/vectors/`, which the Python and Node suites read), byte
//! for byte. A test of the repository around the crate: Cargo.toml excludes it
//! from the package, where the workspace's copy does not exist.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::Path;

/// The files of `dir` by name, with their bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let read = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    read.map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (name, bytes)
        })
        .collect()
}

#[test]
fn the_crate_carries_the_workspace_vectors_byte_for_byte() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ours = files(&crate_dir.join("tests/vectors"));
    let workspace = files(&crate_dir.join("../../tests/vectors"));
    assert!(!workspace.is_empty(), "no vectors in tests/vectors/");
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&ours),
        names(&workspace),
        "crates/ledger-core/tests/vectors/ must hold the same files as tests/vectors/ \
         (cp tests/vectors/* crates/ledger-core/tests/vectors/)"
    );
    for (name, bytes) in &workspace {
        assert!(
            ours[name] == *bytes,
            "crates/ledger-core/tests/vectors/{name} differs from tests/vectors/{name} \
             (cp tests/vectors/* crates/ledger-core/tests/vectors/)"
        );
    }
}
