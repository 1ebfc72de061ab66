//! Expansion: a scope becomes an inventory (`fingerprint`, `inventory`), and an
//! inventory is compared with the disk (`inventory.compare()`).

use std::sync::Arc;

use napi::Env;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::compare::Comparison;
use crate::entry::Entry;
use crate::error::Failure;
use crate::json::{Json, json};
use crate::scope::ScopeOptions;
use crate::task::{Work, block, spawn};

/// An expanded set: its entries in ascending UTF-8 byte order of their paths,
/// and their v1 fingerprint. Made by `inventory()`, `readRecord()`,
/// `Inventory.fromRecord()` or `changeInventory()`.
#[napi]
pub struct Inventory {
    /// Shared, so that an async `compare()` needs no copy of the entries.
    pub(crate) inner: Arc<ledger_core::Inventory>,
}

impl From<ledger_core::Inventory> for Inventory {
    fn from(inventory: ledger_core::Inventory) -> Self {
        Inventory {
            inner: Arc::new(inventory),
        }
    }
}

#[napi]
impl Inventory {
    /// The v1 fingerprint, `sha256:<64 hex digits>`.
    #[napi(getter)]
    pub fn fingerprint(&self) -> String {
        self.inner.fingerprint.to_string()
    }

    /// One entry per path, ascending by UTF-8 bytes (a new array at each read).
    #[napi(getter)]
    pub fn entries(&self) -> Vec<Entry> {
        self.inner.entries.iter().map(Entry::from).collect()
    }

    /// The roots that lay outside every repository and were walked in full.
    #[napi(getter)]
    pub fn walked_roots(&self) -> Vec<String> {
        self.inner.walked_roots.clone()
    }

    /// The scope as resolved: absolute workspace, default repository filled in.
    #[napi(getter, ts_return_type = "Scope")]
    pub fn scope(&self, env: Env) -> napi::Result<Json> {
        block(&env, || json(&self.inner.scope))
    }

    /// The inventory as `ledger entries --json` prints it (`JSON.stringify`
    /// uses this).
    #[napi(js_name = "toJSON", ts_return_type = "InventoryJson")]
    pub fn to_json(&self, env: Env) -> napi::Result<Json> {
        block(&env, || json(&*self.inner))
    }

    /// Re-expands the scope plus every path this inventory held, and reports
    /// what changed, path by path (`Inventory::compare`).
    #[napi(ts_return_type = "Promise<Comparison>")]
    pub fn compare(&self) -> AsyncTask<Work<Comparison>> {
        let inventory = Arc::clone(&self.inner);
        spawn(move || compare_impl(&inventory))
    }

    /// `compare()`, blocking the JavaScript thread.
    #[napi]
    pub fn compare_sync(&self, env: Env) -> napi::Result<Comparison> {
        block(&env, || compare_impl(&self.inner))
    }
}

fn compare_impl(inventory: &ledger_core::Inventory) -> Result<Comparison, Failure> {
    Comparison::from_core(&inventory.compare()?)
}

fn inventory_impl(options: &ScopeOptions) -> Result<ledger_core::Inventory, Failure> {
    Ok(ledger_core::Inventory::expand(&options.to_scope()?)?)
}

fn fingerprint_impl(options: &ScopeOptions) -> Result<String, Failure> {
    Ok(inventory_impl(options)?.fingerprint.to_string())
}

/// The v1 fingerprint (`sha256:<hex>`) of the scope, computed off the
/// JavaScript thread; what `ledger fingerprint` prints.
#[napi(ts_return_type = "Promise<string>")]
pub fn fingerprint(options: ScopeOptions) -> AsyncTask<Work<String>> {
    spawn(move || fingerprint_impl(&options))
}

/// `fingerprint`, blocking the JavaScript thread.
#[napi]
pub fn fingerprint_sync(env: Env, options: ScopeOptions) -> napi::Result<String> {
    block(&env, || fingerprint_impl(&options))
}

/// The scope's inventory (entries and fingerprint), computed off the
/// JavaScript thread; what `ledger entries --json` prints.
#[napi(ts_return_type = "Promise<Inventory>")]
pub fn inventory(options: ScopeOptions) -> AsyncTask<Work<Inventory>> {
    spawn(move || inventory_impl(&options).map(Inventory::from))
}

/// `inventory`, blocking the JavaScript thread.
#[napi]
pub fn inventory_sync(env: Env, options: ScopeOptions) -> napi::Result<Inventory> {
    block(&env, || inventory_impl(&options).map(Inventory::from))
}
