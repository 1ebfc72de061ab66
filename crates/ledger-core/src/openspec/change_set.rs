//! Approval sets (docs/approvals.md): which files each artifact of a change covers.
//!
//! For a change directory `<changes root>/<change>/` every artifact's set is
//! resolved afresh each time: a generated file (`proposal.md`), or every file
//! matching a glob (`specs/**/spec.md`, so that additions and removals are
//! seen); `design` adds the materials its Markdown links; the tracked Tasks
//! artifact (`tasks.md`) gets the task-checkbox normalization.
//!
//! The graph comes from the schema the caller names, else the one the change
//! declares (docs/approvals.md, Schemas): its `.openspec.yaml`, the project's
//! `openspec/config.yaml`, OpenSpec's `spec-driven`.
//!
//! A change is found where OpenSpec keeps it (docs/approvals.md, Artifact sets): active in
//! `<changes root>/<change>/`, or archived in
//! `<changes root>/archive/YYYY-MM-DD-<change>/` once OpenSpec's `archive` moved it.

use camino::{Utf8Path, Utf8PathBuf};
use globset::GlobBuilder;
use serde::Serialize;

use crate::error::{DisplayPath, Error, Result};
use crate::expand::inventory::Inventory;
use crate::expand::scope::Scope;
use crate::expand::walk::walk_root;
use crate::openspec::change_config::{ChangeSettings, ProjectConfig};
use crate::openspec::graph::{Artifact, ArtifactGraph};
use crate::openspec::graph::{DEFAULT_SCHEMA, SchemaSource};
use crate::openspec::materials;
use crate::openspec::schema::{self, NameOrigin};
use crate::own_file;
use crate::path::WorkspacePath;
use crate::tasks::rule::TaskRule;

/// Where OpenSpec keeps changes, relative to the workspace.
pub const DEFAULT_CHANGES_ROOT: &str = "openspec/changes";

/// The directory below the changes root where OpenSpec's `archive` moves changes.
pub const ARCHIVE_DIR: &str = "archive";

/// Where a change's directory is on disk (docs/approvals.md, Artifact sets), found when the
/// [`ChangeSet`] is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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

/// How a change's schema was chosen (docs/approvals.md, Schemas).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum SchemaChoice {
    /// The caller gave it (`--schema`, or a graph).
    Given,
    /// A file of the workspace named it: the change's `.openspec.yaml` or the
    /// project's `openspec/config.yaml`.
    Declared {
        /// The schema's name.
        name: String,
        /// The file that names it, relative to the workspace.
        file: String,
    },
    /// Nothing named one: OpenSpec's default, `spec-driven`.
    Default,
}

impl SchemaChoice {
    /// The schema name the change's files declare (or the default), `None` when
    /// the caller chose.
    pub fn declared_name(&self) -> Option<&str> {
        match self {
            SchemaChoice::Given => None,
            SchemaChoice::Declared { name, .. } => Some(name),
            SchemaChoice::Default => Some(DEFAULT_SCHEMA),
        }
    }
}

/// One change of a workspace and its artifact graph.
///
/// ```no_run
/// use ledger_core::openspec::{ChangeSet, DEFAULT_CHANGES_ROOT};
/// // The schema the change declares (its .openspec.yaml, openspec/config.yaml, spec-driven).
/// let change = ChangeSet::open("/repo", "add-auth", DEFAULT_CHANGES_ROOT, None).unwrap();
/// let design = change.inventory("design").unwrap(); // design.md and its linked materials
/// println!("{}", design.fingerprint);
/// ```
#[derive(Debug, Clone)]
pub struct ChangeSet {
    /// The workspace directory.
    pub(crate) workspace: Utf8PathBuf,
    /// The change's name (one path segment).
    pub(crate) change: String,
    /// The directory holding changes, relative to the workspace.
    pub(crate) changes_root: String,
    /// The artifact graph.
    pub(crate) graph: ArtifactGraph,
    /// Where the change's directory was found.
    pub(crate) location: ChangeLocation,
    /// The change's `.openspec.yaml` settings (default when it has none).
    pub(crate) settings: ChangeSettings,
    /// The project's `openspec/config.yaml` (default when it has none).
    pub(crate) project: ProjectConfig,
    /// How the graph's schema was chosen.
    pub(crate) schema_choice: SchemaChoice,
    /// The rule chosen for the tracked file (a front door's `--task-rule`);
    /// `None` leaves it to the graph's schema, then to the default
    /// ([`ChangeSet::task_rule`]). Given once, with [`ChangeSet::with_task_rule`].
    chosen_task_rule: Option<TaskRule>,
    /// The settings of the workspace it is opened in: its scopes and store
    /// carry them ([`ChangeSet::with_settings`]).
    workspace_settings: crate::Settings,
}

impl ChangeSet {
    /// The workspace directory.
    pub fn workspace(&self) -> &Utf8Path {
        &self.workspace
    }

    /// The change's name (one path segment).
    pub fn change(&self) -> &str {
        &self.change
    }

    /// The directory holding changes, relative to the workspace.
    pub fn changes_root(&self) -> &str {
        &self.changes_root
    }

    /// The artifact graph.
    pub fn graph(&self) -> &ArtifactGraph {
        &self.graph
    }

    /// Where the change's directory was found.
    pub fn location(&self) -> &ChangeLocation {
        &self.location
    }

    /// The change's `.openspec.yaml` settings (default when it has none).
    pub fn settings(&self) -> &ChangeSettings {
        &self.settings
    }

    /// The project's `openspec/config.yaml` (default when it has none).
    pub fn project(&self) -> &ProjectConfig {
        &self.project
    }

    /// How the graph's schema was chosen.
    pub fn schema_choice(&self) -> &SchemaChoice {
        &self.schema_choice
    }
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

    /// A change under `changes_root` (relative to the workspace) with the graph
    /// of `schema` (a name or a path: [`schema::SchemaRequest`]), or, without
    /// one, of the schema the change declares: its `.openspec.yaml` `schema:`,
    /// else the project's `config.yaml` `schema:`, else `spec-driven`.
    pub fn open(
        workspace: impl Into<Utf8PathBuf>,
        change: &str,
        changes_root: &str,
        schema: Option<&str>,
    ) -> Result<Self> {
        let mut set = Self::with_root(
            workspace,
            change,
            changes_root,
            ArtifactGraph::spec_driven(),
        )?;
        match schema {
            Some(request) => {
                set.graph = schema::resolve(&set.workspace, &set.openspec_dir(), request)?;
            }
            None => {
                let (graph, choice) = set.declared_schema()?;
                set.graph = graph;
                set.schema_choice = choice;
            }
        }
        Ok(set)
    }

    /// The change, its tracked Tasks file read and approved under `rule` (a
    /// front door's `--task-rule`; `None`: the recorded, the schema's, the
    /// project's, the default rule, in that order).
    pub fn with_task_rule(self, rule: Option<TaskRule>) -> Self {
        ChangeSet {
            chosen_task_rule: rule,
            ..self
        }
    }

    /// The change, in a workspace of `settings`: every scope it builds and
    /// the store it opens carry them.
    pub fn with_settings(self, settings: crate::Settings) -> Self {
        ChangeSet {
            workspace_settings: settings,
            ..self
        }
    }

    /// The settings of the workspace it is opened in.
    pub fn workspace_settings(&self) -> &crate::Settings {
        &self.workspace_settings
    }

    /// The rule the caller chose for the tracked Tasks file, if any.
    pub fn chosen_task_rule(&self) -> Option<TaskRule> {
        self.chosen_task_rule
    }

    /// The graph of the schema the change declares, and how it was chosen.
    fn declared_schema(&self) -> Result<(ArtifactGraph, SchemaChoice)> {
        let declared = match (&self.settings.schema, &self.settings.file) {
            (Some(name), Some(file)) => Some((name.clone(), file.clone())),
            _ => self.project.schema.clone().zip(self.project.file.clone()),
        };
        let Some((name, file)) = declared else {
            // Resolved like any name: a project's own `spec-driven` comes first.
            let graph = schema::resolve_name(
                &self.workspace,
                &self.openspec_dir(),
                DEFAULT_SCHEMA,
                NameOrigin::Default,
            )?;
            return Ok((graph, SchemaChoice::Default));
        };
        let graph = schema::resolve_name(
            &self.workspace,
            &self.openspec_dir(),
            &name,
            NameOrigin::File(&file),
        )?;
        Ok((graph, SchemaChoice::Declared { name, file }))
    }

    /// The same change with the graph of the schema its approvals recorded,
    /// resolved again: by name as OpenSpec resolves it, or from the recorded file.
    pub fn with_recorded_schema(&self, recorded: &SchemaSource) -> Result<ChangeSet> {
        let graph = match (&recorded.name, &recorded.path) {
            (Some(name), _) => schema::resolve_name(
                &self.workspace,
                &self.openspec_dir(),
                name,
                NameOrigin::Recorded,
            )?,
            (None, Some(path)) => schema::read_recorded_path(&self.workspace, path)?,
            (None, None) => ArtifactGraph::spec_driven(),
        };
        Ok(ChangeSet {
            graph,
            ..self.clone()
        })
    }

    /// The directory holding OpenSpec's `schemas/` and `config.yaml`: the parent
    /// of the changes root (`openspec` for `openspec/changes`), relative to the
    /// workspace (empty: the workspace itself).
    pub fn openspec_dir(&self) -> String {
        self.changes_root
            .rsplit_once('/')
            .map_or_else(String::new, |(parent, _)| parent.to_owned())
    }

    /// Whether the change skips `artifact`: its `.openspec.yaml` sets
    /// `skip_specs: true` and the artifact generates into `specs/` (OpenSpec's
    /// rule is the path, not the id). A skipped artifact without files needs no
    /// approval.
    pub fn skips(&self, artifact: &Artifact) -> bool {
        self.settings.skip_specs && generates_into_specs(&artifact.generates)
    }

    /// A change under `changes_root` (relative to the workspace) with `graph`,
    /// looked up on disk: active, archived, or missing ([`ChangeSet::require_present`]
    /// refuses the last). Its `.openspec.yaml` is read for its settings.
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
            settings: ChangeSettings::default(),
            project: ProjectConfig::default(),
            schema_choice: SchemaChoice::Given,
            chosen_task_rule: None,
            workspace_settings: crate::Settings::default(),
        };
        set.location = set.locate()?;
        set.project = ProjectConfig::read(&set.workspace, &set.openspec_dir())?;
        if set.location != ChangeLocation::Missing {
            set.settings = ChangeSettings::read(&set.workspace, &set.directory())?;
        }
        Ok(set)
    }

    /// The rule the tracked file is normalized under: the one chosen, else the
    /// one the schema names, else the project's `config.yaml` `ledger.task_rule`,
    /// else, in a project that has a `config.yaml` (`openspec init` writes
    /// one, and its changes carry OpenSpec's own task lines, `- [ ] 1.1 …`),
    /// `openspec-checkbox`, else `task-checkbox-v1` (docs/approvals.md).
    pub fn task_rule(&self) -> TaskRule {
        let initialized = self
            .project
            .file
            .is_some()
            .then_some(TaskRule::OpenspecCheckbox);
        self.chosen_task_rule
            .or(self.graph.task_rule())
            .or(self.project.task_rule)
            .or(initialized)
            .unwrap_or_default()
    }

    /// Refuses a change found neither active nor archived (`unknown-change`).
    pub fn require_present(&self) -> Result<()> {
        if self.location != ChangeLocation::Missing {
            return Ok(());
        }
        Err(Error::UnknownChange {
            change: self.change.clone(),
            // Absolute, so that a wrong workspace shows (no I/O: as given, joined).
            workspace: DisplayPath::from_bytes(
                std::path::absolute(self.workspace.as_std_path())
                    .unwrap_or_else(|_| self.workspace.clone().into_std_path_buf())
                    .as_os_str()
                    .as_encoded_bytes(),
            ),
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

    /// This change as it is on disk now: a [`ChangeSet`] made before an archive
    /// move (or a removal) still says where the change was when it was made.
    pub(crate) fn located_now(&self) -> Result<ChangeSet> {
        let mut set = self.clone();
        set.location = set.locate()?;
        Ok(set)
    }

    /// Finds the change on disk. Only real directories count: a symlink is not
    /// followed to find one.
    fn locate(&self) -> Result<ChangeLocation> {
        let active = self.active_directory();
        if self.change != ARCHIVE_DIR && self.is_directory(&active)? {
            return Ok(ChangeLocation::Active { directory: active });
        }
        // A name used again is archived again, under a later date: the newest
        // archive is the change the (one, per name) state describes.
        Ok(match self.archived_directories()?.pop() {
            Some(directory) => ChangeLocation::Archived { directory },
            None => ChangeLocation::Missing,
        })
    }

    /// Every archive directory of this change (`archive/YYYY-MM-DD-<change>`, real
    /// directories only), in name order, whether or not the change is active too.
    pub(crate) fn archived_directories(&self) -> Result<Vec<String>> {
        let archive = self.in_changes_root(ARCHIVE_DIR);
        if !self.is_directory(&archive)? {
            return Ok(Vec::new());
        }
        let entries = match std::fs::read_dir(self.workspace.join(&archive)) {
            Ok(entries) => entries,
            Err(e) if is_absent(&e) => return Ok(Vec::new()),
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
        Ok(found)
    }

    /// Whether `relative` is a real directory of the workspace (a symlink is not).
    pub(crate) fn is_directory(&self, relative: &str) -> Result<bool> {
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
        let mut scope =
            Scope::new(self.workspace.clone()).with_settings(self.workspace_settings.clone());
        scope.purpose = format!("approval: {} of change {}", artifact.id, self.change);
        let tracked = self.graph.tracked().is_some_and(|t| t.id == artifact.id);
        for path in self.generated(artifact)? {
            if tracked {
                scope.push_tasks(path, rule);
            } else {
                scope.paths.push(path);
            }
        }
        if artifact.id == "design" {
            // The design documents, wherever they sit (tracked ones are normalized).
            let documents: Vec<WorkspacePath> = scope
                .paths
                .iter()
                .chain(scope.tasks_paths())
                .cloned()
                .collect();
            for material in self.design_materials(&documents)? {
                if !scope.paths.contains(&material) && scope.task_rule(&material).is_none() {
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
        if !artifact.is_glob() {
            return Ok(vec![WorkspacePath::joined(&dir, &artifact.generates)?]);
        }
        let glob = generates_matcher(artifact, false)?;
        // Enumerated on disk, like OpenSpec's own CLI (not through Git): a new
        // spec file counts as soon as it exists.
        let scope = Scope::new(self.workspace.clone());
        let files = walk_root(self.workspace.as_std_path(), &dir, &scope, &[])?;
        let mut matched: Vec<WorkspacePath> = files
            .into_iter()
            .filter(|p| {
                let relative = relative(p, &dir);
                glob.is_match(relative) && !dot_hidden(relative, &artifact.generates)
            })
            .collect();
        // In byte order, so that the scope reads the same whatever order the
        // directory lists its entries in.
        matched.sort();
        Ok(matched)
    }

    /// Whether `relative`, a path below the change directory, is one an
    /// artifact generates (in any letter case, as a case-insensitive file
    /// system would take it), whether or not it exists now.
    pub(crate) fn generates_path(&self, relative: &str) -> Result<bool> {
        for artifact in self.graph.artifacts() {
            if generates_matcher(artifact, true)?.is_match(relative) {
                return Ok(true);
            }
        }
        Ok(false)
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
            for dest in materials::link_destinations(document, &text)? {
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

/// The changes a workspace holds on disk under `changes_root` (relative to
/// the workspace), as OpenSpec's `list` finds them: every real directory of
/// the changes root but `archive` is an active change, every
/// `archive/YYYY-MM-DD-<change>` directory an archived one. Symlinks are not
/// followed, and names that are not UTF-8 or start with `.` are no change.
/// Each name once, sorted; a name both active and archived is listed active.
pub fn changes_on_disk(
    workspace: &Utf8Path,
    changes_root: &str,
) -> Result<Vec<(String, ChangeLocation)>> {
    let root = changes_root.trim_end_matches('/');
    let directories = |relative: &str| -> Result<Vec<String>> {
        let entries = match std::fs::read_dir(workspace.join(relative)) {
            Ok(entries) => entries,
            Err(e) if is_absent(&e) => return Ok(Vec::new()),
            Err(source) => return Err(unreadable(relative, "read directory", source)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| unreadable(relative, "read directory", e))?;
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if let Some(name) = entry.file_name().to_str()
                && is_dir
                && !name.starts_with('.')
            {
                names.push(name.to_owned());
            }
        }
        names.sort();
        Ok(names)
    };
    let join = |name: &str| {
        if root.is_empty() {
            name.to_owned()
        } else {
            format!("{root}/{name}")
        }
    };
    let mut found: std::collections::BTreeMap<String, ChangeLocation> = Default::default();
    let archive = join(ARCHIVE_DIR);
    for name in directories(&archive)? {
        if let Some(change) = archived_name_of(&name) {
            // Name order is date order: the newest archive is the change.
            found.insert(
                change.to_owned(),
                ChangeLocation::Archived {
                    directory: format!("{archive}/{name}"),
                },
            );
        }
    }
    for name in directories(root)? {
        if name != ARCHIVE_DIR {
            let directory = join(&name);
            found.insert(name, ChangeLocation::Active { directory });
        }
    }
    Ok(found.into_iter().collect())
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

/// Whether a glob skips `relative` as OpenSpec's glob library does by default
/// (fast-glob, `dot: false`): a file or directory whose name starts with `.`
/// matches only a pattern that spells a leading `.` itself.
fn dot_hidden(relative: &str, glob: &str) -> bool {
    let spelled = glob.split('/').any(|segment| segment.starts_with('.'));
    !spelled && relative.split('/').any(|segment| segment.starts_with('.'))
}

/// The matcher of what `artifact` generates, relative to the change directory
/// (`*` stays within one segment).
fn generates_matcher(artifact: &Artifact, case_insensitive: bool) -> Result<globset::GlobMatcher> {
    Ok(GlobBuilder::new(&artifact.generates)
        .literal_separator(true)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|e| Error::BadSchema {
            path: DisplayPath::from(artifact.id.as_str()),
            reason: format!("generates {:?}: {e}", artifact.generates),
        })?
        .compile_matcher())
}

/// OpenSpec's `isSpecsArtifactPath`: `generates`, normalized, lies below `specs/`.
fn generates_into_specs(generates: &str) -> bool {
    let mut segments = generates.split('/').filter(|s| !s.is_empty() && *s != ".");
    segments.next() == Some("specs") && segments.next().is_some()
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

/// The capabilities `change` has delta specs for: the directory of every
/// `specs/**/spec.md` below the change directory, relative to `specs/`
/// (`auth`, `api/tokens`), sorted.
pub fn capabilities(change: &ChangeSet) -> Result<Vec<String>> {
    let specs = format!("{}/specs", change.directory());
    let scope = Scope::new(change.workspace.clone());
    let files = walk_root(change.workspace.as_std_path(), &specs, &scope, &[])?;
    let mut out: Vec<String> = files
        .iter()
        .filter(|p| p.file_name() == "spec.md")
        .filter_map(|p| p.dir().strip_prefix(specs.as_str())?.strip_prefix('/'))
        .map(str::to_owned)
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// The directory of the baseline specs of `change`'s project: `specs` next to
/// the changes root (`openspec/specs` for `openspec/changes`).
pub fn specs_root(change: &ChangeSet) -> String {
    match change.openspec_dir().as_str() {
        "" => "specs".to_owned(),
        dir => format!("{dir}/specs"),
    }
}
