//! Artifact schemas as OpenSpec resolves them (docs/approvals.md, Schemas): a name is
//! looked up in the project's `openspec/schemas/<name>/schema.yaml`, then among the
//! schemas ledger knows built in; a path is read as given. Every resolved schema keeps
//! its [`SchemaSource`] (the name or path and the SHA-256 of its bytes), which each
//! approval records.

use camino::Utf8Path;

use crate::error::{DisplayPath, Error, Result};
use crate::openspec::graph::{ArtifactGraph, BUILTIN_SCHEMAS, SchemaSource};
use crate::own_file;
use crate::path::WorkspacePath;

/// What a caller passes as `--schema`: a name, or a path to a `schema.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaRequest<'a> {
    /// A schema name, resolved as OpenSpec resolves it.
    Name(&'a str),
    /// A `schema.yaml` file, read as given.
    Path(&'a Utf8Path),
}

impl<'a> SchemaRequest<'a> {
    /// A value with a `/`, or ending in `.yaml` or `.yml`, is a path (write
    /// `./schema.yaml` for a file in the current directory); anything else is a
    /// name, as `openspec new change --schema NAME` takes it.
    pub fn parse(text: &'a str) -> Self {
        if text.contains('/') || text.ends_with(".yaml") || text.ends_with(".yml") {
            SchemaRequest::Path(Utf8Path::new(text))
        } else {
            SchemaRequest::Name(text)
        }
    }
}

/// Where a schema name came from, for the errors about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameOrigin<'a> {
    /// The caller (`--schema`).
    Caller,
    /// A file of the workspace (`.openspec.yaml`, `openspec/config.yaml`).
    File(&'a str),
    /// The approvals recorded in the change's state.
    Recorded,
    /// Nothing named one: OpenSpec's default.
    Default,
}

/// Resolves a `--schema` value: a path is read, a name is looked up
/// ([`resolve_name`]). `openspec_dir` is the workspace-relative directory
/// holding OpenSpec's `schemas/` (`openspec` for the default layout).
pub fn resolve(workspace: &Utf8Path, openspec_dir: &str, request: &str) -> Result<ArtifactGraph> {
    match SchemaRequest::parse(request) {
        SchemaRequest::Path(path) => read_given(workspace, path),
        SchemaRequest::Name(name) => {
            resolve_name(workspace, openspec_dir, name, NameOrigin::Caller)
        }
    }
}

/// A `schema.yaml` the caller names by path (relative to the current directory).
/// One inside the workspace is read as a workspace file (no symlink followed on
/// the way) and recorded by its workspace-relative path, so that a later status
/// finds it from any directory; one outside is read as given and recorded by its
/// absolute path.
fn read_given(workspace: &Utf8Path, path: &Utf8Path) -> Result<ArtifactGraph> {
    match within_workspace(workspace, path) {
        Some(relative) => read_recorded(workspace, &relative),
        None => {
            let absolute = std::path::absolute(path.as_std_path()).ok();
            let absolute = absolute.as_deref().and_then(Utf8Path::from_path);
            ArtifactGraph::read(absolute.unwrap_or(path))
        }
    }
}

/// `path` relative to the workspace when it lies inside it (its directory
/// resolved, the file name itself not followed).
fn within_workspace(workspace: &Utf8Path, path: &Utf8Path) -> Option<WorkspacePath> {
    let name = path.file_name()?;
    let dir = path.parent().filter(|d| !d.as_str().is_empty());
    let dir = std::fs::canonicalize(dir.map_or(Utf8Path::new("."), |d| d).as_std_path()).ok()?;
    let root = std::fs::canonicalize(workspace.as_std_path()).ok()?;
    let inside = Utf8Path::from_path(dir.strip_prefix(&root).ok()?)?;
    WorkspacePath::new(inside.join(name).as_str()).ok()
}

/// The schema file an approval recorded by path: a workspace-relative one is read
/// in the workspace; an absolute one (outside the workspace) is not read on a
/// record's word — the caller names it again with `--schema`.
pub fn read_recorded_path(workspace: &Utf8Path, path: &str) -> Result<ArtifactGraph> {
    if Utf8Path::new(path).is_absolute() {
        return Err(Error::InvalidArgument {
            message: format!(
                "the approvals were made with the schema file '{}' outside the workspace, \
                 which ledger does not read on a record's word; name that schema file again",
                crate::quote::escape(path.as_bytes())
            ),
        });
    }
    read_recorded(workspace, &WorkspacePath::new(path)?)
}

/// A schema file of the workspace that must be there.
fn read_recorded(workspace: &Utf8Path, relative: &WorkspacePath) -> Result<ArtifactGraph> {
    read_in_project(workspace, relative)?.ok_or_else(|| Error::Unreadable {
        path: DisplayPath::from(relative.as_str()),
        operation: "read schema",
        source: std::io::Error::from(std::io::ErrorKind::NotFound),
    })
}

/// A schema file of the workspace, read without following symlinks and bounded;
/// `None` when there is none. Its source is its workspace-relative path.
fn read_in_project(
    workspace: &Utf8Path,
    relative: &WorkspacePath,
) -> Result<Option<ArtifactGraph>> {
    let bytes = own_file::read_in_workspace(
        workspace.as_std_path(),
        relative,
        "schema",
        own_file::DOCUMENT_LIMIT,
    )?;
    let Some(bytes) = bytes else { return Ok(None) };
    let text = String::from_utf8(bytes).map_err(|_| Error::BadSchema {
        path: DisplayPath::from(relative.as_str()),
        reason: "not UTF-8".to_owned(),
    })?;
    ArtifactGraph::from_schema_yaml(&text, relative.as_str()).map(Some)
}

/// Resolves a schema name as OpenSpec does, with the workspace as the project:
/// `<openspec_dir>/schemas/<name>/schema.yaml`, then the built-in schemas.
///
/// OpenSpec also looks in a user-level directory
/// (`$XDG_DATA_HOME/openspec/schemas`, `~/.local/share/openspec/schemas`);
/// ledger does not: what is bound is the workspace, and a schema outside it
/// would make the same approvals read differently on another machine. A name
/// that is not one path segment is refused before any lookup.
pub fn resolve_name(
    workspace: &Utf8Path,
    openspec_dir: &str,
    name: &str,
    origin: NameOrigin<'_>,
) -> Result<ArtifactGraph> {
    check_name(name, origin)?;
    let relative = WorkspacePath::joined(openspec_dir, &format!("schemas/{name}/schema.yaml"))?;
    if let Some(graph) = read_in_project(workspace, &relative)? {
        // Known by its name too, so that a later status resolves it the same way.
        let source = graph.schema().cloned().map(|source| SchemaSource {
            name: Some(name.to_owned()),
            ..source
        });
        return Ok(match source {
            Some(source) => graph.with_schema(source),
            None => graph,
        });
    }
    match BUILTIN_SCHEMAS.iter().find(|(builtin, _)| *builtin == name) {
        Some((_, text)) => builtin_graph(name, text),
        None => Err(Error::UnknownSchema {
            name: name.to_owned(),
            origin: match origin {
                NameOrigin::Caller => "the caller".to_owned(),
                NameOrigin::File(file) => file.to_owned(),
                NameOrigin::Recorded => "the recorded approvals".to_owned(),
                NameOrigin::Default => "OpenSpec's default".to_owned(),
            },
            project: DisplayPath::from(relative.as_str()),
            builtin: BUILTIN_SCHEMAS
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// The graph of a built-in schema.
fn builtin_graph(name: &str, text: &str) -> Result<ArtifactGraph> {
    let graph = ArtifactGraph::from_schema_yaml(text, &format!("built-in schema {name}"))?;
    Ok(graph.with_schema(SchemaSource::of_text(Some(name), None, text)))
}

/// OpenSpec's rule for a schema name (`getSchemaDir`): not empty, not `.` or
/// `..`, no `/` or `\`, no drive letter.
fn check_name(name: &str, origin: NameOrigin<'_>) -> Result<()> {
    let bytes = name.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    let reason = if name.is_empty() {
        "it is empty"
    } else if name == "." || name == ".." || name.contains(['/', '\\']) || drive {
        "a schema name is one path segment, and may not climb out of openspec/schemas"
    } else if name.contains('\0') {
        "it contains NUL"
    } else {
        return Ok(());
    };
    let message = format!(
        "schema name \"{}\": {reason}",
        crate::quote::escape(name.as_bytes())
    );
    Err(match origin {
        NameOrigin::Caller | NameOrigin::Recorded | NameOrigin::Default => {
            Error::InvalidArgument { message }
        }
        NameOrigin::File(file) => Error::BadOpenspecConfig {
            path: DisplayPath::from(file),
            reason: message,
        },
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_embedded_spec_driven_is_the_default_graph() {
        let parsed = builtin_graph(
            crate::openspec::DEFAULT_SCHEMA,
            crate::openspec::SPEC_DRIVEN_YAML,
        )
        .unwrap();
        let built = ArtifactGraph::spec_driven();
        assert_eq!(parsed.artifacts(), built.artifacts());
        assert_eq!(parsed.tracks(), built.tracks());
        assert_eq!(parsed.schema(), built.schema());
        assert_eq!(parsed.artifact("specs").unwrap().generates, "specs/**/*.md");
    }

    #[test]
    fn names_and_paths() {
        assert_eq!(SchemaRequest::parse("rapid"), SchemaRequest::Name("rapid"));
        for path in ["./rapid", "x/schema.yaml", "schema.yaml", "s.yml", "../x"] {
            assert_eq!(
                SchemaRequest::parse(path),
                SchemaRequest::Path(Utf8Path::new(path))
            );
        }
    }

    #[test]
    fn resolution_order_and_refusals() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Utf8Path::from_path(dir.path()).unwrap();
        let g = resolve_name(ws, "openspec", "spec-driven", NameOrigin::Caller).unwrap();
        assert_eq!(g.schema().unwrap().path, None);
        // A project schema of the same name wins over the built-in one.
        let text = "name: spec-driven\nversion: 1\nartifacts:\n  - {id: a, generates: a.md}\n";
        std::fs::create_dir_all(dir.path().join("openspec/schemas/spec-driven")).unwrap();
        std::fs::write(
            dir.path().join("openspec/schemas/spec-driven/schema.yaml"),
            text,
        )
        .unwrap();
        let g = resolve_name(ws, "openspec", "spec-driven", NameOrigin::Caller).unwrap();
        assert_eq!(g.artifacts().len(), 1);
        assert_eq!(
            g.schema().unwrap(),
            &SchemaSource::of_text(
                Some("spec-driven"),
                Some("openspec/schemas/spec-driven/schema.yaml"),
                text
            )
        );
        let err = resolve_name(ws, "openspec", "rapid", NameOrigin::Caller).unwrap_err();
        assert_eq!(err.code(), "unknown-schema");
        assert!(
            err.to_string()
                .contains("openspec/schemas/rapid/schema.yaml"),
            "{err}"
        );
        // A symlinked schema directory is not followed (OpenSpec follows it).
        std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
        std::fs::write(dir.path().join("elsewhere/schema.yaml"), text).unwrap();
        crate::platform::symlink(
            "../../elsewhere",
            dir.path().join("openspec/schemas/linked"),
        )
        .unwrap();
        let err = resolve_name(ws, "openspec", "linked", NameOrigin::Caller).unwrap_err();
        assert_eq!(err.code(), "symlinked-parent", "{err}");
        for bad in ["", "..", ".", "a\\b", "C:x"] {
            let err = resolve_name(ws, "openspec", bad, NameOrigin::Caller).unwrap_err();
            assert_eq!(err.code(), "invalid-argument", "{bad:?}");
            let err = resolve_name(ws, "openspec", bad, NameOrigin::File("c/.openspec.yaml"))
                .unwrap_err();
            assert_eq!(err.code(), "bad-openspec-config", "{bad:?}");
            assert!(err.to_string().contains("c/.openspec.yaml"), "{err}");
        }
    }
}
