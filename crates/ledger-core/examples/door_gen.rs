fn main() {
    println!(
        "{}",
        serde_json::to_string_pretty(&ledger_core::door::description()).unwrap()
    );
}
