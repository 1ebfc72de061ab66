//! Finalization (docs/lifecycle.md, Finalization): after the terminal mutations
//! (OpenSpec's archive move, the spec sync, the completion evidence, a registry
//! file), the PASS inventory is compared with the disk and every difference is
//! classified: an expected completion output, or a new change that blocks.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::approval::envelope::{Validation, ValidationVerdict};
use crate::error::{Error, Result};
use crate::expand::entry::{Content, Entry};
use crate::expand::fingerprint::{Fingerprint, fingerprint_sorted};
use crate::expand::inventory::Inventory;
use crate::expand::scope::Scope;
use crate::lifecycle::validation::{
    COMPLETION_EVIDENCE, PhaseRecordStanding, phase_records, recorded_validation, workspace_paths,
};
use crate::openspec::change_set::ChangeSet;
use crate::openspec::spec_sync::{Expectation, SpecMismatch, SyncUnverified, judge};
use crate::path::WorkspacePath;
use crate::records::compare::{Change, Comparison, diff};
use crate::records::store::{RecordId, Store};

/// One validated file of the change directory and where the archive move put it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MovedFile {
    /// Where it was validated.
    pub from: WorkspacePath,
    /// Where it is now, byte-identical (same kind, mode and digest).
    pub to: WorkspacePath,
}

/// The archive move of the change directory: every validated file found
/// byte-identical below the archive directory, and gone from where it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ArchiveMove {
    /// The validated directory, e.g. `openspec/changes/add-auth`.
    pub from: String,
    /// The archive directory, e.g. `openspec/changes/archive/2026-12-01-add-auth`.
    pub to: String,
    /// Every file that moved byte-identically.
    pub files: Vec<MovedFile>,
}

/// The answer of `ledger finalize check`: every difference between the PASS
/// inventory and the disk, by class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Finalization {
    /// The change.
    pub change: String,
    /// The state record holding the PASS.
    pub record: RecordId,
    /// The PASS fingerprint.
    pub fingerprint: Fingerprint,
    /// The byte-identical move of the change directory into the archive
    /// (`None`: the change is not archived).
    pub archive_move: Option<ArchiveMove>,
    /// Writes below `openspec/specs/<capability>/` of a capability the change
    /// has deltas for, path by path (the merge's meaning is not judged).
    pub spec_sync: Vec<Change>,
    /// The change's `completion-evidence.md`, active or archived.
    pub completion_evidence: Vec<Change>,
    /// The registry paths the caller named.
    pub registry: Vec<Change>,
    /// Every other difference: a new change, which blocks finalization (a
    /// touched baseline written otherwise than its expected sync among them).
    pub new_changes: Vec<Change>,
    /// Touched baselines that are not what the approved deltas make of the
    /// validated baseline, with the requirement headers that differ: new
    /// changes (docs/lifecycle.md, The spec sync).
    pub spec_mismatches: Vec<SpecMismatch>,
    /// Touched baselines whose sync ledger cannot reproduce: `sync-unverified`,
    /// never clean.
    pub sync_unverified: Vec<SyncUnverified>,
    /// Every phase record the PASS excluded, where it is now; one that is not
    /// a regular file blocks, and each file inside it is a new change.
    pub phase_records: Vec<PhaseRecordStanding>,
    /// Whether there is no new change, no spec mismatch, no unverified sync,
    /// and every phase record is one regular file.
    pub clean: bool,
}

/// Compares `change`'s recorded PASS with the disk after the terminal
/// mutations and classifies every difference (docs/lifecycle.md,
/// Finalization). `expected` are registry files the caller names. Reads only
/// the current envelope; the stored PASS is never rewritten.
///
/// `not-validated` when the envelope records no PASS (none, or a FAIL).
pub fn finalize_check(
    store: &Store,
    change: &ChangeSet,
    expected: &[String],
) -> Result<Finalization> {
    crate::expand::opened_once(|| {
        // Where the change went is judged from the disk now (archive_target), not
        // from where `change` found it: the archive move may have come after.
        let (record, validation) = recorded_validation(store, change)?;
        let refused = |reason: &str| Error::NotValidated {
            change: change.change.clone(),
            reason: reason.to_owned(),
        };
        if validation.verdict != ValidationVerdict::Pass {
            return Err(refused(
                "its last verdict is FAIL; finalization needs a recorded validation PASS",
            ));
        }
        if validation.directory.is_empty() {
            return Err(refused(
                "its verdict was recorded without the validated directory; record the validation again",
            ));
        }
        let registry = workspace_paths(expected)?;
        let (archived, copies) = archive_target(change, &validation)?;
        let baseline = baseline(&validation)?;
        let mut scope = observation_scope(&validation, archived.as_deref(), &registry)?;
        // A copy into the archive while the change stays active is no move: every
        // file of it is looked at, and none is an expected output.
        for copy in &copies {
            scope.add_root(copy)?;
        }
        let scope = scope.with_settings(store.settings().clone());
        let now = Inventory::expand_with(&scope, baseline.entries.iter().map(|e| &e.path))?;
        let mut classes = Classes::default();
        let handled = match &archived {
            Some(to) => classes.archive(&validation.directory, to, &baseline, &now)?,
            None => BTreeSet::new(),
        };
        let comparison = Comparison::between(&baseline, &now);
        for change in comparison.changes {
            // A path neither validated nor on disk (an explicit path absent) is no difference.
            if change.old.is_none() && change.new.content == Content::Missing {
                continue;
            }
            if !handled.contains(&change.new.path) {
                classes.classify(change, &validation, archived.as_deref(), &registry);
            }
        }
        let expectation = Expectation {
            capabilities: &validation.capabilities,
            specs_root: &validation.specs_root,
            spec_sync: validation.spec_sync.as_deref(),
        };
        let sync = judge(expectation, archived.is_some(), &now, &baseline)?;
        classes.mismatched(&sync.mismatches);
        let phase_records =
            observe_phase_records(&validation, archived.as_deref(), &mut classes.new_changes)?;
        classes
            .new_changes
            .sort_by(|a, b| a.new.path.cmp(&b.new.path));
        let archive_move = archived.map(|to| ArchiveMove {
            from: validation.directory.clone(),
            to,
            files: std::mem::take(&mut classes.moved),
        });
        Ok(Finalization {
            change: change.change.clone(),
            record,
            fingerprint: validation.fingerprint,
            archive_move,
            clean: classes.new_changes.is_empty()
                && sync.mismatches.is_empty()
                && sync.unverified.is_empty()
                && phase_records.iter().all(PhaseRecordStanding::stands),
            spec_mismatches: sync.mismatches,
            sync_unverified: sync.unverified,
            phase_records,
            spec_sync: classes.spec_sync,
            completion_evidence: classes.completion_evidence,
            registry: classes.registry,
            new_changes: classes.new_changes,
        })
    })
}

/// Every phase record of the PASS where it is now (moved along with the
/// archive move when it was inside the change directory). The files inside
/// one that became a directory were never validated: each is a new change.
fn observe_phase_records(
    validation: &Validation,
    archived: Option<&str>,
    new_changes: &mut Vec<Change>,
) -> Result<Vec<PhaseRecordStanding>> {
    let workspace = &validation.inventory.scope.workspace;
    let mut out = Vec::new();
    for path in phase_records(validation) {
        let path = match archived {
            Some(to) => WorkspacePath::new(path.as_str())?
                .moved(&validation.directory, to)?
                .as_str()
                .to_owned(),
            None => path,
        };
        let standing = PhaseRecordStanding::observe(workspace, &path)?;
        if !standing.inside.is_empty() {
            let mut inside = Scope::new(workspace.clone());
            for file in &standing.inside {
                inside.add_path(file.as_str())?;
            }
            for entry in &Inventory::expand(&inside)?.entries {
                diff(None, entry, new_changes);
            }
        }
        out.push(standing);
    }
    Ok(out)
}

/// Where the archive move went, and the archive directories that are copies: the
/// archive directories of the change made since the validation; the one of them is
/// the move's target when the validated directory is gone, and every one is a copy
/// when it is still there. Two new ones for a gone directory cannot be told apart.
fn archive_target(
    change: &ChangeSet,
    validation: &Validation,
) -> Result<(Option<String>, Vec<String>)> {
    let mut new: Vec<String> = change
        .archived_directories()?
        .into_iter()
        .filter(|dir| !validation.archives.contains(dir))
        .collect();
    if change.is_directory(&validation.directory)? {
        return Ok((None, new));
    }
    match new.len() {
        0 | 1 => Ok((new.pop(), Vec::new())),
        _ => Err(Error::InvalidArgument {
            message: format!(
                "change {} was archived more than once since its validation ({}); remove the copies that are not the archive move",
                crate::quote::quote(&change.change),
                new.join(", ")
            ),
        }),
    }
}

/// What the disk is compared with: the PASS entries, and the baseline specs of
/// every other capability as they were at validation time.
fn baseline(validation: &Validation) -> Result<Inventory> {
    let pass = &validation.inventory;
    let mut entries: BTreeMap<WorkspacePath, Entry> = pass
        .entries
        .iter()
        .map(|e| (e.path.clone(), e.clone()))
        .collect();
    for entry in validation.specs_baseline.iter().flat_map(|b| &b.entries) {
        entries
            .entry(entry.path.clone())
            .or_insert_with(|| entry.clone());
    }
    let entries: Vec<Entry> = entries.into_values().collect();
    Ok(Inventory {
        scope: pass.scope.clone(),
        walked_roots: pass.walked_roots.clone(),
        fingerprint: fingerprint_sorted(&entries)?,
        entries,
    })
}

/// The PASS scope widened to where completion outputs land: every baseline
/// spec, the archive directory (with the phase-record exclusions moved along),
/// both places of the completion evidence and the registry paths.
fn observation_scope(
    validation: &Validation,
    archived: Option<&str>,
    registry: &[WorkspacePath],
) -> Result<Scope> {
    let mut scope = validation.inventory.scope.clone();
    let directory = validation.directory.as_str();
    if !validation.specs_root.is_empty() {
        scope.add_root(&validation.specs_root)?;
    }
    scope.add_path(&format!("{directory}/{COMPLETION_EVIDENCE}"))?;
    if let Some(to) = archived {
        scope.add_root(to)?;
        scope.add_path(&format!("{to}/{COMPLETION_EVIDENCE}"))?;
        let moved: Vec<(String, String)> = scope
            .exclusions
            .iter()
            .filter_map(|e| {
                let rest = e.path.strip_prefix(directory)?.strip_prefix('/')?;
                Some((format!("{to}/{rest}"), e.reason.clone()))
            })
            .collect();
        for (path, reason) in moved {
            scope.exclude(&path, &reason)?;
        }
    }
    for path in registry {
        scope.add_path(path.as_str())?;
    }
    Ok(scope)
}

/// The differences found so far, by class.
#[derive(Default)]
struct Classes {
    moved: Vec<MovedFile>,
    spec_sync: Vec<Change>,
    completion_evidence: Vec<Change>,
    registry: Vec<Change>,
    new_changes: Vec<Change>,
}

impl Classes {
    /// Pairs every validated file of `from` with its place below `to`: moved
    /// byte-identically, or a new change (the archived file differs or is
    /// absent). Returns the paths it accounted for.
    fn archive(
        &mut self,
        from: &str,
        to: &str,
        baseline: &Inventory,
        now: &Inventory,
    ) -> Result<BTreeSet<WorkspacePath>> {
        let current: BTreeMap<&WorkspacePath, &Entry> =
            now.entries.iter().map(|e| (&e.path, e)).collect();
        let mut handled = BTreeSet::new();
        let validated = baseline
            .entries
            .iter()
            .filter(|e| e.path.is_within(from) && e.content != Content::Missing);
        for entry in validated {
            let target = entry.path.moved(from, to)?;
            let gone = current
                .get(&entry.path)
                .is_none_or(|e| e.content == Content::Missing);
            let at_target = current.get(&target).map_or(Content::Missing, |e| e.content);
            handled.insert(target.clone());
            if gone {
                handled.insert(entry.path.clone());
            }
            if gone && at_target == entry.content {
                self.moved.push(MovedFile {
                    from: entry.path.clone(),
                    to: target,
                });
                continue;
            }
            let validated_there = Entry {
                path: target.clone(),
                content: entry.content,
            };
            let now_there = Entry {
                path: target,
                content: at_target,
            };
            diff(Some(&validated_there), &now_there, &mut self.new_changes);
        }
        Ok(handled)
    }

    /// Moves the writes of mismatched baselines from the spec sync to the new changes.
    fn mismatched(&mut self, mismatches: &[SpecMismatch]) {
        let (bad, good): (Vec<Change>, Vec<Change>) = std::mem::take(&mut self.spec_sync)
            .into_iter()
            .partition(|c| mismatches.iter().any(|m| m.path == c.new.path.as_str()));
        self.spec_sync = good;
        self.new_changes.extend(bad);
    }

    /// Files a difference the archive pairing did not account for.
    fn classify(
        &mut self,
        change: Change,
        validation: &Validation,
        archived: Option<&str>,
        registry: &[WorkspacePath],
    ) {
        let path = &change.new.path;
        let evidence_of = |dir: &str| path.as_str() == format!("{dir}/{COMPLETION_EVIDENCE}");
        // What OpenSpec's archive writes: the spec file of each capability the
        // change has deltas for (a nested capability is another one).
        let in_synced_spec = validation
            .capabilities
            .iter()
            .any(|cap| path.as_str() == format!("{}/{cap}/spec.md", validation.specs_root));
        if evidence_of(&validation.directory) || archived.is_some_and(evidence_of) {
            self.completion_evidence.push(change);
        } else if in_synced_spec {
            self.spec_sync.push(change);
        } else if registry.contains(path) {
            self.registry.push(change);
        } else {
            self.new_changes.push(change);
        }
    }
}
