//! The record store (`<workspace>/.ledger`): append-only records and
//! compare-and-swap refs (docs/approvals.md).

use camino::Utf8Path;
use std::sync::Arc;

use napi::Env;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::error::Failure;
use crate::json::{Json, json};
use crate::task::{Work, block, spawn};

/// A ref and the record it names.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct RefHead {
    /// The ref name, e.g. `changes/add-auth` or `gates/test`.
    pub name: String,
    /// The record id (64 hex digits).
    pub id: String,
}

/// A record store. Opening creates nothing; an absent store is empty and clean.
#[napi]
pub struct Store {
    inner: Arc<ledger_core::Store>,
}

#[napi]
impl Store {
    /// The store of a workspace: `<workspace>/.ledger` (as `Store.open`).
    #[napi(constructor)]
    pub fn new(workspace: String) -> Store {
        Store::open(workspace)
    }

    /// The store of a workspace: `<workspace>/.ledger`.
    #[napi(factory)]
    pub fn open(workspace: String) -> Store {
        Store {
            inner: Arc::new(ledger_core::Store::open(Utf8Path::new(&workspace))),
        }
    }

    /// The store in an explicit directory.
    #[napi(factory)]
    pub fn at(root: String) -> Store {
        Store {
            inner: Arc::new(ledger_core::Store::at(root)),
        }
    }

    /// The store's directory.
    #[napi(getter)]
    pub fn root(&self) -> String {
        self.inner.root().to_string()
    }

    /// Orphan records, leftover temp files, corrupt files and dangling refs
    /// (`ledger store check --json`).
    #[napi(ts_return_type = "Promise<StoreReport>")]
    pub fn check(&self) -> AsyncTask<Work<Json>> {
        let store = Arc::clone(&self.inner);
        spawn(move || json(&store.check()?))
    }

    /// `check()`, blocking the JavaScript thread.
    #[napi(ts_return_type = "StoreReport")]
    pub fn check_sync(&self, env: Env) -> napi::Result<Json> {
        block(&env, || json(&self.inner.check()?))
    }

    /// The record a ref names, or `null`.
    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn head(&self, reference: String) -> AsyncTask<Work<Option<String>>> {
        let store = Arc::clone(&self.inner);
        spawn(move || head_impl(&store, &reference))
    }

    /// `head()`, blocking the JavaScript thread.
    #[napi]
    pub fn head_sync(&self, env: Env, reference: String) -> napi::Result<Option<String>> {
        block(&env, || head_impl(&self.inner, &reference))
    }

    /// The records on a ref, newest first.
    #[napi(ts_return_type = "Promise<string[]>")]
    pub fn history(&self, reference: String) -> AsyncTask<Work<Vec<String>>> {
        let store = Arc::clone(&self.inner);
        spawn(move || history_impl(&store, &reference))
    }

    /// `history()`, blocking the JavaScript thread.
    #[napi]
    pub fn history_sync(&self, env: Env, reference: String) -> napi::Result<Vec<String>> {
        block(&env, || history_impl(&self.inner, &reference))
    }

    /// Every ref and the record it names, sorted by name.
    #[napi(ts_return_type = "Promise<RefHead[]>")]
    pub fn refs(&self) -> AsyncTask<Work<Vec<RefHead>>> {
        let store = Arc::clone(&self.inner);
        spawn(move || refs_impl(&store))
    }

    /// `refs()`, blocking the JavaScript thread.
    #[napi]
    pub fn refs_sync(&self, env: Env) -> napi::Result<Vec<RefHead>> {
        block(&env, || refs_impl(&self.inner))
    }
}

fn head_impl(store: &ledger_core::Store, reference: &str) -> Result<Option<String>, Failure> {
    Ok(store.head(reference)?.map(|id| id.to_string()))
}

fn history_impl(store: &ledger_core::Store, reference: &str) -> Result<Vec<String>, Failure> {
    Ok(store
        .history(reference)?
        .iter()
        .map(ToString::to_string)
        .collect())
}

fn refs_impl(store: &ledger_core::Store) -> Result<Vec<RefHead>, Failure> {
    Ok(store
        .refs()?
        .into_iter()
        .map(|(name, id)| RefHead {
            name,
            id: id.to_string(),
        })
        .collect())
}
