//! A change's OpenSpec settings (docs/approvals.md, Schemas): its `.openspec.yaml`
//! (`schema:`, `skip_specs:`) and the project's `openspec/config.yaml` (`schema:`),
//! read as OpenSpec reads them and bounded like every file ledger reads for itself.

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::error::{DisplayPath, Error, Result};
use crate::openspec::graph::LedgerKeys;
use crate::own_file;
use crate::path::WorkspacePath;
use crate::tasks::rule::TaskRule;

/// The file OpenSpec writes into every change directory.
pub const CHANGE_METADATA: &str = ".openspec.yaml";

/// What a change's `.openspec.yaml` says (other keys — `created`, `goal`, … — are
/// OpenSpec's and ignored here).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeSettings {
    /// The file, workspace-relative, when the change has one.
    pub file: Option<String>,
    /// The schema the change was created with.
    pub schema: Option<String>,
    /// `skip_specs: true`: the change has no spec deltas by design, so the
    /// artifacts that generate into `specs/` are skipped while they have no files.
    pub skip_specs: bool,
}

#[derive(Deserialize)]
struct MetadataFile {
    #[serde(default, deserialize_with = "super::yaml::string")]
    schema: Option<String>,
    #[serde(default)]
    skip_specs: Option<bool>,
}

impl ChangeSettings {
    /// Reads `<directory>/.openspec.yaml`; a change without one has default
    /// settings. OpenSpec requires `schema:` in the file, so a file without it
    /// is refused (`bad-openspec-config`), as is a `skip_specs` that is not a
    /// boolean.
    pub fn read(workspace: &camino::Utf8Path, directory: &str) -> Result<Self> {
        let path = WorkspacePath::joined(directory, CHANGE_METADATA)?;
        let Some(file) = read_yaml::<MetadataFile>(workspace, &path)? else {
            return Ok(ChangeSettings::default());
        };
        let bad = |reason: &str| Error::BadOpenspecConfig {
            path: DisplayPath::from(path.as_str()),
            reason: reason.to_owned(),
        };
        let file = file.ok_or_else(|| bad("it is empty; OpenSpec requires 'schema: <name>'"))?;
        let schema = file
            .schema
            .filter(|s| !s.is_empty())
            .ok_or_else(|| bad("it has no 'schema: <name>', which OpenSpec requires"))?;
        Ok(ChangeSettings {
            file: Some(path.as_str().to_owned()),
            schema: Some(schema),
            skip_specs: file.skip_specs.unwrap_or(false),
        })
    }
}

/// What the project's `openspec/config.yaml` (or `config.yml`) says about
/// schemas, and ledger's own `ledger:` key there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectConfig {
    /// The file, workspace-relative, when the project has one.
    pub file: Option<String>,
    /// The project's default schema.
    pub schema: Option<String>,
    /// `ledger: {task_rule: …}`: the rule for every change's tracked Tasks file
    /// when neither the caller nor the schema names one. OpenSpec reads only
    /// the keys it knows from this file and ignores this one.
    pub task_rule: Option<TaskRule>,
}

#[derive(Deserialize)]
struct ConfigFile {
    #[serde(default, deserialize_with = "super::yaml::string")]
    schema: Option<String>,
    #[serde(default)]
    ledger: Option<LedgerKeys>,
}

impl ProjectConfig {
    /// Reads `<openspec_dir>/config.yaml`, else `config.yml` (OpenSpec's order).
    /// An empty file names no schema; a `schema:` that is not a non-empty string
    /// (also one without a value, YAML null) is refused (`bad-openspec-config`): OpenSpec would warn and fall back to
    /// `spec-driven`, but the approvals would then silently use another graph.
    pub fn read(workspace: &camino::Utf8Path, openspec_dir: &str) -> Result<Self> {
        for name in ["config.yaml", "config.yml"] {
            let path = WorkspacePath::joined(openspec_dir, name)?;
            let Some(file) = read_yaml::<ConfigFile>(workspace, &path)? else {
                continue;
            };
            let (schema, ledger) = file.map_or((None, None), |f| (f.schema, f.ledger));
            if schema.as_deref() == Some("") {
                return Err(Error::BadOpenspecConfig {
                    path: DisplayPath::from(path.as_str()),
                    reason: "'schema:' is empty (it has no value); name a schema or remove the key"
                        .to_owned(),
                });
            }
            return Ok(ProjectConfig {
                file: Some(path.as_str().to_owned()),
                schema,
                task_rule: ledger.and_then(|l| l.task_rule),
            });
        }
        Ok(ProjectConfig::default())
    }
}

/// Reads and parses a YAML file of the workspace: `None` when it does not exist,
/// `Some(None)` when it holds no document.
fn read_yaml<T: DeserializeOwned>(
    workspace: &camino::Utf8Path,
    path: &WorkspacePath,
) -> Result<Option<Option<T>>> {
    let bytes = own_file::read_in_workspace(
        workspace.as_std_path(),
        path,
        "OpenSpec configuration",
        own_file::DOCUMENT_LIMIT,
    )?;
    let Some(bytes) = bytes else { return Ok(None) };
    let bad = |reason: String| Error::BadOpenspecConfig {
        path: DisplayPath::from(path.as_str()),
        reason,
    };
    let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8".to_owned()))?;
    super::yaml::parse::<Option<T>>(&text)
        .map(Some)
        .map_err(bad)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn ws(dir: &tempfile::TempDir) -> &camino::Utf8Path {
        camino::Utf8Path::from_path(dir.path()).unwrap()
    }

    #[test]
    fn reads_what_openspec_writes() {
        let dir = workspace(&[
            ("c/.openspec.yaml", "schema: rapid\ncreated: 2026-12-01\n"),
            (
                "s/.openspec.yaml",
                "schema: lean\ncreated: 2026-12-01\nskip_specs: true\ngoal: x\n",
            ),
            (
                "openspec/config.yml",
                "schema: rapid\n# context: |\nledger:\n  task_rule: openspec-checkbox\n",
            ),
        ]);
        let c = ChangeSettings::read(ws(&dir), "c").unwrap();
        assert_eq!(c.schema.as_deref(), Some("rapid"));
        assert!(!c.skip_specs);
        assert_eq!(c.file.as_deref(), Some("c/.openspec.yaml"));
        assert!(ChangeSettings::read(ws(&dir), "s").unwrap().skip_specs);
        assert_eq!(
            ChangeSettings::read(ws(&dir), "none").unwrap(),
            ChangeSettings::default()
        );
        let p = ProjectConfig::read(ws(&dir), "openspec").unwrap();
        assert_eq!(p.schema.as_deref(), Some("rapid"));
        assert_eq!(p.file.as_deref(), Some("openspec/config.yml"));
        assert_eq!(p.task_rule, Some(TaskRule::OpenspecCheckbox));
        assert_eq!(
            ProjectConfig::read(ws(&dir), "elsewhere").unwrap(),
            ProjectConfig::default()
        );
    }

    #[test]
    fn malformed_files_are_one_line_errors_naming_the_file() {
        for (file, text) in [
            ("c/.openspec.yaml", ""),
            ("c/.openspec.yaml", "created: 2026-12-01\n"),
            ("c/.openspec.yaml", "schema: [a, b]\n"),
            ("c/.openspec.yaml", "schema: x\nskip_specs: yes please\n"),
            ("c/.openspec.yaml", "schema: x\n  bad: [\n"),
            ("openspec/config.yaml", "schema: ''\n"),
            ("openspec/config.yaml", "schema:\n"),
            ("openspec/config.yaml", "schema: ~\n"),
            ("openspec/config.yaml", "schema: {a: 1}\n"),
            ("openspec/config.yaml", "ledger:\n  task_rule: v9\n"),
            (
                "openspec/config.yaml",
                "ledger:\n  rule: openspec-checkbox\n",
            ),
            // The parser quotes the file: a terminal control or a bidi override
            // in it is escaped, never printed.
            (
                "openspec/config.yaml",
                "ledger:\n  \"\u{1b}[31mfoo\u{202e}\": 1\n",
            ),
        ] {
            let dir = workspace(&[(file, text)]);
            let err = if file.starts_with("c/") {
                ChangeSettings::read(ws(&dir), "c").unwrap_err()
            } else {
                ProjectConfig::read(ws(&dir), "openspec").unwrap_err()
            };
            assert_eq!(err.code(), "bad-openspec-config", "{text:?}: {err}");
            let message = err.to_string();
            assert!(
                message.contains(file) && !message.contains('\n'),
                "{message}"
            );
            assert!(!message.contains(['\u{1b}', '\u{202e}']), "{message:?}");
        }
        // Only comments: no document, no default schema.
        let dir = workspace(&[("openspec/config.yaml", "# nothing yet\n")]);
        assert_eq!(
            ProjectConfig::read(ws(&dir), "openspec").unwrap().schema,
            None
        );
    }
}
