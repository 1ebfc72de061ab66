//! The JSON Schemas of the core's text-valued types, written by hand because
//! their serde form is a string of their own syntax (a derive would describe
//! their Rust fields). How raw bytes cross the doors, [`Bytes`](crate::Bytes),
//! is described once on the ground floor (`bytes.rs`), since a wing's result
//! (a task's `text_bytes`) holds it too.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::{
    WorkspacePath,
    expand::{Entry, Fingerprint},
    records::{RecordId, StartedFrom},
    tasks::TaskRule,
};

/// A schema named `name`: a string described by `description`, matching
/// `pattern` when there is one.
fn text(description: &str, pattern: Option<&str>) -> Schema {
    let mut schema = json_schema!({ "type": "string", "description": description });
    if let Some(pattern) = pattern {
        schema.insert("pattern".into(), pattern.into());
    }
    schema
}

impl JsonSchema for Fingerprint {
    fn schema_name() -> Cow<'static, str> {
        "Fingerprint".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        text(
            "A v1 fingerprint: `sha256:` and 64 lowercase hex digits.",
            Some("^sha256:[0-9a-f]{64}$"),
        )
    }
}

impl JsonSchema for RecordId {
    fn schema_name() -> Cow<'static, str> {
        "RecordId".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        text(
            "A record's id in the store: 64 lowercase hex digits.",
            Some("^[0-9a-f]{64}$"),
        )
    }
}

/// `expected` of a write: a record id or the literal `no-record`, so that a
/// type checker tells "nothing is recorded" from an option left out.
impl JsonSchema for StartedFrom {
    fn schema_name() -> Cow<'static, str> {
        "Expected".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The record a write started from: its id, or `no-record` when the writer read that nothing is recorded.",
            "anyOf": [
                generator.subschema_for::<RecordId>(),
                { "type": "string", "const": StartedFrom::NO_RECORD },
            ],
        })
    }
}

impl JsonSchema for WorkspacePath {
    fn schema_name() -> Cow<'static, str> {
        "WorkspacePath".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        text(
            "A path relative to the workspace, `/`-separated, without `.`/`..` segments.",
            None,
        )
    }
}

impl JsonSchema for TaskRule {
    fn schema_name() -> Cow<'static, str> {
        "TaskRule".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = TaskRule::ALL.iter().map(|rule| rule.as_str()).collect();
        json_schema!({
            "type": "string",
            "description": "How a Tasks file is normalized before hashing (docs/format.md §4).",
            "enum": names,
        })
    }
}

impl JsonSchema for Entry {
    fn schema_name() -> Cow<'static, str> {
        "Entry".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "One path of an inventory, as the fingerprint's byte stream has it.",
            "properties": {
                "path": { "type": "string", "description": "The workspace path." },
                "kind": {
                    "type": "string",
                    "enum": ["file", "symlink", "missing"],
                    "description": "What is at the path.",
                },
                "mode": {
                    "type": "string",
                    "description": "`100644`, `100755`, `120000` (symlink) or `-` (missing).",
                },
                "digest": {
                    "type": "string",
                    "description": "The SHA-256 of the content (a symlink: of its target text) in hex, or `-`.",
                },
            },
            "required": ["path", "kind", "mode", "digest"],
            "additionalProperties": false,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn text_types_are_described_as_strings() {
        let schema = schemars::schema_for!(Vec<Fingerprint>);
        let defs = &schema.as_value()["$defs"];
        assert_eq!(defs["Fingerprint"]["type"], "string");
        let rule = schemars::schema_for!(TaskRule);
        assert_eq!(rule.as_value()["enum"][0], TaskRule::ALL[0].as_str());
    }
}
