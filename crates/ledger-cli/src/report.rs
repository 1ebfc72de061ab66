//! Text and JSON renderings of results.

pub use ledger_core::records::to_pretty_json as json_line;
