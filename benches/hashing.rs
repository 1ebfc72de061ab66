//! Throughput of the hot paths: file digests, the Tasks normalizers and
//! the v1 stream encoder.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ledger_core::{
    WorkspacePath,
    expand::{Content, Digest, Encoder, Entry},
    tasks::{TaskRule, normalize_tasks, normalize_tasks_with},
};

/// File digests for sizes from 4 KiB to 256 MiB (bytes/s).
fn file_digest(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("file_digest");
    group.sample_size(10);
    for kib in [4usize, 64, 1024, 16 * 1024, 256 * 1024] {
        let name = format!("f{kib}");
        let data: Vec<u8> = (0..kib * 1024).map(|i| (i * 31 % 251) as u8).collect();
        std::fs::write(dir.path().join(&name), &data).unwrap();
        let path = WorkspacePath::new(name).unwrap();
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{kib}KiB")),
            &path,
            |b, p| b.iter(|| Entry::read(dir.path(), black_box(p), false).unwrap()),
        );
    }
    group.finish();
}

/// The normalizer on a Tasks-like document (bytes/s).
fn normalization(c: &mut Criterion) {
    let line = b"- [x] 12.3 [core] Implement the streaming encoder and test it\nplain prose line\n";
    let doc: Vec<u8> = line.iter().copied().cycle().take(4 << 20).collect();
    let mut group = c.benchmark_group("normalize_tasks");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.bench_function("4MiB", |b| b.iter(|| normalize_tasks(black_box(&doc))));
    group.finish();
    // OpenSpec's own format, nested, under the rule that reads it.
    let line = b"  - [x] 12.3 Implement the streaming encoder and test it\nplain prose line\n";
    let doc: Vec<u8> = line.iter().copied().cycle().take(4 << 20).collect();
    let mut group = c.benchmark_group("normalize_tasks_openspec");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.bench_function("4MiB", |b| {
        b.iter(|| normalize_tasks_with(black_box(&doc), TaskRule::OpenspecCheckbox))
    });
    group.finish();
}

/// The v1 stream encoder over 10^5 sorted entries.
fn encoder(c: &mut Criterion) {
    let mut entries: Vec<Entry> = (0..100_000)
        .map(|i| Entry {
            path: WorkspacePath::new(format!("dir{:03}/file{i:06}.rs", i % 997)).unwrap(),
            content: Content::File {
                executable: i % 7 == 0,
                digest: Digest([i as u8; 32]),
            },
        })
        .collect();
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    c.bench_function("encoder_1e5_entries", |b| {
        b.iter(|| {
            let mut enc = Encoder::new();
            for e in &entries {
                enc.push(e).unwrap();
            }
            enc.finish()
        })
    });
}

criterion_group!(benches, file_digest, normalization, encoder);
criterion_main!(benches);
