//! The agent's door: the tools an MCP server (`ledger mcp`) and the OpenCode
//! plugin offer a model, each one a verb of [`registry`](super::registry)
//! under a name and a description written for a model.
//!
//! Nothing about a tool's arguments or result is written here: its input
//! schema is its verb's options schema and its output schema its verb's
//! result schema, both taken from [`description`](super::description), made
//! self-contained (the definitions they reach, under `$defs`). A field added
//! to a result is a field of the tool's output with no edit here.
//!
//! A tool is one of three kinds ([`Effect`]): it reads, it writes records, or
//! it runs a command. A read-only server lists only the readers and refuses
//! the others by name, and refuses the arguments with which a reader would
//! run a command (a prerequisite observed by a shell command,
//! `allow_env_cmd`), so that `--read-only` never writes and never runs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Hooks, Verb, Workspace};
use crate::{Error, Result};

/// What calling a tool can do to the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Reads only (a digest cache may be refreshed, which changes no answer).
    Reads,
    /// Writes a record to the store.
    Writes,
    /// Runs a command of the workspace (a gate), and records its evidence.
    Runs,
}

/// One tool: its name, the verb it calls, what it can do, and what a model is
/// told about it.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The tool's name (`gate_run`).
    pub name: &'static str,
    /// The door verb it calls (`run_declared_gate`).
    pub verb: &'static str,
    /// What calling it can do.
    pub effect: Effect,
    /// What it answers, when to call it, and what its answer means.
    pub description: &'static str,
}

/// Every tool, in the order a model reads them.
pub const TOOLS: &[Tool] = &[
    Tool {
        name: "check",
        verb: "check",
        effect: Effect::Reads,
        description: "Call this first, at the start of every session and after any restart: what is recorded for every active OpenSpec change (or one, with `change`), and what to do next. It answers from the records and the files on disk, never from memory: which approvals still stand, which fell because files changed (with the paths), which gates are fresh or stale, and the next step. A result that lists work to do is a normal answer, not an error.",
    },
    Tool {
        name: "changes",
        verb: "changes",
        effect: Effect::Reads,
        description: "List the active OpenSpec changes with, for each, its artifacts' approval states and its tasks' progress. Use it to pick a change; `check` says what to do next.",
    },
    Tool {
        name: "status",
        verb: "status",
        effect: Effect::Reads,
        description: "The approval state of every artifact of one change (approved, changed since approval with the changed paths, never approved, or fallen because an upstream artifact changed). Call it before approving, or to see why an approval no longer stands.",
    },
    Tool {
        name: "tasks",
        verb: "change_tasks",
        effect: Effect::Reads,
        description: "The tasks of one change as its tasks file lists them, each with its checkbox state, and the counts done and open.",
    },
    Tool {
        name: "approve",
        verb: "approve",
        effect: Effect::Writes,
        description: "Record that a person approved one artifact of a change (proposal, specs, design, tasks) as its files are now. Only call it when the person has approved; pass `reviewed` (the fingerprint the person saw, from `status`) so that a file changed since is refused with the changed paths. Approving an artifact makes the approvals downstream of it re-checkable; it never approves them.",
    },
    Tool {
        name: "state_show",
        verb: "current_state",
        effect: Effect::Reads,
        description: "The recorded lifecycle state of one change (stage, blockers, checks, the record id to pass as `expected` when you set it). Read it to resume from the record instead of from memory.",
    },
    Tool {
        name: "state_set",
        verb: "advance_state",
        effect: Effect::Writes,
        description: "Record a new lifecycle state for one change (its stage, blockers, areas, checks). Pass `expected` (the record id `state_show` gave, or `no-record`) so that a state written meanwhile by another agent is refused instead of overwritten.",
    },
    Tool {
        name: "gate_check",
        verb: "check_declared_gate",
        effect: Effect::Reads,
        description: "Whether the evidence of one gate declared in ledger.toml is fresh: the same files (by content), command and prerequisites as when it last passed. Stale evidence comes with every reason. It runs nothing; call `gate_run` to refresh a stale gate.",
    },
    Tool {
        name: "gate_run",
        verb: "run_declared_gate",
        effect: Effect::Runs,
        description: "Run one gate declared in ledger.toml (its command, supervised with its timeout, in its own process group) and record the evidence; when fresh evidence already exists it is reused and nothing runs. A gate that fails is a result (`passed: false`, with its exit status), not a tool error. Long runs send progress; cancelling the call stops the command.",
    },
    Tool {
        name: "gate_show",
        verb: "gate_output",
        effect: Effect::Reads,
        description: "The output (stdout and stderr, as recorded) of one gate's latest run, to read why it failed.",
    },
    Tool {
        name: "validate_record",
        verb: "record_validation",
        effect: Effect::Writes,
        description: "Record a validation verdict (PASS or FAIL) for one change, bound to the files it was made on and to the gates' evidence it relied on. Call it once validation is done; any later change to those files makes the verdict stale.",
    },
    Tool {
        name: "validate_check",
        verb: "check_validation",
        effect: Effect::Reads,
        description: "Whether the recorded validation verdict of one change still stands for the files and gates as they are now, and if not, why.",
    },
    Tool {
        name: "finalize_check",
        verb: "finalize_check",
        effect: Effect::Reads,
        description: "Whether one change may be archived now: every approval standing, the tasks done, the validation PASS fresh. Lists every blocker; an empty list means it may be archived.",
    },
    Tool {
        name: "verdict_record",
        verb: "verdict_record",
        effect: Effect::Writes,
        description: "Record an audit's verdict (a word of the auditor's, with findings and report files) bound to the content of a scope of files.",
    },
    Tool {
        name: "verdict_check",
        verb: "verdict_check",
        effect: Effect::Reads,
        description: "Whether the latest verdict of an audit still stands for its scope's files as they are now, and which files changed if not.",
    },
    Tool {
        name: "verdict_downgrade",
        verb: "verdict_downgrade",
        effect: Effect::Writes,
        description: "Record a lower verdict for an audit, with the reason, on top of the latest one.",
    },
    Tool {
        name: "verdict_log",
        verb: "verdict_log",
        effect: Effect::Reads,
        description: "Every verdict recorded for an audit, newest first.",
    },
    Tool {
        name: "fingerprint",
        verb: "fingerprint",
        effect: Effect::Reads,
        description: "The content fingerprint (sha256:…) of a scope of files (roots, paths, repositories, exclusions): equal fingerprints mean byte-identical file sets.",
    },
    Tool {
        name: "entries",
        verb: "inventory",
        effect: Effect::Reads,
        description: "Every file of a scope with its mode and digest, and the scope's fingerprint: what a fingerprint covers.",
    },
    Tool {
        name: "verify",
        verb: "compare",
        effect: Effect::Reads,
        description: "Compare an inventory (as `entries` returned it) with the files now: whether it still matches, and the paths added, removed and changed.",
    },
    Tool {
        name: "store_check",
        verb: "store_check",
        effect: Effect::Reads,
        description: "Check the record store: its objects' integrity, orphans left by refused writes, and conflicts between writers that need a decision.",
    },
    Tool {
        name: "store_resolve",
        verb: "resolve",
        effect: Effect::Writes,
        description: "Decide a conflict `store_check` reported: which record a reference keeps. Only on a person's decision.",
    },
];

/// The tools a server offers: every one, or (`read_only`) the readers only.
pub fn tools(read_only: bool) -> impl Iterator<Item = &'static Tool> {
    TOOLS
        .iter()
        .filter(move |tool| !read_only || tool.effect == Effect::Reads)
}

/// The tool named `name` as a server offering `tools(read_only)` knows it:
/// `invalid-argument` for an unknown one, `read-only` for one that writes or
/// runs.
pub fn tool(name: &str, read_only: bool) -> Result<&'static Tool> {
    let tool = TOOLS
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| Error::InvalidArgument {
            message: format!("unknown tool `{}`", crate::quote::escape(name.as_bytes())),
        })?;
    if read_only && tool.effect != Effect::Reads {
        return Err(Error::ReadOnly {
            what: format!("the tool `{}`", tool.name),
        });
    }
    Ok(tool)
}

/// A tool as MCP lists it: `name`, `description`, `inputSchema` (the verb's
/// options) and `outputSchema` (its result, as an object: a result that is
/// not one is the field `result`), and the annotations of its [`Effect`].
pub fn listing(tool: &Tool) -> Value {
    listing_in(tool, &super::description())
}

/// Every tool a server offering `tools(read_only)` lists, in order.
pub fn listings(read_only: bool) -> Vec<Value> {
    let description = super::description();
    tools(read_only)
        .map(|tool| listing_in(tool, &description))
        .collect()
}

/// [`listing`] from `description` (the door's [`description`](super::description)).
fn listing_in(tool: &Tool, description: &Value) -> Value {
    let verb = (description["verbs"].as_array().into_iter().flatten())
        .find(|v| v["name"] == tool.verb)
        .cloned()
        .unwrap_or_default();
    let input = self_contained(&verb["options"], description);
    let output = self_contained(&verb["output"], description);
    json!({
        "name": tool.name,
        "description": tool.description,
        "inputSchema": input,
        "outputSchema": as_object_schema(output),
        "annotations": {
            "readOnlyHint": tool.effect == Effect::Reads,
            "destructiveHint": false,
            "idempotentHint": tool.effect == Effect::Reads,
            "openWorldHint": tool.effect == Effect::Runs,
        },
    })
}

/// Calls `tool` with the arguments object `arguments` on the workspace
/// `workspace` with `settings`, field names in snake_case: its result as a
/// JSON object ([`listing`]'s output schema) with its text, and its warnings.
/// What `hooks` carry (a cancellation token) stops a gate it runs.
pub fn call_tool(
    tool: &Tool,
    read_only: bool,
    workspace: &camino::Utf8Path,
    settings: &crate::Settings,
    arguments: &Value,
    hooks: &Hooks,
) -> Result<(AgentReply, Vec<super::Warning>)> {
    let ws = Workspace::new(workspace, hooks.clone())
        .with_settings(settings.clone())?
        .with_cancel(hooks.cancel)?;
    let reply = run_tool(tool, read_only, &ws, arguments)?;
    let warnings = ws.warnings.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok((reply, warnings))
}

/// Runs `tool`'s verb on `ws`: its result and the text a model reads (the
/// CLI's, [`text`](super::text), or the fields as lines when the verb has no
/// text of its own). A read-only caller's arguments that would run a command
/// are refused before anything runs.
fn run_tool(tool: &Tool, read_only: bool, ws: &Workspace, arguments: &Value) -> Result<AgentReply> {
    if read_only && runs_a_command(arguments) {
        return Err(Error::ReadOnly {
            what: format!(
                "a prerequisite observed by a command (or `allow_env_cmd`) in `{}`",
                tool.name
            ),
        });
    }
    let verb = (super::registry().iter().find(|v| v.name == tool.verb)).ok_or_else(|| {
        Error::InvalidArgument {
            message: format!("the tool `{}` names no verb", tool.name),
        }
    })?;
    let (json, text) = verb.run_shown(ws, arguments.clone())?;
    let value: Value = serde_json::from_str(&json).map_err(|e| Error::InvalidArgument {
        message: format!("the result cannot be read back as JSON: {e}"),
    })?;
    let result = as_object_value(value);
    Ok(AgentReply {
        text: text.unwrap_or_else(|| fields_text(&result)),
        result,
    })
}

/// The tools an agent is offered (the OpenCode plugin's list; `ledger mcp`
/// lists the same).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentToolsOptions {
    /// Only the tools that read (a read-only server's list).
    #[serde(default)]
    pub read_only: bool,
}

/// A tool as an agent's host lists it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentTool {
    /// The tool's name.
    pub name: String,
    /// What it answers, when to call it, what its answer means.
    pub description: String,
    /// What calling it can do.
    pub effect: Effect,
    /// The JSON Schema of its arguments (field names in snake_case).
    pub input_schema: Value,
    /// The JSON Schema of its result, an object.
    pub output_schema: Value,
}

fn agent_tools(o: AgentToolsOptions) -> Result<Vec<AgentTool>> {
    Ok((tools(o.read_only).zip(listings(o.read_only)))
        .map(|(tool, mut listed)| AgentTool {
            name: tool.name.to_owned(),
            description: tool.description.to_owned(),
            effect: tool.effect,
            input_schema: listed["inputSchema"].take(),
            output_schema: listed["outputSchema"].take(),
        })
        .collect())
}

/// Calls one of the agent's tools in this workspace, as `ledger mcp` does:
/// its arguments and result in snake_case whatever the door.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentCallOptions {
    /// The tool's name (`agent_tools` lists them).
    pub tool: String,
    /// Its arguments, as its input schema says.
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// Refuse a tool that writes or runs, and arguments that would run a
    /// command (`read-only`).
    #[serde(default)]
    pub read_only: bool,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// What a tool answered: its structured result and the short text a model reads.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentReply {
    /// The result, as the tool's output schema says (snake_case).
    pub result: Value,
    /// The result as the short text a model reads: the CLI's text.
    pub text: String,
}

fn agent_call(ws: &Workspace, o: AgentCallOptions) -> Result<AgentReply> {
    run_tool(tool(&o.tool, o.read_only)?, o.read_only, ws, &o.arguments)
}

pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::free("agent_tools", &[], agent_tools),
        Verb::method("agent_call", &["tool"], agent_call).cancellable(),
    ]
}

/// Whether `arguments` ask a reader to run a command: `allow_env_cmd: true`,
/// or a prerequisite observed by `{"command": …}` at any depth.
fn runs_a_command(arguments: &Value) -> bool {
    match arguments {
        Value::Object(map) => {
            map.get("allow_env_cmd") == Some(&Value::Bool(true))
                || (map.len() == 1 && map.get("command").is_some_and(Value::is_string))
                || map.values().any(runs_a_command)
        }
        Value::Array(items) => items.iter().any(runs_a_command),
        _ => false,
    }
}

/// `schema` with the definitions it reaches under `$defs`, its `$ref`s
/// (into `#/options/…` and `#/outputs/…` of [`description`](super::description),
/// whose sections `description` holds) rewritten there; a `$ref` at the top
/// is replaced by its definition. A name both sections define is kept apart:
/// the second one reached is `Name.output` (or `Name.options`).
fn self_contained(schema: &Value, description: &Value) -> Value {
    let mut keys: Vec<((String, String), String)> = Vec::new();
    let mut defs = Map::new();
    let mut pending = Vec::new();
    refs(schema, &mut pending);
    while let Some((section, name)) = pending.pop() {
        let reference = (section.clone(), name.clone());
        if keys.iter().any(|(r, _)| *r == reference) {
            continue;
        }
        let key = match defs.contains_key(&name) {
            true => format!("{name}.{section}"),
            false => name.clone(),
        };
        let definition = description[&section][&name].clone();
        refs(&definition, &mut pending);
        keys.push((reference, key.clone()));
        defs.insert(key, definition);
    }
    let key_of = |section: &str, name: &str| {
        keys.iter()
            .find(|((s, n), _)| s == section && n == name)
            .map(|(_, key)| key.clone())
    };
    let mut root = match split_ref(&schema["$ref"]) {
        Some((section, name)) => key_of(&section, &name)
            .and_then(|key| defs.get(&key).cloned())
            .unwrap_or_default(),
        None => schema.clone(),
    };
    // A definition that only names another (`FingerprintOptions` is a
    // `ScopeOptions`) is that one, with its own description.
    for _ in 0..defs.len() {
        let Some((section, name)) = split_ref(&root["$ref"]) else {
            break;
        };
        let description = root.get("description").cloned();
        root = key_of(&section, &name)
            .and_then(|key| defs.get(&key).cloned())
            .unwrap_or_default();
        if let Some(description) = description {
            root["description"] = description;
        }
    }
    if !defs.is_empty() {
        root["$defs"] = Value::Object(defs);
    }
    rewrite_refs(&mut root, &key_of);
    root
}

/// The section and name a `$ref` into the description points at.
fn split_ref(reference: &Value) -> Option<(String, String)> {
    let reference = reference.as_str()?.strip_prefix("#/")?;
    let (section, name) = reference.split_once('/')?;
    matches!(section, "options" | "outputs").then(|| (section.to_owned(), name.to_owned()))
}

/// The definitions `value` refers to, as (section, name).
fn refs(value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref").and_then(split_ref) {
                out.push(reference);
            }
            map.values().for_each(|v| refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

fn rewrite_refs(value: &mut Value, key_of: &dyn Fn(&str, &str) -> Option<String>) {
    match value {
        Value::Object(map) => {
            if let Some(key) = (map.get("$ref").and_then(split_ref))
                .and_then(|(section, name)| key_of(&section, &name))
            {
                map.insert("$ref".into(), Value::String(format!("#/$defs/{key}")));
            }
            map.values_mut().for_each(|v| rewrite_refs(v, key_of));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_refs(v, key_of)),
        _ => {}
    }
}

/// Whether `schema` describes only objects.
fn is_object_schema(schema: &Value) -> bool {
    schema["type"] == "object"
}

/// An output schema as MCP wants it, an object: one that is not is wrapped
/// as the required field `result` (its `$defs` kept at the top).
fn as_object_schema(mut schema: Value) -> Value {
    if is_object_schema(&schema) {
        return schema;
    }
    let defs = schema.as_object_mut().and_then(|m| m.remove("$defs"));
    let mut wrapped = json!({
        "type": "object",
        "properties": { "result": schema },
        "required": ["result"],
    });
    if let Some(defs) = defs {
        wrapped["$defs"] = defs;
    }
    wrapped
}

/// A result as [`as_object_schema`] describes it.
fn as_object_value(value: Value) -> Value {
    match value {
        Value::Object(_) => value,
        other => json!({ "result": other }),
    }
}

/// A result as short text a model reads, for a verb with no text of its
/// own: one `key: value` line per field, nested fields indented, lists as
/// `- ` items; `null` fields left out.
pub fn fields_text(value: &Value) -> String {
    let mut out = String::new();
    write_text(value, 0, &mut out);
    out
}

fn write_text(value: &Value, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter().filter(|(_, v)| !v.is_null()) {
                match field {
                    Value::Object(inner) if inner.is_empty() => {}
                    Value::Array(items) if items.is_empty() => {
                        out.push_str(&format!("{indent}{key}: none\n"));
                    }
                    Value::Object(_) | Value::Array(_) => {
                        out.push_str(&format!("{indent}{key}:\n"));
                        write_text(field, depth + 1, out);
                    }
                    scalar => out.push_str(&format!("{indent}{key}: {}\n", scalar_text(scalar))),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Object(_) | Value::Array(_) => {
                        out.push_str(&format!("{indent}-\n"));
                        write_text(item, depth + 1, out);
                    }
                    scalar => out.push_str(&format!("{indent}- {}\n", scalar_text(scalar))),
                }
            }
        }
        scalar => out.push_str(&format!("{indent}{}\n", scalar_text(scalar))),
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_tool_names_a_verb_of_the_door() {
        for tool in TOOLS {
            let verb = super::super::registry()
                .iter()
                .find(|v| v.name() == tool.verb);
            assert!(verb.is_some(), "{} calls {}, no verb", tool.name, tool.verb);
        }
    }

    #[test]
    fn a_read_only_server_offers_readers_only() {
        assert!(tools(true).all(|t| t.effect == Effect::Reads));
        assert!(tools(true).count() < TOOLS.len());
        assert_eq!(tool("approve", true).unwrap_err().code(), "read-only");
        assert_eq!(
            tool("no_such", false).unwrap_err().code(),
            "invalid-argument"
        );
    }

    #[test]
    fn schemas_are_self_contained_objects() {
        for tool in TOOLS {
            let listed = listing(tool);
            for key in ["inputSchema", "outputSchema"] {
                let schema = &listed[key];
                assert_eq!(schema["type"], "object", "{} {key}: {schema}", tool.name);
                let text = schema.to_string();
                for (at, _) in text.match_indices("\"#/$defs/") {
                    let name = text[at + 9..].split('"').next().unwrap();
                    assert!(
                        schema["$defs"].get(name).is_some(),
                        "{} {key} refers to {name}, not defined",
                        tool.name
                    );
                }
                assert!(!schema.to_string().contains("#/options/"));
                assert!(!schema.to_string().contains("#/outputs/"));
            }
        }
    }

    /// The tools are the description's: a field added to a verb's result or
    /// options is a field of its tool, with no edit here.
    #[test]
    fn a_field_added_to_a_result_is_a_field_of_the_tool() {
        let mut description = super::super::description();
        let run = TOOLS.iter().find(|t| t.name == "gate_run").unwrap();
        let before = listing_in(run, &description);
        assert!(before["outputSchema"]["properties"]["reused"].is_object());
        assert!(before["outputSchema"]["properties"]["added"].is_null());
        description["outputs"]["GateRun"]["properties"]["added"] = json!({"type": "string"});
        description["options"]["RunDeclaredGateOptions"]["properties"]["extra"] =
            json!({"type": "boolean"});
        let after = listing_in(run, &description);
        assert_eq!(
            after["outputSchema"]["properties"]["added"]["type"],
            "string"
        );
        assert_eq!(
            after["inputSchema"]["properties"]["extra"]["type"],
            "boolean"
        );
    }

    #[test]
    fn a_command_in_the_arguments_is_seen_at_any_depth() {
        assert!(runs_a_command(&json!({"allow_env_cmd": true})));
        assert!(!runs_a_command(&json!({"allow_env_cmd": false})));
        let observed = json!({"prerequisites": {"rustc": {"command": "rustc -V"}}});
        assert!(runs_a_command(&observed));
        let nested = json!({"gate_prerequisites": {"g": {"rustc": {"command": "x"}}}});
        assert!(runs_a_command(&nested));
        assert!(!runs_a_command(
            &json!({"prerequisites": {"r": {"literal": "1"}}})
        ));
    }

    /// Every tool answers in the CLI's words (`door::text`).
    #[test]
    fn every_tool_has_the_cli_s_text() {
        let registry = super::super::registry();
        for tool in TOOLS {
            let verb = registry.iter().find(|v| v.name == tool.verb).unwrap();
            assert!(
                verb.renderer.is_some(),
                "`{}` has no text of its own",
                tool.name
            );
        }
    }

    #[test]
    fn text_is_one_line_per_field() {
        let value = json!({"fingerprint": "sha256:ab", "entries": [{"path": "a"}], "gone": null, "none": []});
        assert_eq!(
            fields_text(&value),
            "entries:\n  -\n    path: a\nfingerprint: sha256:ab\nnone: none\n"
        );
    }
}
