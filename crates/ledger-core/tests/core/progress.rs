//! The expansion's progress counts and the progress sink of its settings, in
//! a process of their own (the counts are the process's: `own_process`).

#![allow(clippy::unwrap_used, missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ledger_core::expand::{Inventory, Scope, progress};
use ledger_core::{ProgressSink, Settings};

#[test]
fn counts_grow_with_an_expansion_and_its_sink_hears_when_it_ends() {
    if crate::own_process::ran_in_child(
        "progress::counts_grow_with_an_expansion_and_its_sink_hears_when_it_ends",
    ) {
        return;
    }
    let idle = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&idle);
    let active_in_hook = Arc::new(AtomicUsize::new(usize::MAX));
    let active = Arc::clone(&active_in_hook);
    let sink = ProgressSink::new(move || {
        active.store(progress().active, Ordering::SeqCst);
        seen.fetch_add(1, Ordering::SeqCst);
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), vec![b'a'; 3000]).unwrap();
    std::fs::write(dir.path().join("b.txt"), b"b").unwrap();
    let workspace = camino::Utf8Path::from_path(dir.path()).unwrap();
    let mut scope = Scope::new(workspace);
    scope.add_root(".").unwrap();
    let heard = scope.clone().with_settings(Settings {
        progress: Some(sink.clone()),
        ..Settings::default()
    });
    let before = progress();
    let inventory = Inventory::expand(&heard).unwrap();
    let after = progress();
    assert_eq!(inventory.entries.len(), 2);
    // This test is alone in its process: the counts are this expansion's.
    assert_eq!(after.listed - before.listed, 2);
    assert_eq!(after.answered - before.answered, 2);
    assert!(after.bytes - before.bytes >= 3001, "{before:?} {after:?}");
    assert_eq!(after.active, 0);
    assert_eq!(idle.load(Ordering::SeqCst), 1);
    assert_eq!(sink.active(), 0);
    // The sink is called after its expansion left the count: idle means
    // none under way.
    assert_eq!(active_in_hook.load(Ordering::SeqCst), 0);
    // A workspace without the sink is not heard by it.
    Inventory::expand(&scope).unwrap();
    assert_eq!(
        idle.load(Ordering::SeqCst),
        1,
        "another workspace's expansion"
    );
}
