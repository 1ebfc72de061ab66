//! Which writers' file sets overlap (seed 001: before parallel fixers are
//! launched, the intersection of their file sets is counted; an overlap means
//! they run one after another).
//!
//! Each named scope is expanded as any scope is, and every path that more
//! than one of them holds is listed with the names that hold it. A root
//! holds the files below it that exist; a path named in a scope's `paths`
//! that does not exist yet is held too (a `missing` entry), so two writers
//! that would both create it overlap. A pattern holds the workspace's
//! candidates it matches.

use std::collections::BTreeMap;

use serde::Serialize;

use super::exclusion::{Exclusion, is_pattern, normal_pattern};
use super::{Inventory, Scope, opened_once};
use crate::{Error, Result, WorkspacePath};

/// The paths held by more than one of the scopes compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Overlap {
    /// No path is held by two scopes: the writers may run in parallel.
    pub disjoint: bool,
    /// How many paths each scope holds, by name, in the order given.
    pub scopes: Vec<ScopeSize>,
    /// Every path held by more than one scope, ascending by UTF-8 bytes.
    pub shared: Vec<SharedPath>,
}

/// A scope compared and how many paths it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ScopeSize {
    /// The scope's name.
    pub name: String,
    /// How many paths it holds.
    pub paths: usize,
}

/// A path two or more scopes hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SharedPath {
    /// The workspace path.
    pub path: WorkspacePath,
    /// The names of the scopes holding it, in the order given.
    pub scopes: Vec<String>,
}

/// A writer's file set: its name, a scope, and gitignore-style patterns
/// (`g/case-*.md`, `risks-*.md`) that add the workspace's candidates they
/// match (the kit's artifacts are named by pattern).
#[derive(Debug, Clone)]
pub struct FileSet {
    /// The writer's name.
    pub name: String,
    /// What its scope selects.
    pub scope: Scope,
    /// Patterns whose matches it holds too.
    pub patterns: Vec<String>,
}

impl FileSet {
    /// The set a writer names by `items` in `workspace`, as `ledger overlap
    /// NAME=PATH[,PATH…]` takes them: each item a root, or a pattern when it
    /// holds `*`, `?` or `[` (as an exclusion is); patterns alone select
    /// nothing besides what they match.
    pub fn from_items(
        name: impl Into<String>,
        workspace: &camino::Utf8Path,
        items: Vec<String>,
    ) -> Result<FileSet> {
        let (patterns, roots): (Vec<String>, Vec<String>) =
            items.into_iter().partition(|item| is_pattern(item));
        let only_patterns = roots.is_empty();
        let lists = super::ScopeLists {
            roots,
            ..super::ScopeLists::default()
        };
        let scope = Scope::from_lists(workspace, &lists)?;
        Ok(FileSet {
            name: name.into(),
            scope: if only_patterns {
                scope.selecting_nothing()
            } else {
                scope
            },
            patterns,
        })
    }
}

/// The entries of `set`: its scope's, and the candidates of the whole
/// workspace its patterns match (listed as the scope lists, with its
/// exclusions).
fn expand_set(set: &FileSet) -> Result<Inventory> {
    if set.patterns.is_empty() {
        return Inventory::expand(&set.scope);
    }
    let mut wide = set.scope.clone();
    wide.add_root(".")?;
    let mut inventory = Inventory::expand(&wide)?;
    let patterns: Vec<Exclusion> = (set.patterns.iter())
        .map(|p| {
            Ok(Exclusion {
                path: normal_pattern(p)?,
                reason: String::new(),
                pattern: true,
            })
        })
        .collect::<Result<_>>()?;
    let matchers = patterns
        .iter()
        .map(Exclusion::matcher)
        .collect::<Result<Vec<_>>>()?;
    let scope = &set.scope;
    inventory.entries.retain(|e| {
        let path = e.path.as_str();
        scope.roots().iter().any(|r| e.path.is_within(r))
            || scope.paths().iter().any(|p| p.as_str() == path)
            || matchers.iter().any(|m| m(path.as_bytes()))
    });
    Ok(inventory)
}

/// Compares the named `scopes` (two or more, names unique): `invalid-argument`
/// otherwise. Each repository is opened once for all of them.
pub fn overlap(scopes: &[(String, Scope)]) -> Result<Overlap> {
    let sets: Vec<FileSet> = (scopes.iter())
        .map(|(name, scope)| FileSet {
            name: name.clone(),
            scope: scope.clone(),
            patterns: Vec::new(),
        })
        .collect();
    overlap_sets(&sets)
}

/// [`overlap`] of file sets that may name patterns too.
pub fn overlap_sets(sets: &[FileSet]) -> Result<Overlap> {
    let scopes: Vec<(String, &FileSet)> = sets.iter().map(|s| (s.name.clone(), s)).collect();
    if scopes.len() < 2 {
        return Err(Error::InvalidArgument {
            message: "overlap compares two or more scopes".to_owned(),
        });
    }
    for (at, (name, _)) in scopes.iter().enumerate() {
        if name.is_empty() || scopes[..at].iter().any(|(earlier, _)| earlier == name) {
            return Err(Error::InvalidArgument {
                message: format!(
                    "scope names must be unique and not empty: `{}`",
                    crate::quote::escape(name.as_bytes())
                ),
            });
        }
    }
    let inventories = opened_once(|| {
        (scopes.iter())
            .map(|(_, set)| expand_set(set))
            .collect::<Result<Vec<_>>>()
    })?;
    let mut holders: BTreeMap<&WorkspacePath, Vec<String>> = BTreeMap::new();
    for ((name, _), inventory) in scopes.iter().zip(&inventories) {
        for entry in &inventory.entries {
            holders.entry(&entry.path).or_default().push(name.clone());
        }
    }
    let shared: Vec<SharedPath> = (holders.into_iter())
        .filter(|(_, names)| names.len() > 1)
        .map(|(path, scopes)| SharedPath {
            path: path.clone(),
            scopes,
        })
        .collect();
    Ok(Overlap {
        disjoint: shared.is_empty(),
        scopes: (scopes.iter().zip(&inventories))
            .map(|((name, _), inventory)| ScopeSize {
                name: name.clone(),
                paths: inventory.entries.len(),
            })
            .collect(),
        shared,
    })
}
