//! Expansion + fingerprint of generated Git repositories of 10^4 and 10^5
//! files (4 KiB each, 10% untracked): listing, reading and hashing together
//! (`expand_fingerprint`), and an unchanged tree with the digest cache warm
//! and without it (`expand_unchanged`).
#![allow(missing_docs, clippy::unwrap_used)]

use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ledger_core::Settings;
use ledger_core::expand::{Inventory, Scope};
use ledger_testkit::Git;

fn git(dir: &Path, args: &[&str]) {
    Git::isolated().run(dir, args);
}

/// A repository of `files` files of 4 KiB; the last 10% stay untracked.
fn repository(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let mut block = vec![0u8; 4096];
    for i in 0..files {
        let sub = dir
            .path()
            .join(format!("d{:02}/s{}", i % 100, (i / 100) % 10));
        std::fs::create_dir_all(&sub).unwrap();
        block[..8].copy_from_slice(&(i as u64).to_le_bytes());
        std::fs::write(sub.join(format!("f{i:06}.txt")), &block).unwrap();
        if i + 1 == files - files / 10 {
            git(dir.path(), &["add", "-A"]);
            git(
                dir.path(),
                &[
                    "-c",
                    "user.name=b",
                    "-c",
                    "user.email=b@b",
                    "commit",
                    "-qm",
                    "c",
                ],
            );
        }
    }
    dir
}

fn expansion(c: &mut Criterion) {
    let mut group = c.benchmark_group("expand_fingerprint");
    group.sample_size(10);
    for files in [10_000usize, 100_000] {
        let repo = repository(files);
        let mut scope = Scope::new(camino::Utf8Path::from_path(repo.path()).unwrap());
        scope.add_root(".").unwrap();
        group.throughput(Throughput::Elements(files as u64));
        group.bench_with_input(BenchmarkId::from_parameter(files), &scope, |b, scope| {
            b.iter(|| Inventory::expand(scope).unwrap())
        });
    }
    group.finish();
}

/// An unchanged tree, answered from the digest cache (one `stat` and one
/// lookup per file) against the same tree read whole (`--no-cache`): the cost
/// of the cache lookup path, and what it saves.
fn unchanged(c: &mut Criterion) {
    let mut group = c.benchmark_group("expand_unchanged");
    group.sample_size(10);
    for files in [10_000usize, 100_000] {
        let repo = repository(files);
        // The cache lives in the workspace's `.ledger/`, which is never created
        // by an expansion: made here, as the first write of a record would.
        std::fs::create_dir(repo.path().join(".ledger")).unwrap();
        let mut scope = Scope::new(camino::Utf8Path::from_path(repo.path()).unwrap());
        scope.add_root(".").unwrap();
        group.throughput(Throughput::Elements(files as u64));
        for (name, cached) in [("cache", true), ("no_cache", false)] {
            let scope = scope.clone().with_settings(Settings {
                digest_cache: cached,
                ..Settings::default()
            });
            // The first expansion fills the cache; criterion's warm-up runs
            // it again until every file is old enough to be trusted.
            Inventory::expand(&scope).unwrap();
            group.bench_with_input(BenchmarkId::new(name, files), &scope, |b, scope| {
                b.iter(|| Inventory::expand(scope).unwrap())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, expansion, unchanged);
criterion_main!(benches);
