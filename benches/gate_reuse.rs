//! Finding earlier gate evidence (docs/gates.md, Reusing earlier evidence):
//! a gate with 10,000 recorded runs, each on other inputs, checked on the
//! inputs of its newest run (`newest`: the head is fresh, no lookup) and of
//! its first (`earliest`: the head is stale, the index finds the first run
//! and it is judged whole).
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use ledger_core::expand::{Inventory, Scope};
use ledger_core::gate::{Evidence, GateSpec, check_gate, record_evidence};
use ledger_core::records::Store;

const RUNS: usize = 10_000;

/// Records `RUNS` passing runs of gate `test` on `input.txt` holding `0`,
/// `1`, ... in turn; leaves the file holding the last.
fn recorded_runs(dir: &std::path::Path) -> (Store, GateSpec) {
    let workspace = camino::Utf8Path::from_path(dir).unwrap();
    let mut scope = Scope::new(workspace);
    scope.add_path("input.txt").unwrap();
    let spec = GateSpec::new("test", vec!["true".into()], ".", scope, Default::default()).unwrap();
    let store = Store::open(workspace).unwrap();
    for run in 0..RUNS {
        std::fs::write(dir.join("input.txt"), run.to_string()).unwrap();
        let inventory = Inventory::expand(spec.scope()).unwrap();
        let resolved = inventory.scope.clone();
        let evidence = Evidence {
            spec: GateSpec::new(
                "test",
                vec!["true".into()],
                ".",
                resolved,
                Default::default(),
            )
            .unwrap(),
            prerequisites: Default::default(),
            exit_status: Some(0),
            signal: None,
            stopped: None,
            started_at: "2026-12-07T00:00:00Z".into(),
            duration_ms: 1,
            result: String::new(),
            output: None,
            left_in_group: false,
            inventory,
            head: None,
            not_reusable: None,
        };
        record_evidence(&store, &evidence).unwrap();
    }
    (store, spec)
}

fn reuse(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let (store, spec) = recorded_runs(dir.path());
    let mut group = c.benchmark_group("gate_check_10000_runs");
    group.sample_size(20);
    group.bench_function("newest", |b| {
        b.iter(|| assert!(check_gate(&store, &spec).unwrap().fresh))
    });
    std::fs::write(dir.path().join("input.txt"), "0").unwrap();
    group.bench_function("earliest", |b| {
        b.iter(|| assert!(check_gate(&store, &spec).unwrap().fresh))
    });
    group.finish();
}

criterion_group!(benches, reuse);
criterion_main!(benches);
