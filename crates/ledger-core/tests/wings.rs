//! The house's one rule (docs/architecture.md): a wing uses only the wings
//! below it and the ground floor, the ground floor uses no wing, and no two
//! modules of one wing use each other. Read from the sources, so that a new
//! `use` that points up fails here, not in a review.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The wings, from the bottom up.
const WINGS: &[&str] = &[
    "tasks",
    "expand",
    "records",
    "verdict",
    "openspec",
    "approval",
    "gate",
    "lifecycle",
    // The top floor: what every front door shares (one description of each
    // verb, one dispatch); it may use every wing, and no wing uses it.
    "door",
];

/// The engine: the wings that know nothing of OpenSpec, approvals or the store.
const ENGINE: &[&str] = &["tasks", "expand"];

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

/// The code of a file without its comments (doc links name upper wings freely)
/// and without its unit tests (a test may drive its module through a neighbour).
fn code(text: &str) -> String {
    let text = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `(wing, module)` of a source file below `src/`; the ground floor is `("", file)`.
fn place(src: &Path, file: &Path) -> (String, String) {
    let rel = file.strip_prefix(src).expect("below src");
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if parts.len() == 1 {
        return (String::new(), parts[0].clone());
    }
    let module = if parts[1] == "mod" {
        String::new()
    } else {
        parts[1].clone()
    };
    (parts[0].clone(), module)
}

fn rank(wing: &str) -> Option<usize> {
    WINGS.iter().position(|w| *w == wing)
}

#[test]
fn every_use_points_down_and_no_wing_has_a_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut wrong = Vec::new();
    let mut inside: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let (wing, module) = place(&src, file);
        if module == "fuzzing" || module == "lib" {
            continue; // the crate root and the fuzz hooks see everything
        }
        let text = code(&fs::read_to_string(file).expect("read"));
        for (at, _) in text.match_indices("crate::") {
            let rest = &text[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let Some(target) = rank(&name) else {
                continue; // the ground floor, or a root re-export
            };
            let here = rank(&wing);
            if here.is_none_or(|here| target > here) {
                wrong.push(format!("{} uses crate::{name}", file.display()));
            }
            if ENGINE.contains(&wing.as_str()) && !ENGINE.contains(&name.as_str()) {
                wrong.push(format!("{} (engine) uses crate::{name}", file.display()));
            }
            if name == wing {
                let sub: String = rest[name.len()..]
                    .trim_start_matches("::")
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !sub.is_empty() && sub != module {
                    inside
                        .entry((wing.clone(), module.clone()))
                        .or_default()
                        .insert(sub);
                }
            }
        }
    }
    for (wing, module) in inside.keys() {
        if let Some(path) = cycle_from(&inside, wing, module) {
            wrong.push(format!("a cycle in {wing}: {}", path.join(" -> ")));
        }
    }
    assert!(
        wrong.is_empty(),
        "uses against the direction:\n{}",
        wrong.join("\n")
    );
}

/// A path of uses inside `wing` from `start` back to itself, if there is one.
fn cycle_from(
    inside: &BTreeMap<(String, String), BTreeSet<String>>,
    wing: &str,
    start: &str,
) -> Option<Vec<String>> {
    let mut stack = vec![vec![start.to_owned()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last()?.clone();
        for next in inside.get(&(wing.to_owned(), last)).into_iter().flatten() {
            let mut longer = path.clone();
            longer.push(next.clone());
            if next == start {
                return Some(longer);
            }
            if seen.insert(next.clone()) {
                stack.push(longer);
            }
        }
    }
    None
}
