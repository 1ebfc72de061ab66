//! Artifact graphs (docs/approvals.md): which artifacts a change has, what files each one
//! generates, and which artifacts it requires.

use std::collections::{BTreeMap, BTreeSet};

use camino::Utf8Path;
use serde::{Deserialize, Serialize};

use sha2::{Digest as _, Sha256};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::entry::Digest;
use crate::expand::fingerprint::Fingerprint;
use crate::tasks::rule::TaskRule;

/// The schema OpenSpec uses when nothing names one.
pub const DEFAULT_SCHEMA: &str = "spec-driven";

/// The OpenSpec version whose built-in schemas ledger embeds.
pub const OPENSPEC_VERSION: &str = "1.13.2";

/// The text of OpenSpec's own `spec-driven` schema, byte-identical to the file the
/// npm package ships (`schemas/spec-driven/schema.yaml`).
pub const SPEC_DRIVEN_YAML: &str = include_str!("../../schemas/spec-driven/schema.yaml");

/// The schemas OpenSpec ships, by name, with their text.
pub const BUILTIN_SCHEMAS: &[(&str, &str)] = &[(DEFAULT_SCHEMA, SPEC_DRIVEN_YAML)];

/// Where an artifact graph came from: the name it was resolved by or the file it
/// was read from, and the SHA-256 of the schema's bytes. Recorded with every
/// approval (docs/records.md), so that a later status re-resolves the same
/// schema and can tell when its file changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SchemaSource {
    /// The name it was resolved by (`spec-driven`, `rapid`); `None` for a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The file it was read from: workspace-relative for a project schema, as
    /// the caller gave it for a path; `None` for a built-in schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `sha256:` and the hex SHA-256 of the schema's bytes (the fingerprint
    /// notation, checked when read); `None` for a graph built in code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<Fingerprint>,
}

impl SchemaSource {
    /// A schema read from `text`, known by `name` and/or `path`.
    pub fn of_text(name: Option<&str>, path: Option<&str>, text: &str) -> Self {
        let digest = Digest(Sha256::digest(text.as_bytes()).into());
        SchemaSource {
            name: name.map(str::to_owned),
            path: path.map(str::to_owned),
            sha256: Some(Fingerprint(digest)),
        }
    }

    /// Where it was found, for people: `built in`, its file, or `built in code`.
    pub fn place(&self) -> &str {
        match (&self.name, &self.path) {
            (_, Some(path)) => path,
            (Some(_), None) => "built in",
            (None, None) => "built in code",
        }
    }

    /// How a person names it: the name, else the path.
    pub fn label(&self) -> &str {
        self.name
            .as_deref()
            .or(self.path.as_deref())
            .unwrap_or("(a graph built in code)")
    }

    /// Whether `other` is the same schema, whatever its bytes: the same name
    /// found in the same place (a project's own `spec-driven` is another schema
    /// than the built-in one), or the same path.
    pub fn same_schema(&self, other: &SchemaSource) -> bool {
        self.name == other.name && self.path == other.path
    }
}

/// One artifact of a graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Artifact {
    /// Its name, e.g. `design`.
    pub id: String,
    /// What it generates, relative to the change directory: a file
    /// (`design.md`) or a glob (`specs/**/*.md`).
    pub generates: String,
    /// The artifacts it depends on.
    #[serde(default)]
    pub requires: Vec<String>,
}

impl Artifact {
    /// Whether it generates a glob (`specs/**/*.md`) rather than one file.
    pub fn is_glob(&self) -> bool {
        self.generates.contains(['*', '?', '[', '{'])
    }
}

/// A DAG of artifacts, kept in topological order (every artifact after the
/// ones it requires), plus the file whose task checkboxes are progress and the
/// schema it was read from.
///
/// ```
/// use ledger_core::openspec::ArtifactGraph;
/// let graph = ArtifactGraph::spec_driven();
/// let order: Vec<&str> = graph.artifacts().iter().map(|a| a.id.as_str()).collect();
/// assert_eq!(order, ["proposal", "specs", "design", "tasks"]);
/// assert_eq!(graph.downstream("proposal"), ["specs", "design", "tasks"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ArtifactGraph {
    artifacts: Vec<Artifact>,
    tracks: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema: Option<SchemaSource>,
    /// The rule the schema names for the tracked file (`ledger.task_rule`).
    #[serde(skip_serializing_if = "Option::is_none")]
    task_rule: Option<TaskRule>,
}

/// The parts of an OpenSpec `schema.yaml` that matter here; other keys
/// (descriptions, templates, instructions) are ignored.
#[derive(Deserialize)]
struct SchemaFile {
    artifacts: Vec<Artifact>,
    #[serde(default)]
    apply: Option<Apply>,
    /// ledger's own keys (OpenSpec ignores keys it does not know).
    #[serde(default)]
    ledger: Option<LedgerKeys>,
}

/// `ledger:` in a `schema.yaml` or the project's `config.yaml` (docs/approvals.md,
/// Choosing the task rule); an unknown key there is refused, so that a misspelt
/// rule is not silently ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LedgerKeys {
    #[serde(default)]
    pub(crate) task_rule: Option<TaskRule>,
}

#[derive(Deserialize)]
struct Apply {
    #[serde(default)]
    tracks: Option<String>,
}

impl ArtifactGraph {
    /// OpenSpec's `spec-driven` schema: `proposal` → {`specs`, `design`} → `tasks`,
    /// with `tasks.md` tracked (its checkboxes are progress, not content). The
    /// graph of the schema text OpenSpec ships (a test holds the two together).
    pub fn spec_driven() -> Self {
        let artifact = |id: &str, generates: &str, requires: &[&str]| Artifact {
            id: id.to_owned(),
            generates: generates.to_owned(),
            requires: requires.iter().map(|r| (*r).to_owned()).collect(),
        };
        ArtifactGraph {
            artifacts: vec![
                artifact("proposal", "proposal.md", &[]),
                artifact("specs", "specs/**/*.md", &["proposal"]),
                artifact("design", "design.md", &["proposal"]),
                artifact("tasks", "tasks.md", &["specs", "design"]),
            ],
            tracks: Some("tasks.md".to_owned()),
            schema: Some(SchemaSource::of_text(
                Some(DEFAULT_SCHEMA),
                None,
                SPEC_DRIVEN_YAML,
            )),
            task_rule: None,
        }
    }

    /// Builds a graph, refusing duplicate ids, unknown `requires` and cycles.
    pub fn new(artifacts: Vec<Artifact>, tracks: Option<String>, source: &str) -> Result<Self> {
        let bad = |reason: String| Error::BadSchema {
            path: DisplayPath::from(source),
            reason,
        };
        let mut ids = BTreeSet::new();
        for a in &artifacts {
            if a.id.is_empty() || a.generates.is_empty() {
                return Err(bad("every artifact needs an id and generates".to_owned()));
            }
            if !ids.insert(a.id.as_str()) {
                return Err(bad(format!("artifact {:?} is defined twice", a.id)));
            }
        }
        for a in &artifacts {
            if let Some(unknown) = a.requires.iter().find(|r| !ids.contains(r.as_str())) {
                return Err(Error::UnknownArtifact {
                    name: unknown.clone(),
                    context: format!("required by {:?} in {source}", a.id),
                });
            }
        }
        Ok(ArtifactGraph {
            artifacts: topological(artifacts)?,
            tracks,
            schema: None,
            task_rule: None,
        })
    }

    /// The same graph, known as coming from `schema`.
    pub fn with_schema(mut self, schema: SchemaSource) -> Self {
        self.schema = Some(schema);
        self
    }

    /// The schema the graph was read from (`None`: built in code by [`ArtifactGraph::new`]).
    pub fn schema(&self) -> Option<&SchemaSource> {
        self.schema.as_ref()
    }

    /// Loads an OpenSpec `schema.yaml` (`artifacts[].id`, `generates`,
    /// `requires`, `apply.tracks`, and ledger's `ledger.task_rule`); `source`
    /// names it in errors and is its [`SchemaSource::path`].
    pub fn from_schema_yaml(text: &str, source: &str) -> Result<Self> {
        let schema: SchemaFile = super::yaml::parse(text).map_err(|reason| Error::BadSchema {
            path: DisplayPath::from(source),
            reason,
        })?;
        let tracks = schema.apply.and_then(|a| a.tracks);
        let task_rule = schema.ledger.and_then(|l| l.task_rule);
        let graph = ArtifactGraph::new(schema.artifacts, tracks, source)?.with_task_rule(task_rule);
        Ok(graph.with_schema(SchemaSource::of_text(None, Some(source), text)))
    }

    /// The graph with `rule` as the rule its tracked file is normalized under
    /// (`None`: the default, `task-checkbox-v1`).
    pub fn with_task_rule(mut self, rule: Option<TaskRule>) -> Self {
        self.task_rule = rule;
        self
    }

    /// The rule the schema names for its tracked file, if it names one.
    pub fn task_rule(&self) -> Option<TaskRule> {
        self.task_rule
    }

    /// Reads a `schema.yaml` file.
    pub fn read(path: &Utf8Path) -> Result<Self> {
        let bytes = crate::own_file::read_file(
            path.as_std_path(),
            "schema",
            crate::own_file::DOCUMENT_LIMIT,
        )?;
        let text = String::from_utf8(bytes).map_err(|_| Error::BadSchema {
            path: DisplayPath::from(path.as_str()),
            reason: "not UTF-8".to_owned(),
        })?;
        Self::from_schema_yaml(&text, path.as_str())
    }

    /// The artifacts, each after everything it requires.
    pub fn artifacts(&self) -> &[Artifact] {
        &self.artifacts
    }

    /// The artifact named `id`.
    pub fn artifact(&self, id: &str) -> Result<&Artifact> {
        self.artifacts
            .iter()
            .find(|a| a.id == id)
            .ok_or_else(|| Error::UnknownArtifact {
                name: id.to_owned(),
                context: format!(
                    "the graph has {}",
                    self.artifacts
                        .iter()
                        .map(|a| a.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
    }

    /// The schema's `apply.tracks`: the generated file whose task checkboxes are
    /// progress.
    pub fn tracks(&self) -> Option<&str> {
        self.tracks.as_deref()
    }

    /// The tracked Tasks artifact, by OpenSpec's rule (`findTrackedTasksArtifact`):
    /// the artifact whose `generates` equals `apply.tracks`, or, when the schema
    /// names none, the artifact with id `tasks`. Every file it generates gets the
    /// task-checkbox normalization.
    pub fn tracked(&self) -> Option<&Artifact> {
        match &self.tracks {
            Some(tracks) => self.artifacts.iter().find(|a| &a.generates == tracks),
            None => self.artifacts.iter().find(|a| a.id == "tasks"),
        }
    }

    /// Every artifact `id` depends on, directly or not, in graph order.
    pub fn upstream(&self, id: &str) -> Vec<&str> {
        let mut needed: BTreeSet<&str> = BTreeSet::from([id]);
        for a in self.artifacts.iter().rev() {
            if needed.contains(a.id.as_str()) {
                needed.extend(a.requires.iter().map(String::as_str));
            }
        }
        self.artifacts
            .iter()
            .map(|a| a.id.as_str())
            .filter(|a| *a != id && needed.contains(a))
            .collect()
    }

    /// Every artifact that depends on `id`, directly or not, in graph order.
    pub fn downstream(&self, id: &str) -> Vec<&str> {
        let mut reached: BTreeSet<&str> = BTreeSet::from([id]);
        let mut out = Vec::new();
        for a in &self.artifacts {
            if a.requires.iter().any(|r| reached.contains(r.as_str())) {
                reached.insert(&a.id);
                out.push(a.id.as_str());
            }
        }
        out
    }
}

/// Kahn's algorithm, stable: among ready artifacts the declaration order wins,
/// so the default graph keeps the order OpenSpec lists.
fn topological(artifacts: Vec<Artifact>) -> Result<Vec<Artifact>> {
    let mut pending: BTreeMap<usize, Artifact> = artifacts.into_iter().enumerate().collect();
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut order = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let ready = pending
            .iter()
            .find(|(_, a)| a.requires.iter().all(|r| done.contains(r)))
            .map(|(i, _)| *i);
        let Some(i) = ready else {
            let names: Vec<&str> = pending.values().map(|a| a.id.as_str()).collect();
            return Err(Error::GraphCycle {
                artifacts: names.join(", "),
            });
        };
        if let Some(a) = pending.remove(&i) {
            done.insert(a.id.clone());
            order.push(a);
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    const OPENSPEC_SPEC_DRIVEN: &str = r#"
name: spec-driven
version: 1
description: Default OpenSpec workflow
artifacts:
  - id: proposal
    generates: proposal.md
    description: Initial proposal
    template: proposal.md
    requires: []
  - id: specs
    generates: "specs/**/*.md"
    requires:
      - proposal
  - id: design
    generates: design.md
    requires:
      - proposal
  - id: tasks
    generates: tasks.md
    requires:
      - specs
      - design
apply:
  requires: [tasks]
  tracks: tasks.md
  instruction: |
    Work through the tasks.
"#;

    #[test]
    fn loads_openspec_schema() {
        let g = ArtifactGraph::from_schema_yaml(OPENSPEC_SPEC_DRIVEN, "schema.yaml").unwrap();
        let ids: Vec<&str> = g.artifacts().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["proposal", "specs", "design", "tasks"]);
        assert_eq!(g.tracks(), Some("tasks.md"));
        assert_eq!(g.downstream("design"), ["tasks"]);
        assert_eq!(g.upstream("tasks"), ["proposal", "specs", "design"]);
        assert_eq!(g.upstream("design"), ["proposal"]);
        assert!(g.upstream("proposal").is_empty());
        assert!(g.downstream("tasks").is_empty());
    }

    #[test]
    fn a_schema_may_name_the_task_rule() {
        assert_eq!(ArtifactGraph::spec_driven().task_rule(), None);
        let text = format!("{OPENSPEC_SPEC_DRIVEN}ledger:\n  task_rule: openspec-checkbox\n");
        let g = ArtifactGraph::from_schema_yaml(&text, "schema.yaml").unwrap();
        assert_eq!(g.task_rule(), Some(TaskRule::OpenspecCheckbox));
        assert_eq!(g.tracks(), Some("tasks.md"));
        for bad in [
            "ledger:\n  task_rule: v9\n",
            "ledger:\n  rule: openspec-checkbox\n",
        ] {
            let text = format!("{OPENSPEC_SPEC_DRIVEN}{bad}");
            let err = ArtifactGraph::from_schema_yaml(&text, "schema.yaml").unwrap_err();
            assert_eq!(err.code(), "bad-schema", "{bad}: {err}");
        }
    }

    #[test]
    fn declaration_order_does_not_matter() {
        let text = "artifacts:\n  - id: b\n    generates: b.md\n    requires: [a]\n  - id: a\n    generates: a.md\n";
        let g = ArtifactGraph::from_schema_yaml(text, "s.yaml").unwrap();
        let ids: Vec<&str> = g.artifacts().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(g.tracks(), None);
    }

    #[test]
    fn cycle_unknown_and_malformed_are_refused() {
        let cycle = "artifacts:\n  - {id: a, generates: a.md, requires: [c]}\n  - {id: b, generates: b.md, requires: [a]}\n  - {id: c, generates: c.md, requires: [b]}\n  - {id: d, generates: d.md}\n";
        let err = ArtifactGraph::from_schema_yaml(cycle, "s.yaml").unwrap_err();
        assert_eq!(err.code(), "graph-cycle");
        assert!(err.to_string().contains("a, b, c"), "{err}");
        let unknown = "artifacts:\n  - {id: a, generates: a.md, requires: [ghost]}\n";
        let err = ArtifactGraph::from_schema_yaml(unknown, "s.yaml").unwrap_err();
        assert_eq!(err.code(), "unknown-artifact");
        assert!(err.to_string().contains("ghost"), "{err}");
        for bad in [
            "artifacts: 7",
            "[unclosed",
            "artifacts:\n  - {id: a}\n",
            "artifacts:\n  - {id: a, generates: x}\n  - {id: a, generates: y}\n",
        ] {
            let err = ArtifactGraph::from_schema_yaml(bad, "s.yaml").unwrap_err();
            assert_eq!(err.code(), "bad-schema", "{bad}: {err}");
            assert!(err.to_string().contains("s.yaml"), "{err}");
        }
    }

    #[test]
    fn unknown_artifact_lookup() {
        let err = ArtifactGraph::spec_driven().artifact("review").unwrap_err();
        assert_eq!(err.code(), "unknown-artifact");
        assert!(
            err.to_string().contains("proposal, specs, design, tasks"),
            "{err}"
        );
    }
}
