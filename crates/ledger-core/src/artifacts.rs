//! Approval sets (docs/approvals.md): which files each artifact of a change covers.
//!
//! For a change directory `<changes root>/<change>/` every artifact's set is
//! resolved afresh each time: a generated file (`proposal.md`), or every file
//! matching a glob (`specs/**/spec.md`, so that additions and removals are
//! seen); `design` adds the materials its Markdown links; the tracked file
//! (`tasks.md`) gets the task-checkbox normalization.
//!
//! A change is found where OpenSpec keeps it (docs/approvals.md, Artifact sets): active in
//! `<changes root>/<change>/`, or archived in
//! `<changes root>/archive/YYYY-MM-DD-<change>/` once OpenSpec's `archive` moved it.

use camino::Utf8PathBuf;
use globset::GlobBuilder;
use serde::Serialize;

use crate::error::{DisplayPath, Error, Result};
use crate::graph::{Artifact, ArtifactGraph};
use crate::inventory::Inventory;
use crate::materials;
use crate::own_file;
use crate::path::WorkspacePath;
use crate::scope::Scope;
use crate::task_rule::TaskRule;
use crate::walk::walk_root;

/// Where OpenSpec keeps changes, relative to the workspace.
pub const DEFAULT_CHANGES_ROOT: &str = "openspec/changes";

/// The directory below the changes root where OpenSpec's `archive` moves changes.
pub const ARCHIVE_DIR: &str = "archive";

/// Where a change's directory is on disk (docs/approvals.md, Artifact sets), found when the
/// [`ChangeSet`] is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum ChangeLocation {
    /// `<changes root>/<change>/` exists: the change is active.
    Active {
        /// The directory, relative to the workspace.
        directory: String,
    },
    /// Only `<changes root>/archive/YYYY-MM-DD-<change>/` exists: archived.
    Archived {
        /// The archive directory, relative to the workspace.
        directory: String,
    },
    /// Neither exists: a name never created, or a change whose files are gone.
    Missing,
}

impl ChangeLocation {
    /// `active`, `archived` or `missing`, as serialized in `state`.
    pub fn state(&self) -> &'static str {
        match self {
            ChangeLocation::Active { .. } => "active",
            ChangeLocation::Archived { .. } => "archived",
            ChangeLocation::Missing => "missing",
        }
    }

    /// The directory the change was found in, relative to the workspace.
    pub fn directory(&self) -> Option<&str> {
        match self {
            ChangeLocation::Active { directory } | ChangeLocation::Archived { directory } => {
                Some(directory)
            }
            ChangeLocation::Missing => None,
        }
    }
}

/// One change of a workspace and its artifact graph.
///
/// ```no_run
/// use ledger_core::{ArtifactGraph, ChangeSet};
/// let change = ChangeSet::new("/repo", "add-auth", ArtifactGraph::spec_driven()).unwrap();
/// let design = change.inventory("design").unwrap(); // design.md and its linked materials
/// println!("{}", design.fingerprint);
/// ```
#[derive(Debug, Clone)]
pub struct ChangeSet {
    /// The workspace directory.
    pub workspace: Utf8PathBuf,
    /// The change's name (one path segment).
    pub change: String,
    /// The directory holding changes, relative to the workspace.
    pub changes_root: String,
    /// The artifact graph.
    pub graph: ArtifactGraph,
    /// Where the change's directory was found.
    pub location: ChangeLocation,
    /// The rule chosen for the tracked file (a front door's `--task-rule`);
    /// `None` leaves it to the graph's schema, then to the default
    /// ([`ChangeSet::task_rule`]).
    pub chosen_task_rule: Option<TaskRule>,
}

impl ChangeSet {
    /// A change under the default changes root.
    pub fn new(
        workspace: impl Into<Utf8PathBuf>,
        change: &str,
        graph: ArtifactGraph,
    ) -> Result<Self> {
        Self::with_root(workspace, change, DEFAULT_CHANGES_ROOT, graph)
    }

    /// A change under `changes_root` (relative to the workspace), looked up on
    /// disk: active, archived, or missing ([`ChangeSet::require_present`] refuses
    /// the last).
    pub fn with_root(
        workspace: impl Into<Utf8PathBuf>,
        change: &str,
        changes_root: &str,
        graph: ArtifactGraph,
    ) -> Result<Self> {
        if change.contains('/') {
            return Err(Error::InvalidPath {
                path: DisplayPath::from(change),
                reason: "a change name is a single path segment",
            });
        }
        let dir = WorkspacePath::joined(changes_root.trim_end_matches('/'), change)?;
        let changes_root = dir.parents().last().unwrap_or_default().to_owned();
        let mut set = ChangeSet {
            workspace: workspace.into(),
            change: change.to_owned(),
            changes_root,
            graph,
            location: ChangeLocation::Missing,
            chosen_task_rule: None,
        };
        set.location = set.locate()?;
        Ok(set)
    }

    /// The rule the tracked file is normalized under: the one chosen, else the
    /// one the schema names, else `task-checkbox-v1` (docs/approvals.md).
    pub fn task_rule(&self) -> TaskRule {
        self.chosen_task_rule
            .or(self.graph.task_rule())
            .unwrap_or_default()
    }

    /// Refuses a change found neither active nor archived (`unknown-change`).
    pub fn require_present(&self) -> Result<()> {
        if self.location != ChangeLocation::Missing {
            return Ok(());
        }
        Err(Error::UnknownChange {
            change: self.change.clone(),
            active: DisplayPath::from(self.active_directory().as_str()),
            archive: DisplayPath::from(self.in_changes_root(ARCHIVE_DIR).as_str()),
        })
    }

    /// The change's directory, relative to the workspace: where it was found,
    /// or where an active change of this name would be.
    pub fn directory(&self) -> String {
        self.location
            .directory()
            .map_or_else(|| self.active_directory(), str::to_owned)
    }

    /// Where the change is while it is active: `<changes root>/<change>`.
    pub fn active_directory(&self) -> String {
        self.in_changes_root(&self.change)
    }

    fn in_changes_root(&self, name: &str) -> String {
        if self.changes_root.is_empty() {
            name.to_owned()
        } else {
            format!("{}/{}", self.changes_root, name)
        }
    }

    /// Finds the change on disk. Only real directories count: a symlink is not
    /// followed to find one.
    fn locate(&self) -> Result<ChangeLocation> {
        let active = self.active_directory();
        if self.change != ARCHIVE_DIR && self.is_directory(&active)? {
            return Ok(ChangeLocation::Active { directory: active });
        }
        let archive = self.in_changes_root(ARCHIVE_DIR);
        if !self.is_directory(&archive)? {
            return Ok(ChangeLocation::Missing);
        }
        let entries = match std::fs::read_dir(self.workspace.join(&archive)) {
            Ok(entries) => entries,
            Err(e) if is_absent(&e) => return Ok(ChangeLocation::Missing),
            Err(source) => return Err(unreadable(&archive, "read directory", source)),
        };
        let mut found: Vec<String> = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| unreadable(&archive, "read directory", e))?;
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            let name = entry.file_name();
            if let Some(name) = name.to_str()
                && is_dir
                && archived_name_of(name) == Some(self.change.as_str())
            {
                found.push(format!("{archive}/{name}"));
            }
        }
        found.sort();
        match found.len() {
            0 => Ok(ChangeLocation::Missing),
            1 => Ok(ChangeLocation::Archived {
                directory: found.remove(0),
            }),
            _ => Err(Error::InvalidArgument {
                message: format!(
                    "change {:?} was archived more than once ({}); name the archive directory as the change, e.g. --changes-root {archive} --change {}",
                    self.change,
                    found.join(", "),
                    found[0].rsplit('/').next().unwrap_or_default()
                ),
            }),
        }
    }

    fn is_directory(&self, relative: &str) -> Result<bool> {
        match std::fs::symlink_metadata(self.workspace.join(relative)) {
            Ok(meta) => Ok(meta.is_dir()),
            Err(e) if is_absent(&e) => Ok(false),
            Err(source) => Err(unreadable(relative, "stat", source)),
        }
    }

    /// The scope of an artifact's approval set, resolved now. A change found
    /// neither active nor archived has no sets (`unknown-change`).
    pub fn scope(&self, artifact: &str) -> Result<Scope> {
        self.scope_with(artifact, self.task_rule())
    }

    /// [`ChangeSet::scope`], the tracked file normalized under `rule`.
    pub fn scope_with(&self, artifact: &str, rule: TaskRule) -> Result<Scope> {
        self.require_present()?;
        let artifact = self.graph.artifact(artifact)?;
        let mut scope = Scope::new(self.workspace.clone());
        scope.purpose = format!("approval: {} of change {}", artifact.id, self.change);
        for path in self.generated(artifact)? {
            if self.graph.tracks() == Some(relative(&path, &self.directory())) {
                if !rule.is_default() {
                    scope.task_rules.insert(path.clone(), rule);
                }
                scope.normalize.push(path);
            } else {
                scope.paths.push(path);
            }
        }
        if artifact.id == "design" {
            for material in self.design_materials(&scope.paths)? {
                if !scope.paths.contains(&material) {
                    scope.paths.push(material);
                }
            }
        }
        Ok(scope)
    }

    /// Expands an artifact's approval set.
    pub fn inventory(&self, artifact: &str) -> Result<Inventory> {
        Inventory::expand(&self.scope(artifact)?)
    }

    /// Expands an artifact's approval set, the tracked file under `rule`.
    pub fn inventory_with(&self, artifact: &str, rule: TaskRule) -> Result<Inventory> {
        Inventory::expand(&self.scope_with(artifact, rule)?)
    }

    /// The files an artifact generates: one path, or the files matching a glob.
    fn generated(&self, artifact: &Artifact) -> Result<Vec<WorkspacePath>> {
        let dir = self.directory();
        if !artifact.generates.contains(['*', '?', '[', '{']) {
            return Ok(vec![WorkspacePath::joined(&dir, &artifact.generates)?]);
        }
        let glob = GlobBuilder::new(&artifact.generates)
            .literal_separator(true)
            .build()
            .map_err(|e| Error::BadSchema {
                path: DisplayPath::from(artifact.id.as_str()),
                reason: format!("generates {:?}: {e}", artifact.generates),
            })?
            .compile_matcher();
        // Enumerated on disk, like OpenSpec's own CLI (not through Git): a new
        // spec file counts as soon as it exists.
        let scope = Scope::new(self.workspace.clone());
        let files = walk_root(self.workspace.as_std_path(), &dir, &scope, &[])?;
        Ok(files
            .into_iter()
            .filter(|p| glob.is_match(relative(p, &dir)))
            .collect())
    }

    /// The workspace files `design.md` links. A missing one blocks the binding.
    fn design_materials(&self, documents: &[WorkspacePath]) -> Result<Vec<WorkspacePath>> {
        let mut out = Vec::new();
        for document in documents {
            // Read like an input: no symlink followed, a regular file, bounded.
            let bytes = own_file::read_in_workspace(
                self.workspace.as_std_path(),
                document,
                "design document",
                own_file::DOCUMENT_LIMIT,
            )?;
            // A missing design.md is itself a `missing` entry of the set.
            let Some(bytes) = bytes else { continue };
            let text = String::from_utf8(bytes).map_err(|_| Error::AmbiguousMaterial {
                document: DisplayPath::from(document.as_str()),
                material: DisplayPath::from(document.as_str()),
                reason: "the document is not UTF-8, so its links cannot be read".to_owned(),
            })?;
            // An archived design's links were written for the change's active
            // directory (the move put it one level deeper): resolve them there,
            // and find what lay inside the change in the archive.
            let origin = document.moved(&self.directory(), &self.active_directory())?;
            for dest in materials::link_destinations(&text) {
                if let Some(material) = materials::resolve(&origin, &dest)? {
                    let material = material.moved(&self.active_directory(), &self.directory())?;
                    self.check_material(document, &dest, &material)?;
                    out.push(material);
                }
            }
        }
        Ok(out)
    }

    /// A material must exist, and not as a directory. (Special files are refused
    /// later, when the set is read, like any other input.)
    fn check_material(
        &self,
        document: &WorkspacePath,
        dest: &str,
        material: &WorkspacePath,
    ) -> Result<()> {
        match std::fs::symlink_metadata(self.workspace.join(material.as_str())) {
            Ok(meta) if meta.is_dir() => Err(Error::AmbiguousMaterial {
                document: DisplayPath::from(document.as_str()),
                material: DisplayPath::from(dest),
                reason: "it names a directory, not a file".to_owned(),
            }),
            Ok(_) => Ok(()),
            Err(_) => Err(Error::MissingMaterial {
                document: DisplayPath::from(document.as_str()),
                material: DisplayPath::from(material.as_str()),
            }),
        }
    }
}

/// The change an archive directory holds: `2026-12-01-add-auth` → `add-auth`
/// (OpenSpec names it `YYYY-MM-DD-<change>`).
fn archived_name_of(name: &str) -> Option<&str> {
    let (date, change) = (name.get(..11)?, name.get(11..)?);
    let shape = date.bytes().enumerate().all(|(i, b)| match i {
        4 | 7 | 10 => b == b'-',
        _ => b.is_ascii_digit(),
    });
    (shape && !change.is_empty()).then_some(change)
}

/// Not there: absent, or a path through something that is not a directory.
fn is_absent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

fn unreadable(path: &str, operation: &'static str, source: std::io::Error) -> Error {
    Error::Unreadable {
        path: DisplayPath::from(path),
        operation,
        source,
    }
}

/// `path` relative to the directory `dir` (which contains it).
fn relative<'a>(path: &'a WorkspacePath, dir: &str) -> &'a str {
    path.as_str()
        .strip_prefix(dir)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(path.as_str())
}
