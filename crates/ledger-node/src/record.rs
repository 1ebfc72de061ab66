//! Inventory records: the versioned JSON the CLI writes (`ledger inventory`)
//! and reads (`ledger verify`); see docs/records.md.

use std::collections::HashMap;

use ledger_core::InventoryRecord;
use napi::Env;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::error::Failure;
use crate::inventory::Inventory;
use crate::task::{Work, block, spawn};

/// What the caller observed about the set, stored in the record as given.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct Observed {
    /// The command the set is for.
    pub command: Option<Vec<String>>,
    /// Tool versions.
    pub tools: Option<HashMap<String, String>>,
    /// Free metadata (`ledger inventory --meta KEY=VALUE`).
    pub meta: Option<HashMap<String, String>>,
}

/// How a record is read.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// Where the record came from, named in error messages; default `<record>`.
    pub source: Option<String>,
    /// Re-expand in this directory instead of the record's workspace, e.g. a
    /// moved checkout (`ledger verify --workspace`).
    pub workspace: Option<String>,
}

/// The source named in errors when the caller names none.
const UNNAMED_RECORD: &str = "<record>";

#[napi]
impl Inventory {
    /// The inventory record (pretty JSON, newline-terminated), exactly as
    /// `ledger inventory` writes it (`InventoryRecord::new(..).to_json()`).
    #[napi]
    pub fn to_record(&self, env: Env, observed: Option<Observed>) -> napi::Result<String> {
        block(&env, || {
            let observed = observed.unwrap_or_default();
            let observed = ledger_core::Observed {
                command: observed.command.unwrap_or_default(),
                tools: observed.tools.unwrap_or_default().into_iter().collect(),
                meta: observed.meta.unwrap_or_default().into_iter().collect(),
            };
            Ok(InventoryRecord::new((*self.inner).clone(), observed).to_json())
        })
    }

    /// `new Inventory(text, options)`: the same as [`Inventory::from_record`].
    #[napi(constructor)]
    pub fn new(env: Env, text: String, options: Option<RecordOptions>) -> napi::Result<Inventory> {
        Inventory::from_record(env, text, options)
    }

    /// Reads a record's text strictly (`InventoryRecord::from_json`): a record
    /// whose entries do not reproduce its fingerprint is refused.
    #[napi(factory)]
    pub fn from_record(
        env: Env,
        text: String,
        options: Option<RecordOptions>,
    ) -> napi::Result<Inventory> {
        block(&env, || {
            let options = options.unwrap_or_default();
            let source = options.source.as_deref().unwrap_or(UNNAMED_RECORD);
            let record = InventoryRecord::from_json(&text, source)?;
            Ok(relocated(record, options.workspace))
        })
    }
}

/// The record's inventory, its workspace replaced when asked to.
fn relocated(record: InventoryRecord, workspace: Option<String>) -> Inventory {
    let inventory = record.inventory();
    Inventory::from(match workspace {
        Some(dir) => inventory.relocate(dir),
        None => inventory,
    })
}

fn read_record_impl(path: &str, workspace: Option<String>) -> Result<Inventory, Failure> {
    let record = InventoryRecord::read(camino::Utf8Path::new(path))?;
    Ok(relocated(record, workspace))
}

/// Reads a record file (`InventoryRecord::read`), off the JavaScript thread.
#[napi(ts_return_type = "Promise<Inventory>")]
pub fn read_record(path: String, options: Option<RecordOptions>) -> AsyncTask<Work<Inventory>> {
    let workspace = options.and_then(|o| o.workspace);
    spawn(move || read_record_impl(&path, workspace))
}

/// `readRecord`, blocking the JavaScript thread.
#[napi]
pub fn read_record_sync(
    env: Env,
    path: String,
    options: Option<RecordOptions>,
) -> napi::Result<Inventory> {
    let workspace = options.and_then(|o| o.workspace);
    block(&env, || read_record_impl(&path, workspace))
}
