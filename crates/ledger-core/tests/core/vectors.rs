//! The shared public vectors, run against the Rust core: this crate's copy
//! (`crates/ledger-core/tests/vectors/`, packaged with it) of the workspace's
//! `tests/vectors/`, which `vectors_copy.rs` keeps identical.
#![allow(clippy::unwrap_used, clippy::panic)]

use ledger_core::{
    expand::{Entry, Fingerprint, fingerprint_entries},
    tasks::{TaskRule, normalize_tasks, normalize_tasks_with, read_tasks},
};
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!("{}/tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
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
    assert_eq!(doc["format"], ledger_core::expand::FORMAT_V1);
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

/// Runs a Tasks vector file under `rule`: the normalized bytes, whether they
/// changed, and (when the vector gives them) the task counts of the input.
fn tasks_vectors(file: &str, rule: TaskRule, at_least: usize) {
    let doc = load(file);
    let vectors = doc["vectors"].as_array().unwrap();
    assert!(vectors.len() >= at_least, "{file}");
    for v in vectors {
        let input = hex(v["input"].as_str().unwrap());
        let output = hex(v["output"].as_str().unwrap());
        let got = normalize_tasks_with(&input, rule);
        assert_eq!(got, output, "{}", v["name"]);
        assert_eq!(
            got != input,
            v["changed"].as_bool().unwrap(),
            "{}",
            v["name"]
        );
        if let Some(total) = v["total"].as_u64() {
            let tasks = read_tasks(&input, rule);
            assert_eq!(tasks.total as u64, total, "{}", v["name"]);
            assert_eq!(
                tasks.done as u64,
                v["done"].as_u64().unwrap(),
                "{}",
                v["name"]
            );
            assert_eq!(read_tasks(&got, rule).done, 0, "{}", v["name"]);
        }
    }
}

#[test]
fn task_checkbox_vectors() {
    tasks_vectors("task-checkbox.json", TaskRule::TaskCheckboxV1, 12);
    // `normalize_tasks` is the default rule.
    let doc = load("task-checkbox.json");
    for v in doc["vectors"].as_array().unwrap() {
        let input = hex(v["input"].as_str().unwrap());
        assert_eq!(normalize_tasks(&input), hex(v["output"].as_str().unwrap()));
    }
}

#[test]
fn openspec_checkbox_vectors() {
    tasks_vectors("openspec-checkbox.json", TaskRule::OpenspecCheckbox, 15);
}
