//! Comparison (SPEC §8): what changed between a stored inventory and the disk.

use std::cmp::Ordering;

use serde::Serialize;

use crate::entry::{Content, Entry};
use crate::error::Result;
use crate::fingerprint::Fingerprint;
use crate::inventory::Inventory;

/// Why a path differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// New in the set, or present again after having been missing.
    Added,
    /// Present before, missing now.
    Removed,
    /// A file became a symlink or the reverse.
    KindChanged,
    /// The execute bit changed (same kind).
    ModeChanged,
    /// The bytes (or link target) changed (same kind).
    ContentChanged,
}

impl ChangeKind {
    /// Every kind, in the order a report groups them.
    pub const ALL: [ChangeKind; 5] = [
        ChangeKind::Added,
        ChangeKind::Removed,
        ChangeKind::KindChanged,
        ChangeKind::ModeChanged,
        ChangeKind::ContentChanged,
    ];

    /// The machine name, as serialized: `added`, `removed`, `kind-changed`,
    /// `mode-changed`, `content-changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::KindChanged => "kind-changed",
            ChangeKind::ModeChanged => "mode-changed",
            ChangeKind::ContentChanged => "content-changed",
        }
    }

    /// Words for a report: `added`, `removed`, `kind changed`, ...
    pub fn label(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::KindChanged => "kind changed",
            ChangeKind::ModeChanged => "mode changed",
            ChangeKind::ContentChanged => "content changed",
        }
    }
}

/// One difference. A path whose mode and content both changed appears twice,
/// once per kind; a move is a `removed` plus an `added`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// What changed.
    pub change: ChangeKind,
    /// The entry before (`None` when the path was not in the old set).
    pub old: Option<Entry>,
    /// The entry now.
    pub new: Entry,
}

impl Change {
    /// The path the change is about.
    pub fn path(&self) -> &str {
        self.new.path.as_str()
    }
}

/// The answer to "is it still the same?": a match means identical fingerprints;
/// otherwise every difference with its reason. Unchanged paths are counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// Whether the fingerprints are identical.
    pub matches: bool,
    /// The stored fingerprint.
    pub old: Fingerprint,
    /// The fingerprint of the re-expanded set.
    pub new: Fingerprint,
    /// Paths present in both sets with identical entries.
    pub unchanged: usize,
    /// Every difference, ordered by path, then kind.
    pub changes: Vec<Change>,
}

impl Comparison {
    /// Compares two inventories entry by entry (both are sorted by path).
    pub fn between(old: &Inventory, new: &Inventory) -> Comparison {
        let mut changes = Vec::new();
        let mut unchanged = 0;
        let mut olds = old.entries.iter().peekable();
        for current in &new.entries {
            // Old paths absent from the new set cannot occur when `new` was
            // expanded with the old paths; should a caller pass unrelated
            // inventories, such paths are skipped here and the fingerprints
            // still tell the mismatch.
            while olds.peek().is_some_and(|o| o.path < current.path) {
                olds.next();
            }
            let previous = olds.next_if(|o| o.path.cmp(&current.path) == Ordering::Equal);
            let before = changes.len();
            diff(previous, current, &mut changes);
            if changes.len() == before {
                unchanged += 1;
            }
        }
        Comparison {
            matches: old.fingerprint == new.fingerprint,
            old: old.fingerprint,
            new: new.fingerprint,
            unchanged,
            changes,
        }
    }

    /// The changes of one kind.
    pub fn of_kind(&self, kind: ChangeKind) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.change == kind)
    }
}

/// Appends the differences between one path's old and new entries.
fn diff(old: Option<&Entry>, new: &Entry, out: &mut Vec<Change>) {
    let mut push = |change| {
        out.push(Change {
            change,
            old: old.cloned(),
            new: new.clone(),
        })
    };
    let Some(old_entry) = old else {
        return push(ChangeKind::Added);
    };
    match (old_entry.content, new.content) {
        (a, b) if a == b => {}
        (Content::Missing, _) => push(ChangeKind::Added),
        (_, Content::Missing) => push(ChangeKind::Removed),
        (
            Content::File {
                executable: x1,
                digest: d1,
            },
            Content::File {
                executable: x2,
                digest: d2,
            },
        ) => {
            if x1 != x2 {
                push(ChangeKind::ModeChanged);
            }
            if d1 != d2 {
                push(ChangeKind::ContentChanged);
            }
        }
        (Content::Symlink { .. }, Content::Symlink { .. }) => push(ChangeKind::ContentChanged),
        _ => push(ChangeKind::KindChanged),
    }
}

impl Inventory {
    /// Re-expands this inventory's scope plus every path it held (a vanished
    /// file stays in the set as `missing`, a new file enters).
    pub fn reexpand(&self) -> Result<Inventory> {
        Inventory::expand_with(&self.scope, self.entries.iter().map(|e| &e.path))
    }

    /// Re-expands and compares: is what this inventory describes still on disk?
    pub fn compare(&self) -> Result<Comparison> {
        Ok(Comparison::between(self, &self.reexpand()?))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::fingerprint::fingerprint_entries;
    use crate::scope::Scope;
    use proptest::prelude::*;

    fn inventory(entries: Vec<Entry>) -> Inventory {
        let mut entries = entries;
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Inventory {
            scope: Scope::new("/w"),
            walked_roots: vec![],
            fingerprint: fingerprint_entries(entries.clone()).unwrap(),
            entries,
        }
    }

    fn e(path: &str, kind: &str, mode: &str, digest: u8) -> Entry {
        let d = if kind == "missing" {
            "-".to_owned()
        } else {
            format!("{digest:02x}").repeat(32)
        };
        Entry::from_parts(path, kind, mode, &d).unwrap()
    }

    #[test]
    fn every_kind_of_change() {
        let old = inventory(vec![
            e("same", "file", "100644", 1),
            e("edited", "file", "100644", 1),
            e("chmod", "file", "100644", 1),
            e("both", "file", "100644", 1),
            e("gone", "file", "100644", 1),
            e("back", "missing", "-", 0),
            e("linked", "file", "100644", 1),
            e("retarget", "symlink", "120000", 1),
        ]);
        let new = inventory(vec![
            e("same", "file", "100644", 1),
            e("edited", "file", "100644", 2),
            e("chmod", "file", "100755", 1),
            e("both", "file", "100755", 2),
            e("gone", "missing", "-", 0),
            e("back", "file", "100644", 1),
            e("linked", "symlink", "120000", 1),
            e("retarget", "symlink", "120000", 2),
            e("fresh", "file", "100644", 1),
        ]);
        let c = Comparison::between(&old, &new);
        assert!(!c.matches);
        assert_eq!(c.unchanged, 1);
        let got: Vec<(&str, ChangeKind)> = c.changes.iter().map(|c| (c.path(), c.change)).collect();
        use ChangeKind::*;
        assert_eq!(
            got,
            [
                ("back", Added),
                ("both", ModeChanged),
                ("both", ContentChanged),
                ("chmod", ModeChanged),
                ("edited", ContentChanged),
                ("fresh", Added),
                ("gone", Removed),
                ("linked", KindChanged),
                ("retarget", ContentChanged),
            ]
        );
    }

    fn arb_entries() -> impl Strategy<Value = Vec<Entry>> {
        prop::collection::btree_map("[a-c]{1,2}(/[a-c]{1,2})?", (0u8..4, any::<u8>()), 0..20)
            .prop_map(|m| {
                m.into_iter()
                    .map(|(p, (k, d))| match k {
                        0 => e(&p, "file", "100644", d),
                        1 => e(&p, "file", "100755", d),
                        2 => e(&p, "symlink", "120000", d),
                        _ => e(&p, "missing", "-", 0),
                    })
                    .collect()
            })
    }

    proptest! {
        #[test]
        fn comparing_a_set_with_itself_matches(entries in arb_entries()) {
            let inv = inventory(entries);
            let c = Comparison::between(&inv, &inv);
            prop_assert!(c.matches && c.changes.is_empty());
            prop_assert_eq!(c.unchanged, inv.entries.len());
        }

        /// Any single-entry mutation is reported, and the fingerprints differ.
        #[test]
        fn every_single_mutation_is_detected(entries in arb_entries(), pick in any::<prop::sample::Index>(), to in 0u8..4, d in any::<u8>()) {
            prop_assume!(!entries.is_empty());
            let i = pick.index(entries.len());
            let mut mutated = entries.clone();
            let p = mutated[i].path.as_str().to_owned();
            mutated[i] = match to {
                0 => e(&p, "file", "100644", d),
                1 => e(&p, "file", "100755", d),
                2 => e(&p, "symlink", "120000", d),
                _ => e(&p, "missing", "-", 0),
            };
            prop_assume!(mutated[i] != entries[i]);
            let c = Comparison::between(&inventory(entries), &inventory(mutated));
            prop_assert!(!c.matches);
            prop_assert!(!c.changes.is_empty());
            prop_assert!(c.changes.iter().all(|ch| ch.path() == p));
        }
    }
}
