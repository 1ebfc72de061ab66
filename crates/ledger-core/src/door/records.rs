//! Inventory records (docs/records.md), as the doors call them: a record's
//! text parsed or read strictly, and an inventory written as a record.

use std::collections::BTreeMap;

use camino::Utf8Path;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::Verb;
use crate::{
    Error, Result,
    expand::Inventory,
    records::{InventoryRecord, Observed},
};

/// The schema of an option that takes back a result of type `T` (an
/// inventory, a graph): a reference to `T`'s OUTPUT definition, so that the
/// generated wrappers type the option as the result they returned (Python's
/// TypedDicts are not interchangeable with an input twin). What is accepted
/// is checked when read (`checked_inventory`, the graph's constructor).
pub(super) fn output_of<T: JsonSchema>(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "$ref": format!("#/outputs/{}", T::schema_name()) })
}

/// [`output_of`] for an optional option: the result, or null.
pub(super) fn optional_output_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({ "anyOf": [output_of::<T>(generator), { "type": "null" }] })
}

/// An inventory the caller passed back, checked as strictly as a record is
/// read (entries in order, each once, reproducing the fingerprint; a valid
/// scope): a dict edited by hand is refused, never trusted. `invalid-argument`
/// naming the option, with the record reader's reason.
pub(super) fn checked_inventory(inventory: Inventory) -> Result<Inventory> {
    let text = InventoryRecord::new(inventory, Observed::default()).to_json();
    match InventoryRecord::from_json(&text, "inventory") {
        Ok(record) => Ok(record.inventory()),
        Err(e) => Err(Error::InvalidArgument {
            message: format!("option `inventory` is not an inventory as ledger made it: {e}"),
        }),
    }
}

/// Parses a record's text strictly: a record whose entries do not reproduce
/// its fingerprint is `malformed-record`, another format or major version
/// `unsupported-version`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParseRecordOptions {
    /// The record's text.
    pub text: String,
    /// Where the text came from, named in errors.
    #[serde(default = "default_source")]
    pub source: String,
}

fn default_source() -> String {
    "<string>".to_owned()
}

fn parse_record(o: ParseRecordOptions) -> Result<InventoryRecord> {
    InventoryRecord::from_json(&o.text, &o.source)
}

/// Reads a record file strictly (a regular file, not through a symlink, at
/// most 1 GiB; then as `parse_record`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadRecordOptions {
    /// The record file (relative to the current directory, or absolute).
    pub path: String,
}

fn read_record(o: ReadRecordOptions) -> Result<InventoryRecord> {
    InventoryRecord::read(Utf8Path::new(&o.path))
}

/// The inventory record of `inventory` (pretty JSON ending with a newline),
/// exactly as `ledger inventory` writes it, with what the caller observed.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InventoryRecordOptions {
    /// The inventory, as `inventory` or `change_inventory` gave it.
    #[schemars(schema_with = "output_of::<Inventory>")]
    pub inventory: Inventory,
    /// The command the set is for.
    #[serde(default)]
    pub command: Vec<String>,
    /// Tool name → version.
    #[serde(default)]
    pub tools: BTreeMap<String, String>,
    /// Free metadata, key → value.
    #[serde(default)]
    pub meta: BTreeMap<String, String>,
}

fn inventory_record(o: InventoryRecordOptions) -> Result<String> {
    let inventory = checked_inventory(o.inventory)?;
    let observed = Observed {
        command: o.command,
        tools: o.tools,
        meta: o.meta,
    };
    Ok(InventoryRecord::new(inventory, observed).to_json())
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::free("parse_record", &["text"], parse_record),
        Verb::free("read_record", &["path"], read_record),
        Verb::free("inventory_record", &["inventory"], inventory_record),
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

    #[test]
    fn an_inventory_written_as_a_record_reads_back_with_what_was_observed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        let inventory = call(Some(dir.path()), "inventory", json!({}), Case::Camel)["ok"].clone();
        let options = json!({
            "inventory": inventory, "command": ["make", "test"],
            "tools": {"rustc": "1.95"}, "meta": {"ticket_id": "T-1"},
        });
        let written = call(None, "inventory_record", options, Case::Camel);
        let text = written["ok"].as_str().unwrap();
        assert!(
            text.ends_with("}\n") && text.contains("\"written_by\""),
            "{text}"
        );
        let parsed = call(None, "parse_record", json!({"text": text}), Case::Camel);
        let record = &parsed["ok"];
        assert_eq!(record["fingerprint"], inventory["fingerprint"], "{parsed}");
        assert_eq!(record["observed"]["command"], json!(["make", "test"]));
        // Map keys keep their spelling; struct fields are camelCased.
        assert_eq!(record["observed"]["meta"], json!({"ticket_id": "T-1"}));
        assert_eq!(record["walkedRoots"], inventory["walkedRoots"]);
        let file = dir.path().join("inventory.json");
        std::fs::write(&file, text).unwrap();
        let read = call(
            None,
            "read_record",
            json!({"path": file.to_str().unwrap()}),
            Case::Camel,
        );
        assert_eq!(read["ok"], parsed["ok"]);
        let broken = text.replacen(
            inventory["fingerprint"].as_str().unwrap(),
            &format!("sha256:{}", "0".repeat(64)),
            1,
        );
        let reply = call(
            None,
            "parse_record",
            json!({"text": broken, "source": "mine.json"}),
            Case::Snake,
        );
        assert_eq!(code(&reply), "malformed-record", "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("mine.json"),
            "{reply}"
        );
        let mut forged = inventory;
        forged["fingerprint"] = json!(format!("sha256:{}", "0".repeat(64)));
        let reply = call(
            None,
            "inventory_record",
            json!({"inventory": forged}),
            Case::Snake,
        );
        assert_eq!(code(&reply), "invalid-argument", "{reply}");
    }
}
