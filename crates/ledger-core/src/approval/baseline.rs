//! The baselines a delta changes (docs/approvals.md, Baselines): an approval
//! of delta specs is an approval *against* the main specs they modify, so the
//! binding records those baselines as they were, and a baseline that moved
//! since makes the approval `changed` (what was approved is no longer what
//! the archive will apply).
//!
//! A baseline is the file OpenSpec's spec sync reads for a capability,
//! `openspec/specs/<capability>/spec.md`, for each delta
//! `<change>/specs/<capability>/spec.md` of the approved set.

use crate::approval::envelope::Binding;
use crate::error::Result;
use crate::expand::inventory::Inventory;
use crate::expand::scope::Scope;
use crate::openspec::change_set::{ChangeSet, specs_root};
use crate::records::compare::{Change, Comparison};

/// How an approval stands on the baselines its deltas change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Its set holds no delta: there is no baseline to stand on.
    NoDeltas,
    /// Every baseline is as it was approved against.
    Unchanged,
    /// These baselines moved (modified, added or removed) since.
    Moved(Vec<Change>),
    /// Its deltas change baselines, but the binding (written before ledger
    /// bound them) did not record them.
    NotBound,
}

/// The baseline paths of the deltas in `set` (an artifact's set), sorted.
fn baseline_paths(change: &ChangeSet, set: &Inventory) -> Vec<String> {
    let deltas = format!("{}/specs/", change.directory());
    let specs = specs_root(change);
    let mut paths: Vec<String> = (set.entries.iter().filter(|e| e.kind() != "missing"))
        .filter_map(|e| e.path.as_str().strip_prefix(deltas.as_str()))
        .filter_map(|rest| rest.strip_suffix("/spec.md"))
        .map(|capability| format!("{specs}/{capability}/spec.md"))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// The baselines `paths`, as they are now (a missing one as missing).
fn read(change: &ChangeSet, paths: impl IntoIterator<Item = String>) -> Result<Inventory> {
    let mut scope =
        Scope::new(change.workspace.clone()).with_settings(change.workspace_settings().clone());
    for path in paths {
        scope.add_path(&path)?;
    }
    Inventory::expand(&scope)
}

/// The baselines the deltas of `set` change, as they are now; `None` when
/// the set holds no delta.
pub(crate) fn baselines(change: &ChangeSet, set: &Inventory) -> Result<Option<Inventory>> {
    let paths = baseline_paths(change, set);
    if paths.is_empty() {
        return Ok(None);
    }
    read(change, paths).map(Some)
}

/// How `binding`, whose set reads as `now`, stands on its baselines.
pub(crate) fn standing(change: &ChangeSet, binding: &Binding, now: &Inventory) -> Result<Standing> {
    let Some(recorded) = &binding.baselines else {
        return Ok(match baseline_paths(change, now).is_empty() {
            true => Standing::NoDeltas,
            false => Standing::NotBound,
        });
    };
    let paths = recorded.entries.iter().map(|e| e.path.as_str().to_owned());
    let moved = Comparison::between(recorded, &read(change, paths)?).changes;
    Ok(match moved.is_empty() {
        true => Standing::Unchanged,
        false => Standing::Moved(moved),
    })
}
