//! Replays the kept fuzz corpora and every fixed crash (`fuzz/corpus/<target>/`,
//! `fuzz/regressions/<target>/`) through the fuzz-target bodies in
//! `ledger_core::fuzzing`, so that what the fuzzer found stays covered by
//! `cargo test` without libFuzzer or a nightly toolchain. A test of the
//! repository: the corpora stay in `fuzz/`, and Cargo.toml excludes this file
//! from the packaged crate.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir`, sorted; none when the directory does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = read
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// Runs `target` on every corpus and regression input; the corpus must exist.
fn replay(name: &str, target: fn(&[u8])) {
    let corpus = files(&fuzz_dir().join("corpus").join(name));
    assert!(!corpus.is_empty(), "fuzz/corpus/{name} is empty or missing");
    let regressions = files(&fuzz_dir().join("regressions").join(name));
    for file in corpus.iter().chain(&regressions) {
        let data = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let outcome = std::panic::catch_unwind(|| target(&data));
        assert!(outcome.is_ok(), "{name}: {} fails", file.display());
    }
}

#[test]
fn normalizer() {
    replay("normalizer", ledger_core::fuzzing::normalizer);
}

#[test]
fn openspec_checkbox() {
    replay("openspec_checkbox", ledger_core::fuzzing::openspec_checkbox);
}

#[test]
fn record_json() {
    replay("record_json", ledger_core::fuzzing::record_json);
}

#[test]
fn path() {
    replay("path", ledger_core::fuzzing::path);
}

#[test]
fn markdown() {
    replay("markdown", ledger_core::fuzzing::markdown);
}

#[test]
fn schema_yaml() {
    replay("schema_yaml", ledger_core::fuzzing::schema_yaml);
}

#[test]
fn digest_cache() {
    replay("digest_cache", ledger_core::fuzzing::digest_cache);
}

#[test]
fn walk_memo() {
    replay("walk_memo", ledger_core::fuzzing::walk_memo);
}
