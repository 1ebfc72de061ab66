//! OpenSpec changes and artifact graphs, as the doors call them. A change is
//! a name on the workspace, opened in it with the schema it declares (or the
//! one named, or a graph the caller built); nothing here decides a rule, it
//! only picks which core constructor the options name.

use camino::Utf8Path;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Verb, Workspace};
use crate::{
    Artifact, ArtifactGraph, ChangeSet, ChangeTasks, DEFAULT_CHANGES_ROOT, Error, Inventory,
    Result, SchemaSource, Scope, TaskRule,
};

/// Declares the options struct of a verb about one change: `change` first
/// (the positional), then the verb's own fields, then the options every change
/// verb shares (`changes_root`, `schema`, `task_rule`, `graph`). A macro, not
/// `#[serde(flatten)]`: serde cannot deny unknown keys of a flattened struct.
/// The struct gets `open(&self, ws)`, the change opened in `ws`.
macro_rules! change_options {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$field_meta:meta])* pub $field:ident : $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The change's name (its directory under the changes root).
            pub change: String,
            $( $(#[$field_meta])* pub $field: $ty, )*
            /// Where changes live, relative to the workspace.
            #[serde(default = "crate::door::openspec::default_changes_root")]
            pub changes_root: String,
            /// The artifact schema: a name (`openspec/schemas/<name>/schema.yaml`,
            /// else built in) or a path to a `schema.yaml`; default: the
            /// change's `.openspec.yaml`, else `openspec/config.yaml`, else
            /// spec-driven. Not together with `graph`.
            #[serde(default)]
            pub schema: Option<String>,
            /// The rule of the tracked Tasks file; default: the one the `tasks`
            /// approval recorded, else the schema's, else `openspec/config.yaml`'s,
            /// else `task-checkbox-v1`.
            #[serde(default)]
            pub task_rule: Option<crate::TaskRule>,
            /// An artifact graph to use instead of a schema (as `artifact_graph`
            /// returns it). Not together with `schema`.
            #[serde(default)]
            pub graph: Option<crate::door::openspec::GraphSpec>,
        }

        impl $name {
            /// The change these options name, opened in `ws`.
            #[allow(dead_code)]
            fn open(&self, ws: &crate::door::Workspace) -> crate::Result<crate::ChangeSet> {
                crate::door::openspec::open_change(
                    ws,
                    &self.change,
                    &self.changes_root,
                    self.schema.as_deref(),
                    self.task_rule,
                    self.graph.as_ref(),
                )
            }
        }
    };
}
pub(crate) use change_options;

/// The default of every `changes_root` option (serde names a function).
pub(crate) fn default_changes_root() -> String {
    DEFAULT_CHANGES_ROOT.to_owned()
}

/// Opens `change` in `ws`: with `graph` when given, else with `schema` (or the
/// schema the change declares); then `task_rule`, the caller's choice of rule
/// for the tracked file, which the core weighs against the recorded one.
pub(crate) fn open_change(
    ws: &Workspace,
    change: &str,
    changes_root: &str,
    schema: Option<&str>,
    task_rule: Option<TaskRule>,
    graph: Option<&GraphSpec>,
) -> Result<ChangeSet> {
    let mut set = match (schema, graph) {
        (Some(_), Some(_)) => {
            return Err(Error::InvalidArgument {
                message: "give either `schema` (a name or a path) or `graph`, not both".to_owned(),
            });
        }
        (None, Some(graph)) => {
            ChangeSet::with_root(ws.path(), change, changes_root, graph.build("<graph>")?)?
        }
        (schema, None) => ws.change(change, Some(changes_root), schema)?,
    };
    set.chosen_task_rule = task_rule;
    Ok(set)
}

/// An artifact graph given by the caller: what `artifact_graph` returns,
/// passed back. It is rebuilt, so its checks (duplicate ids, unknown
/// `requires`, cycles) hold whatever the caller edited.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    /// The artifacts.
    pub artifacts: Vec<Artifact>,
    /// The generated file whose task checkboxes are progress (`apply.tracks`).
    #[serde(default)]
    pub tracks: Option<String>,
    /// The rule the tracked file is normalized under (the schema's `ledger.task_rule`).
    #[serde(default)]
    pub task_rule: Option<TaskRule>,
    /// The schema the graph was read from (absent for a graph built from artifacts).
    #[serde(default)]
    pub schema: Option<SchemaSource>,
}

impl GraphSpec {
    /// The checked graph; `source` names it in errors.
    fn build(&self, source: &str) -> Result<ArtifactGraph> {
        let graph = ArtifactGraph::new(self.artifacts.clone(), self.tracks.clone(), source)?
            .with_task_rule(self.task_rule);
        Ok(match &self.schema {
            Some(schema) => graph.with_schema(schema.clone()),
            None => graph,
        })
    }
}

change_options! {
    /// The artifact graph the change is evaluated with (its schema's, checked
    /// and in topological order).
    pub struct ChangeGraphOptions {}
}

fn change_graph(ws: &Workspace, o: ChangeGraphOptions) -> Result<ArtifactGraph> {
    Ok(o.open(ws)?.graph)
}

change_options! {
    /// The scope of one artifact's approval set, as an expansion would cover it
    /// (for `design`: `design.md` and the materials it links).
    pub struct ChangeScopeOptions {
        /// The artifact's id, e.g. `design`.
        pub artifact: String,
    }
}

fn change_scope(ws: &Workspace, o: ChangeScopeOptions) -> Result<Scope> {
    o.open(ws)?.scope(&o.artifact)
}

change_options! {
    /// The approval set of one artifact of the change, expanded (for `design`:
    /// `design.md` and the materials it links).
    pub struct ChangeInventoryOptions {
        /// The artifact's id, e.g. `design`.
        pub artifact: String,
    }
}

fn change_inventory(ws: &Workspace, o: ChangeInventoryOptions) -> Result<Inventory> {
    o.open(ws)?.inventory(&o.artifact)
}

change_options! {
    /// The change's tracked Tasks file read under its rule (`task_rule`, else
    /// the one the `tasks` approval recorded, else the schema's, else
    /// `task-checkbox-v1`); a missing file has no tasks (`ledger tasks --json`).
    pub struct ChangeTasksOptions {}
}

fn change_tasks(ws: &Workspace, o: ChangeTasksOptions) -> Result<ChangeTasks> {
    o.open(ws)?.tasks_in(ws.store())
}

/// An artifact graph, checked (duplicate ids, unknown `requires`, cycles) and
/// in topological order: read from a `schema.yaml` file (`schema`), parsed
/// from its text (`yaml`), built from `artifacts`, or, with none of the
/// three, OpenSpec's spec-driven schema.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactGraphOptions {
    /// A `schema.yaml` file to read (relative to the current directory).
    #[serde(default)]
    pub schema: Option<String>,
    /// The text of a `schema.yaml`.
    #[serde(default)]
    pub yaml: Option<String>,
    /// The artifacts of a graph built in code.
    #[serde(default)]
    pub artifacts: Option<Vec<Artifact>>,
    /// Where `yaml` or `artifacts` came from, named in errors; default
    /// `<schema>` for `yaml`, `<graph>` for `artifacts`.
    #[serde(default)]
    pub source: Option<String>,
    /// With `artifacts`: the generated file whose task checkboxes are progress.
    #[serde(default)]
    pub tracks: Option<String>,
    /// With `artifacts`: the rule the tracked file is normalized under.
    #[serde(default)]
    pub task_rule: Option<TaskRule>,
}

fn artifact_graph(o: ArtifactGraphOptions) -> Result<ArtifactGraph> {
    let refused = |message: &str| {
        Err(Error::InvalidArgument {
            message: message.to_owned(),
        })
    };
    let built_only = o.tracks.is_some() || o.task_rule.is_some();
    match (o.schema, o.yaml, o.artifacts) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => refused(
            "give at most one of `schema` (a schema.yaml file), `yaml` (its text) and `artifacts`",
        ),
        (_, _, Some(artifacts)) => {
            let source = o.source.as_deref().unwrap_or("<graph>");
            Ok(ArtifactGraph::new(artifacts, o.tracks, source)?.with_task_rule(o.task_rule))
        }
        _ if built_only => {
            refused("`tracks` and the task rule are given with `artifacts`; a schema names its own")
        }
        (Some(path), None, None) => match o.source {
            Some(_) => {
                refused("`source` names `yaml` or `artifacts`; a schema file is its own source")
            }
            None => ArtifactGraph::read(Utf8Path::new(&path)),
        },
        (None, Some(text), None) => {
            ArtifactGraph::from_schema_yaml(&text, o.source.as_deref().unwrap_or("<schema>"))
        }
        (None, None, None) => match o.source {
            Some(_) => refused("`source` names `yaml` or `artifacts`, and neither is given"),
            None => Ok(ArtifactGraph::spec_driven()),
        },
    }
}

/// Every artifact `artifact` depends on, directly or not, in graph order.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpstreamOptions {
    /// The graph, as `artifact_graph` returns it.
    pub graph: GraphSpec,
    /// The artifact's id.
    pub artifact: String,
}

fn upstream(o: UpstreamOptions) -> Result<Vec<String>> {
    let graph = o.graph.build("<graph>")?;
    Ok(graph
        .upstream(&o.artifact)
        .into_iter()
        .map(str::to_owned)
        .collect())
}

/// Every artifact that depends on `artifact`, directly or not, in graph order.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DownstreamOptions {
    /// The graph, as `artifact_graph` returns it.
    pub graph: GraphSpec,
    /// The artifact's id.
    pub artifact: String,
}

fn downstream(o: DownstreamOptions) -> Result<Vec<String>> {
    let graph = o.graph.build("<graph>")?;
    Ok(graph
        .downstream(&o.artifact)
        .into_iter()
        .map(str::to_owned)
        .collect())
}

/// The tracked Tasks artifact, by OpenSpec's rule: the artifact whose
/// `generates` is the graph's `tracks`, or, when it names none, the artifact
/// with id `tasks`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackedOptions {
    /// The graph, as `artifact_graph` returns it.
    pub graph: GraphSpec,
}

fn tracked(o: TrackedOptions) -> Result<Option<Artifact>> {
    Ok(o.graph.build("<graph>")?.tracked().cloned())
}

/// The artifact of the graph with this id (`unknown-artifact` when none has it).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactOptions {
    /// The graph, as `artifact_graph` returns it.
    pub graph: GraphSpec,
    /// The artifact's id.
    pub id: String,
}

fn artifact(o: ArtifactOptions) -> Result<Artifact> {
    o.graph.build("<graph>")?.artifact(&o.id).cloned()
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("change_graph", &["change"], change_graph),
        Verb::method("change_scope", &["change", "artifact"], change_scope),
        Verb::method(
            "change_inventory",
            &["change", "artifact"],
            change_inventory,
        ),
        Verb::method("change_tasks", &["change"], change_tasks),
        Verb::free("artifact_graph", &[], artifact_graph),
        Verb::free("upstream", &["graph", "artifact"], upstream),
        Verb::free("downstream", &["graph", "artifact"], downstream),
        Verb::free("tracked", &["graph"], tracked),
        Verb::free("artifact", &["graph", "id"], artifact),
    ]
}
