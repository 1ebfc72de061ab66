//! Comparison (docs/records.md): what changed between a stored inventory and the disk.

use std::cmp::Ordering;

use serde::Serialize;

use crate::error::Result;
use crate::expand::entry::{Content, Entry};
use crate::expand::fingerprint::{Fingerprint, fingerprint_sorted};
use crate::expand::inventory::Inventory;

/// Why a path differs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    /// Compares two inventories entry by entry (both are sorted by path). An old
    /// path the new set does not hold at all (a set enumerated afresh, such as
    /// an artifact's spec files, lost it) is `removed`, like one that is missing.
    pub fn between(old: &Inventory, new: &Inventory) -> Comparison {
        let mut changes = Vec::new();
        let mut unchanged = 0;
        let mut olds = old.entries.iter().peekable();
        let dropped = |entry: &Entry, changes: &mut Vec<Change>| {
            let missing = Entry {
                path: entry.path.clone(),
                content: Content::Missing,
            };
            diff(Some(entry), &missing, changes);
        };
        for current in &new.entries {
            while let Some(gone) = olds.next_if(|o| o.path < current.path) {
                dropped(gone, &mut changes);
            }
            let previous = olds.next_if(|o| o.path.cmp(&current.path) == Ordering::Equal);
            let before = changes.len();
            diff(previous, current, &mut changes);
            if changes.len() == before {
                unchanged += 1;
            }
        }
        for gone in olds {
            dropped(gone, &mut changes);
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
pub(crate) fn diff(old: Option<&Entry>, new: &Entry, out: &mut Vec<Change>) {
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
    /// This inventory with its scope moved to `workspace`: the paths stay, the
    /// directory they are relative to changes (a moved checkout, or a record
    /// whose own workspace must not be trusted — the caller says where to look).
    pub fn relocate(mut self, workspace: impl Into<camino::Utf8PathBuf>) -> Inventory {
        self.scope.workspace = workspace.into();
        self
    }

    /// This inventory, re-expanded (by [`Inventory::compare`]) with
    /// `settings`, its workspace's: a record keeps no settings.
    pub fn with_settings(mut self, settings: crate::Settings) -> Inventory {
        self.scope = self.scope.with_settings(settings);
        self
    }

    /// Re-expands this inventory's scope plus every path it held (a vanished
    /// file stays in the set as `missing`, a new file enters).
    pub fn reexpand(&self) -> Result<Inventory> {
        Inventory::expand_with(&self.scope, self.entries.iter().map(|e| &e.path))
    }

    /// Re-expands and compares: is what this inventory describes still on disk?
    pub fn compare(&self) -> Result<Comparison> {
        Ok(Comparison::between(self, &self.reexpand()?))
    }

    /// [`Inventory::compare`] given `current`, an expansion of the same scope just
    /// made (e.g. for another purpose): the same answer without expanding again,
    /// reading only the recorded paths `current` does not hold (they enter the
    /// set as [`Inventory::reexpand`] would add them). With another scope, this
    /// inventory's scope is re-expanded.
    pub fn compare_with(&self, current: &Inventory) -> Result<Comparison> {
        if current.scope != self.scope {
            return self.compare();
        }
        let workspace = current.scope.workspace.as_std_path();
        let mut listed = current.entries.iter().map(|e| &e.path).peekable();
        let mut unlisted = Vec::new();
        for entry in &self.entries {
            while listed.next_if(|path| **path < entry.path).is_some() {}
            if listed.peek() != Some(&&entry.path) {
                let rule = current.scope.task_rule(&entry.path);
                unlisted.push(Entry::read_with(workspace, &entry.path, rule)?);
            }
        }
        if unlisted.is_empty() {
            return Ok(Comparison::between(self, current));
        }
        let mut entries = current.entries.clone();
        entries.append(&mut unlisted);
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        let reexpanded = Inventory {
            fingerprint: fingerprint_sorted(&entries)?,
            entries,
            walked_roots: current.walked_roots.clone(),
            scope: current.scope.clone(),
        };
        Ok(Comparison::between(self, &reexpanded))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::expand::fingerprint::fingerprint_entries;
    use crate::expand::scope::Scope;
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
    fn comparing_with_a_fresh_expansion_answers_as_re_expanding() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for name in ["a", "b", "c", "gone", "sub/x"] {
            std::fs::create_dir_all(d.join(name).parent().unwrap()).unwrap();
            std::fs::write(d.join(name), name).unwrap();
        }
        let mut scope = Scope::new(camino::Utf8Path::from_path(d).unwrap());
        scope.add_root(".").unwrap();
        let recorded = Inventory::expand(&scope).unwrap();
        let now = |recorded: &Inventory| {
            let current = Inventory::expand(&scope).unwrap();
            (
                recorded.compare_with(&current).unwrap(),
                recorded.compare().unwrap(),
            )
        };
        let (with, again) = now(&recorded);
        assert!(with.matches);
        assert_eq!(with, again);
        // Changed, added, removed: the removed path is no longer listed, so it is
        // read (as missing) rather than taken from the expansion.
        std::fs::write(d.join("b"), "new").unwrap();
        std::fs::write(d.join("added"), "+").unwrap();
        std::fs::remove_file(d.join("gone")).unwrap();
        let (with, again) = now(&recorded);
        assert!(!with.matches);
        assert_eq!(with, again);
        let kinds: Vec<(&str, ChangeKind)> =
            with.changes.iter().map(|c| (c.path(), c.change)).collect();
        assert_eq!(
            kinds,
            [
                ("added", ChangeKind::Added),
                ("b", ChangeKind::ContentChanged),
                ("gone", ChangeKind::Removed)
            ]
        );
        // An expansion of another scope is not used: the recorded scope is re-expanded.
        let mut other = scope.clone();
        other.exclude("sub", "not an input").unwrap();
        let narrower = Inventory::expand(&other).unwrap();
        assert_eq!(
            recorded.compare_with(&narrower).unwrap(),
            recorded.compare().unwrap()
        );
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
