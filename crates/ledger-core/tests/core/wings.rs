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
        // `super::X` and `self::X` name modules of the same wing: edges too.
        let depth = file.strip_prefix(&src).expect("below src").iter().count();
        let is_mod = file.file_name().is_some_and(|n| n == "mod.rs");
        let siblings = match wing.is_empty() {
            true => BTreeSet::new(),
            false => relative_uses(&text, depth, is_mod),
        };
        for sibling in siblings {
            if sibling != module && sibling != "tests" {
                inside
                    .entry((wing.clone(), module.clone()))
                    .or_default()
                    .insert(sibling);
            }
        }
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

/// The modules of the same wing that `super::` and `self::` paths in `text`
/// name, for a file `depth` components below `src/` (`wing/module.rs` is 2,
/// `wing/module/part.rs` 3; `is_mod` for a `mod.rs`), grouped imports
/// (`super::{a, b::c}`) included.
fn relative_uses(text: &str, depth: usize, is_mod: bool) -> BTreeSet<String> {
    // How many `super::` lead from this file to its wing's module: one from
    // `wing/module.rs`, none from `wing/mod.rs`, one more per folder below.
    let ups_to_wing = match is_mod {
        true => depth - 2,
        false => depth - 1,
    };
    let mut out = BTreeSet::new();
    for start in ["super::", "self::"] {
        for (at, _) in text.match_indices(start) {
            let before = &text[..at];
            if before.ends_with("::") || before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                continue; // inside a longer path: counted from its start
            }
            if start == "self::" && !is_mod {
                continue; // a module's own items
            }
            let mut rest = &text[at..];
            let mut ups = 0;
            while let Some(after) = rest.strip_prefix("super::") {
                ups += 1;
                rest = after;
            }
            rest = rest.strip_prefix("self::").unwrap_or(rest);
            if ups != ups_to_wing {
                continue;
            }
            for name in first_segments(rest) {
                out.insert(name);
            }
        }
    }
    out
}

/// The first segment of a path, or of each path of a `{...}` group.
fn first_segments(rest: &str) -> Vec<String> {
    let word = |t: &str| -> String {
        t.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    match rest.strip_prefix('{') {
        None => vec![word(rest)],
        Some(group) => {
            let mut depth = 0;
            let mut end = group.len();
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        end = i;
                        break;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            let mut names = Vec::new();
            let mut level = 0;
            let mut item = String::new();
            for c in group[..end].chars().chain(std::iter::once(',')) {
                match c {
                    '{' => level += 1,
                    '}' => level -= 1,
                    ',' if level == 0 => {
                        names.push(word(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            names.retain(|n| !n.is_empty() && n != "self");
            names
        }
    }
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

/// `super::` and `self::` paths name the wing's modules they reach, grouped
/// imports included; a path that leaves the wing or stays in the module does not.
#[test]
fn relative_paths_are_resolved_to_the_wing_s_modules() {
    let text = "use super::{cache::A, read};\nsuper::super::x::f();\nuse super::trust;";
    let names = |depth, is_mod| {
        relative_uses(text, depth, is_mod)
            .into_iter()
            .collect::<Vec<_>>()
    };
    // expand/ledger_dir.rs: `super::` is the wing.
    assert_eq!(names(2, false), ["cache", "read", "trust"]);
    // expand/git/walk.rs: `super::super::` is the wing.
    assert_eq!(names(3, false), ["x"]);
    // expand/mod.rs: `self::` is the wing, `super::` the crate.
    assert_eq!(relative_uses("use self::{git, read::f};", 2, true).len(), 2);
    assert!(relative_uses("use super::Error;", 2, true).is_empty());
}
