//! [`Bytes`]: raw bytes in ledger's JSON, as base64 text.
//!
//! JSON strings hold text, not bytes, so a value that must stay byte-exact
//! (a Tasks file's bytes given to a door, a gate's kept output, a task's text
//! that is not valid UTF-8) is written as the standard base64 of its bytes
//! (RFC 4648, padded). This is the one description of that type: the doors
//! (`door::Bytes`) and the wings that serialize such a value (the task
//! reader's `text_bytes`) use it, so its serde form and JSON Schema cannot
//! differ between them. It lies on the ground floor because a wing (the tasks
//! wing) needs it, and a wing may not use the doors above it.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Raw bytes, written in JSON as their base64 text.
///
/// A verb's own bytes option or result (`normalize_tasks`' data, `gate_output`)
/// crosses the doors as base64 and the generated wrappers turn it into
/// `bytes` (Python) and `Buffer` (JavaScript). Inside a result object (a
/// task's `text_bytes`) it stays the base64 text, exactly as the CLI's
/// `--json` has it, so a door's result and the CLI's JSON are the same value.
///
/// ```
/// use ledger_core::Bytes;
/// let json = serde_json::to_string(&Bytes(b"caf\xe9".to_vec())).unwrap();
/// assert_eq!(json, "\"Y2Fm6Q==\"");
/// assert_eq!(serde_json::from_str::<Bytes>(&json).unwrap().0, b"caf\xe9");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD
            .decode(text.as_bytes())
            .map(Bytes)
            .map_err(|e| serde::de::Error::custom(format!("not base64: {e}")))
    }
}

impl JsonSchema for Bytes {
    fn schema_name() -> Cow<'static, str> {
        "Bytes".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "contentEncoding": "base64",
            "description": "Raw bytes (base64 on the wire).",
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn bytes_cross_as_base64_both_ways() {
        let bytes = Bytes(vec![0, 159, 255, b'a']);
        let json = serde_json::to_string(&bytes).unwrap();
        assert_eq!(json, "\"AJ//YQ==\"");
        assert_eq!(serde_json::from_str::<Bytes>(&json).unwrap(), bytes);
        assert!(serde_json::from_str::<Bytes>("\"!!\"").is_err());
    }
}
