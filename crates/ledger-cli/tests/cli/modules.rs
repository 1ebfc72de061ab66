//! The CLI's modules use each other in one direction (docs/architecture.md):
//! the `crate::` paths of each source, sorted topologically; what cannot be
//! sorted is a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

#[test]
fn the_cli_modules_have_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in fs::read_dir(&src).expect("read src") {
        let path = entry.expect("entry").path();
        let module = path
            .file_stem()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let text = fs::read_to_string(&path).expect("read");
        let used = uses.entry(module.clone()).or_default();
        for (at, _) in text.match_indices("crate::") {
            let name: String = text[at + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name != module && src.join(format!("{name}.rs")).exists() {
                used.insert(name);
            }
        }
    }
    assert!(uses.len() > 5, "the sources were found: {uses:?}");
    // Kahn's algorithm: peel off modules that use nothing left.
    let mut left = uses.clone();
    while let Some(leaf) = left
        .iter()
        .find(|(_, used)| used.is_empty())
        .map(|(m, _)| m.clone())
    {
        left.remove(&leaf);
        for used in left.values_mut() {
            used.remove(&leaf);
        }
    }
    assert!(left.is_empty(), "modules in a cycle: {left:?}");
}
