//! OpenSpec changes and artifact graphs, as the doors call them. A change is
//! a name on the workspace, opened in it with the schema it declares (or the
//! one named, or a graph the caller built); nothing here decides a rule, it
//! only picks which core constructor the options name.

use camino::Utf8Path;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Verb, Workspace, text};
use crate::{
    Error, Result,
    approval::ChangeTasks,
    expand::{Inventory, Scope},
    openspec::{Artifact, ArtifactGraph, ChangeSet, DEFAULT_CHANGES_ROOT, SchemaSource},
    tasks::TaskRule,
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
            pub task_rule: Option<crate::tasks::TaskRule>,
            /// An artifact graph to use instead of a schema (as `artifact_graph`
            /// returns it). Not together with `schema`.
            #[serde(default)]
            #[schemars(schema_with = "crate::door::records::optional_output_of::<crate::openspec::ArtifactGraph>")]
            pub graph: Option<crate::door::openspec::GraphSpec>,
        }

        impl $name {
            /// The change these options name, opened in `ws`.
            fn open(&self, ws: &crate::door::Workspace) -> crate::Result<crate::openspec::ChangeSet> {
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
    let set = match (schema, graph) {
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
    Ok(set.with_task_rule(task_rule))
}

/// An artifact graph given by the caller: what `artifact_graph` returns,
/// passed back. It is rebuilt, so its checks (duplicate ids, unknown
/// `requires`, cycles) hold whatever the caller edited.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("x-accepts" = "ArtifactGraph"))]
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
    o.open(ws)?.tasks_in(ws.store()?)
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
    #[schemars(schema_with = "super::records::output_of::<ArtifactGraph>")]
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
    #[schemars(schema_with = "super::records::output_of::<ArtifactGraph>")]
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
    #[schemars(schema_with = "super::records::output_of::<ArtifactGraph>")]
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
    #[schemars(schema_with = "super::records::output_of::<ArtifactGraph>")]
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
        Verb::method("change_tasks", &["change"], change_tasks).shown(text::tasks),
        Verb::free("artifact_graph", &[], artifact_graph),
        Verb::free("upstream", &["graph", "artifact"], upstream),
        Verb::free("downstream", &["graph", "artifact"], downstream),
        Verb::free("tracked", &["graph"], tracked),
        Verb::free("artifact", &["graph", "id"], artifact),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::door::testing::code;
    use serde_json::{Value, json};

    use crate::door::{Case, Hooks, respond};

    fn call(ws: Option<&std::path::Path>, verb: &str, options: Value, case: Case) -> Value {
        let ws = ws.map(|p| p.to_str().unwrap());
        let reply = respond(ws, verb, &options.to_string(), case, &Hooks::default());
        serde_json::from_str(&reply).unwrap()
    }

    fn free(verb: &str, options: Value) -> Value {
        call(None, verb, options, Case::Snake)
    }

    const PLAN: &str = "artifacts:\n  - {id: proposal, generates: proposal.md}\n  - {id: plan, generates: todo/*.md, requires: [proposal]}\napply:\n  tracks: todo/*.md\n";

    /// A result passed back (a graph, an inventory) is described as the output
    /// type it comes from, so that the generated wrappers accept that type.
    #[test]
    fn options_that_take_a_result_back_refer_to_its_output_type() {
        let description = crate::door::description();
        let mut marked = 0;
        for (name, options) in description["options"].as_object().unwrap() {
            let Some(properties) = options["properties"].as_object() else {
                continue;
            };
            for (field, output) in [("graph", "ArtifactGraph"), ("inventory", "Inventory")] {
                let Some(property) = properties.get(field) else {
                    continue;
                };
                let reference = format!("#/outputs/{output}");
                let refers = property["$ref"] == reference.as_str()
                    || property["anyOf"][0]["$ref"] == reference.as_str();
                assert!(refers, "{name}.{field}: {property}");
                assert!(description["outputs"].get(output).is_some(), "{output}");
                marked += 1;
            }
        }
        assert!(marked >= 10, "{marked}");
    }

    #[test]
    fn an_artifact_graph_comes_from_one_source_at_most() {
        let ids = |reply: &Value| -> Vec<String> {
            let artifacts = reply["ok"]["artifacts"].as_array().unwrap();
            artifacts
                .iter()
                .map(|a| a["id"].as_str().unwrap().to_owned())
                .collect()
        };
        let spec_driven = free("artifact_graph", json!({}));
        assert_eq!(ids(&spec_driven), ["proposal", "specs", "design", "tasks"]);
        assert_eq!(spec_driven["ok"]["schema"]["name"], "spec-driven");
        let parsed = free(
            "artifact_graph",
            json!({"yaml": PLAN, "source": "plan.yaml"}),
        );
        assert_eq!(ids(&parsed), ["proposal", "plan"]);
        assert_eq!(parsed["ok"]["schema"]["path"], "plan.yaml");
        for refused in [
            json!({"yaml": PLAN, "schema": "x.yaml"}),
            json!({"yaml": PLAN, "artifacts": []}),
            json!({"yaml": PLAN, "tracks": "todo/*.md"}),
            json!({"task_rule": "openspec-checkbox"}),
            json!({"source": "nowhere"}),
            json!({"schema": "x.yaml", "source": "y"}),
        ] {
            let reply = free("artifact_graph", refused.clone());
            assert_eq!(code(&reply), "invalid-argument", "{refused}: {reply}");
        }
        let missing = free(
            "artifact_graph",
            json!({"schema": "/nonexistent/schema.yaml"}),
        );
        assert_eq!(code(&missing), "unreadable", "{missing}");
        // Built in code: checked like a schema's, in topological order.
        let built = free(
            "artifact_graph",
            json!({"artifacts": [
                {"id": "b", "generates": "b.md", "requires": ["a"]},
                {"id": "a", "generates": "a.md"},
            ], "task_rule": "openspec-checkbox"}),
        );
        assert_eq!(ids(&built), ["a", "b"], "{built}");
        assert_eq!(built["ok"]["task_rule"], "openspec-checkbox");
        let cycle = json!({"artifacts": [
            {"id": "a", "generates": "a.md", "requires": ["b"]},
            {"id": "b", "generates": "b.md", "requires": ["a"]},
        ]});
        assert_eq!(code(&free("artifact_graph", cycle)), "graph-cycle");
    }

    #[test]
    fn a_graph_passed_back_answers_the_graph_queries_in_either_case() {
        let graph = free("artifact_graph", json!({"yaml": PLAN}))["ok"].clone();
        let up = free("upstream", json!({"graph": graph, "artifact": "plan"}));
        assert_eq!(up["ok"], json!(["proposal"]));
        let down = free(
            "downstream",
            json!({"graph": graph, "artifact": "proposal"}),
        );
        assert_eq!(down["ok"], json!(["plan"]));
        let tracked = free("tracked", json!({"graph": graph}));
        assert_eq!(tracked["ok"]["id"], "plan");
        let found = free("artifact", json!({"graph": graph, "id": "proposal"}));
        assert_eq!(found["ok"]["generates"], "proposal.md");
        let unknown = free("artifact", json!({"graph": graph, "id": "design"}));
        assert_eq!(code(&unknown), "unknown-artifact");
        // JavaScript's graph has `taskRule`; it reads back under the same name.
        let camel = |verb: &str, options: Value| call(None, verb, options, Case::Camel);
        let rule = json!({"artifacts": [{"id": "tasks", "generates": "t.md"}], "taskRule": "openspec-checkbox"});
        let built = camel("artifactGraph", json!({}));
        assert_eq!(
            code(&built),
            "invalid-argument",
            "verb names are snake_case on the wire"
        );
        let built = camel("artifact_graph", rule)["ok"].clone();
        assert_eq!(built["taskRule"], "openspec-checkbox", "{built}");
        let tracked = camel("tracked", json!({"graph": built}));
        assert_eq!(
            tracked["ok"]["id"], "tasks",
            "without `tracks`, the artifact `tasks`"
        );
        // An edited graph is checked again.
        let mut edited = graph;
        edited["artifacts"][0]["requires"] = json!(["nothing"]);
        let reply = free("upstream", json!({"graph": edited, "artifact": "plan"}));
        assert_eq!(code(&reply), "unknown-artifact", "{reply}");
    }

    #[test]
    fn a_change_opens_with_its_schema_or_a_given_graph_and_the_chosen_rule() {
        let dir = tempfile::tempdir().unwrap();
        let change = dir.path().join("work/add-auth");
        std::fs::create_dir_all(change.join("todo")).unwrap();
        std::fs::write(change.join("proposal.md"), "# Why\n").unwrap();
        std::fs::write(change.join("todo/a.md"), "- [x] 1.1 Done\n").unwrap();
        let graph = free("artifact_graph", json!({"yaml": PLAN}))["ok"].clone();
        let ws = Some(dir.path());
        let opened = call(
            ws,
            "change_graph",
            json!({"change": "add-auth", "changes_root": "work", "graph": graph}),
            Case::Snake,
        );
        assert_eq!(opened["ok"], graph, "{opened}");
        let both = json!({"change": "add-auth", "changes_root": "work", "graph": graph, "schema": "spec-driven"});
        assert_eq!(
            code(&call(ws, "change_graph", both, Case::Snake)),
            "invalid-argument"
        );
        let scope = call(
            ws,
            "change_scope",
            json!({"change": "add-auth", "changesRoot": "work", "graph": graph, "artifact": "plan"}),
            Case::Camel,
        );
        let normalized = &scope["ok"]["normalize"];
        assert_eq!(normalized, &json!(["work/add-auth/todo/a.md"]), "{scope}");
        let inventory = call(
            ws,
            "change_inventory",
            json!({"change": "add-auth", "changes_root": "work", "graph": graph, "artifact": "proposal"}),
            Case::Snake,
        );
        let entries = inventory["ok"]["entries"].as_array().unwrap();
        assert_eq!(
            entries[0]["path"], "work/add-auth/proposal.md",
            "{inventory}"
        );
        // The default changes root holds no such change.
        let tasks = call(
            ws,
            "change_tasks",
            json!({"change": "add-auth"}),
            Case::Snake,
        );
        assert_eq!(code(&tasks), "unknown-change", "{tasks}");
        let rule = call(
            ws,
            "change_tasks",
            json!({"change": "add-auth", "changes_root": "work", "task_rule": "x"}),
            Case::Snake,
        );
        assert_eq!(code(&rule), "invalid-argument", "{rule}");
    }

    #[test]
    fn change_tasks_reads_the_tracked_file_under_the_chosen_rule() {
        let dir = tempfile::tempdir().unwrap();
        let change = dir.path().join("openspec/changes/add-auth");
        std::fs::create_dir_all(&change).unwrap();
        std::fs::write(
            change.join("tasks.md"),
            "## 1. Core\n- [x] 1.1 Add login\n* [ ] 1.2 Add tokens\n",
        )
        .unwrap();
        let ws = Some(dir.path());
        let read = |rule: Option<&str>| {
            let mut options = json!({"change": "add-auth"});
            if let Some(rule) = rule {
                options["task_rule"] = json!(rule);
            }
            call(ws, "change_tasks", options, Case::Snake)["ok"].clone()
        };
        let default = read(None);
        assert_eq!(
            (default["rule"].as_str(), default["total"].as_u64()),
            (Some("task-checkbox-v1"), Some(0))
        );
        let openspec = read(Some("openspec-checkbox"));
        assert_eq!(openspec["rule"], "openspec-checkbox");
        assert_eq!(
            (openspec["total"].as_u64(), openspec["done"].as_u64()),
            (Some(2), Some(1)),
            "{openspec}"
        );
        assert_eq!(openspec["path"], "openspec/changes/add-auth/tasks.md");
    }
}
