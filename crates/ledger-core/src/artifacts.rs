//! Approval sets (SPEC §9): which files each artifact of a change covers.
//!
//! For a change directory `<changes root>/<change>/` every artifact's set is
//! resolved afresh each time: a generated file (`proposal.md`), or every file
//! matching a glob (`specs/**/spec.md`, so that additions and removals are
//! seen); `design` adds the materials its Markdown links; the tracked file
//! (`tasks.md`) gets the task-checkbox normalization.

use camino::Utf8PathBuf;
use globset::GlobBuilder;

use crate::error::{DisplayPath, Error, Result};
use crate::graph::{Artifact, ArtifactGraph};
use crate::inventory::Inventory;
use crate::materials;
use crate::path::WorkspacePath;
use crate::scope::Scope;
use crate::walk::walk_root;

/// Where OpenSpec keeps changes, relative to the workspace.
pub const DEFAULT_CHANGES_ROOT: &str = "openspec/changes";

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

    /// A change under `changes_root` (relative to the workspace).
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
        Ok(ChangeSet {
            workspace: workspace.into(),
            change: change.to_owned(),
            changes_root,
            graph,
        })
    }

    /// The change directory, relative to the workspace.
    pub fn directory(&self) -> String {
        if self.changes_root.is_empty() {
            self.change.clone()
        } else {
            format!("{}/{}", self.changes_root, self.change)
        }
    }

    /// The scope of an artifact's approval set, resolved now.
    pub fn scope(&self, artifact: &str) -> Result<Scope> {
        let artifact = self.graph.artifact(artifact)?;
        let mut scope = Scope::new(self.workspace.clone());
        scope.purpose = format!("approval: {} of change {}", artifact.id, self.change);
        for path in self.generated(artifact)? {
            if self.graph.tracks() == Some(relative(&path, &self.directory())) {
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
            let full = self.workspace.join(document.as_str());
            let text = match std::fs::read(&full) {
                Ok(bytes) => String::from_utf8(bytes).map_err(|_| Error::AmbiguousMaterial {
                    document: DisplayPath::from(document.as_str()),
                    material: DisplayPath::from(document.as_str()),
                    reason: "the document is not UTF-8, so its links cannot be read".to_owned(),
                })?,
                // A missing design.md is itself a `missing` entry of the set.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => {
                    return Err(Error::Unreadable {
                        path: DisplayPath::from(document.as_str()),
                        operation: "read",
                        source,
                    });
                }
            };
            for dest in materials::link_destinations(&text) {
                if let Some(material) = materials::resolve(document, &dest)? {
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

/// `path` relative to the directory `dir` (which contains it).
fn relative<'a>(path: &'a WorkspacePath, dir: &str) -> &'a str {
    path.as_str()
        .strip_prefix(dir)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(path.as_str())
}
