//! The shared public vectors (`tests/vectors/`), run against the Rust core.
#![allow(clippy::unwrap_used, clippy::panic)]

use ledger_core::{Entry, Fingerprint, fingerprint_entries, normalize_tasks};
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/../../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn fingerprint_v1_vectors() {
    let doc = load("fingerprint-v1.json");
    assert_eq!(doc["format"], ledger_core::FORMAT_V1);
    let vectors = doc["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 5);
    for v in vectors {
        let entries: Vec<Entry> = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let f: Vec<&str> = e
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap())
                    .collect();
                Entry::from_parts(f[0], f[1], f[2], f[3]).unwrap()
            })
            .collect();
        let expected: Fingerprint = v["fingerprint"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            fingerprint_entries(entries).unwrap(),
            expected,
            "{}",
            v["name"]
        );
    }
}

#[test]
fn task_checkbox_vectors() {
    let doc = load("task-checkbox.json");
    let vectors = doc["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 12);
    for v in vectors {
        let input = hex(v["input"].as_str().unwrap());
        let output = hex(v["output"].as_str().unwrap());
        let got = normalize_tasks(&input);
        assert_eq!(got, output, "{}", v["name"]);
        assert_eq!(
            got != input,
            v["changed"].as_bool().unwrap(),
            "{}",
            v["name"]
        );
    }
}
