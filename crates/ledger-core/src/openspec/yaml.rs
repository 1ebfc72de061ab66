//! OpenSpec's YAML files as ledger reads them: parsed with `serde-saphyr`
//! (bounded: a document that expands past its budget is refused, never
//! expanded), and every refusal said in one line a person can read.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

/// Parses `text`; the error is one line: where, and what is wrong.
pub(crate) fn parse<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_saphyr::from_str(text).map_err(|e| reason(&e.to_string()))
}

/// The first line of the parser's message (the rest quotes the source), and
/// for a breached budget what it means instead of the parser's own record of it.
fn reason(message: &str) -> String {
    let first = message.lines().next().unwrap_or_default();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    match first.split_once("budget breached") {
        Some((place, _)) => format!(
            "{}the document expands past what ledger reads (too many nodes, aliases or levels): it is refused, not expanded",
            place.trim_end_matches(": ").to_owned() + if place.is_empty() { "" } else { ": " }
        ),
        None => crate::quote::one_line(first),
    }
}

/// A YAML string, and only a string: `schema: 3` or `schema: true` names no
/// schema (serde-saphyr would read them as the text `3`, `true`). A key given
/// without a value (`schema:`, YAML null) reads as the empty text, so that
/// its readers refuse it as they refuse `schema: ''`; only an absent key is
/// `None` (through `#[serde(default)]`).
pub(crate) fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct Text;
    impl Visitor<'_> for Text {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_owned()))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Some(String::new()))
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Some(String::new()))
        }
    }
    d.deserialize_any(Text)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    struct File {
        #[serde(default, deserialize_with = "string")]
        schema: Option<String>,
    }

    #[test]
    fn a_schema_is_a_string_and_every_refusal_one_plain_line() {
        assert_eq!(
            parse::<File>("schema: rapid\n").unwrap().schema.as_deref(),
            Some("rapid")
        );
        assert_eq!(
            parse::<File>("schema: '3'\n").unwrap().schema.as_deref(),
            Some("3")
        );
        // A key without a value is the empty text, not an absent key.
        assert_eq!(
            parse::<File>("schema:\n").unwrap().schema.as_deref(),
            Some("")
        );
        assert_eq!(parse::<File>("other: 1\n").unwrap().schema, None);
        for bad in [
            "schema: 3\n",
            "schema: true\n",
            "schema: [a]\n",
            "schema: {a: 1}\n",
        ] {
            let why = parse::<File>(bad).unwrap_err();
            assert!(!why.contains('\n') && !why.contains(" | "), "{bad}: {why}");
        }
        let mut bomb = vec!["a0: &a0 [x, x, x, x, x, x, x, x, x, x]".to_owned()];
        for i in 1..9 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            bomb.push(format!("a{i}: &a{i} [{refs}]"));
        }
        let why = parse::<File>(&bomb.join("\n")).unwrap_err();
        assert!(why.contains("expands past what ledger reads"), "{why}");
        assert!(
            !why.contains('{') && !why.contains("Nodes"),
            "no Debug value: {why}"
        );
    }
}
