//! The generated Python and JavaScript APIs are what the Rust description
//! says: regenerated in memory and compared with the committed files.
//! `UPDATE_GENERATED=1 cargo test -p ledger-core --test door_generated`
//! rewrites them (as `cargo run -p ledger-core --example door_gen` does).

#![allow(missing_docs, clippy::unwrap_used)]

#[path = "../examples/door_gen.rs"]
mod door_gen;

#[test]
fn committed_bindings_match_the_description() {
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        door_gen::write();
    }
    let drifted = door_gen::drifted();
    assert!(
        drifted.is_empty(),
        "generated files drifted from ledger_core::door::description(): {drifted:?}; \
         run `UPDATE_GENERATED=1 cargo test -p ledger-core --test door_generated`"
    );
}

#[test]
fn every_verb_and_error_code_reaches_both_doors() {
    let files = door_gen::generate();
    let text = |suffix: &str| &files.iter().find(|(p, _)| p.ends_with(suffix)).unwrap().1;
    let (py, js, dts) = (text("_api.py"), text("api.js"), text("index.d.ts"));
    for verb in ledger_core::door::registry() {
        let name = verb.name();
        let camel = ledger_core::door::camel(name);
        assert!(
            py.contains(&format!("def {name}(")),
            "{name} missing in Python"
        );
        assert!(
            js.contains(&format!("'{name}'")),
            "{name} missing in api.js"
        );
        assert!(
            dts.contains(&format!("{camel}Sync(")),
            "{camel}Sync missing in index.d.ts"
        );
    }
    for code in ledger_core::Error::CODES {
        assert!(
            py.contains(&format!("code = \"{code}\"")),
            "{code} has no Python class"
        );
        assert!(
            js.contains(&format!(": '{code}',")),
            "{code} missing in ErrorCode"
        );
    }
}
