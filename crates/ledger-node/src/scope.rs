//! Scope options (`{ workspace, repos, roots, paths, exclude, tasks }`) and
//! their translation into the core's `Scope`, the way the CLI's scope flags are.

use ledger_core::Scope;
use napi::Env;
use napi::bindgen_prelude::{AsyncTask, Either};
use napi_derive::napi;

use crate::error::Failure;
use crate::json::{Json, json};
use crate::task::{Work, block, spawn};

/// The reason recorded for an exclusion given as a bare path: the core's, so
/// that the same exclusion makes the same scope in every front door.
const EXCLUDED_BY_CALLER: &str = ledger_core::DEFAULT_EXCLUSION_REASON;

/// What an inventory covers. Every path is relative to `workspace`; each list
/// is optional and means what the CLI's repeatable flag of the same name does.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct ScopeOptions {
    /// The workspace directory.
    pub workspace: String,
    /// Git repositories at or below the workspace (`.` = the workspace);
    /// default: the repository containing the workspace (`--repo`).
    pub repos: Option<Vec<String>>,
    /// Directory roots or single paths selecting candidates; default `.` (`--root`).
    pub roots: Option<Vec<String>>,
    /// Exact paths added regardless of Git, e.g. an ignored input (`--path`).
    pub paths: Option<Vec<String>>,
    /// Paths or directories left out, bare or with the reason a reviewer
    /// reads; `.ledger/` always is (`--exclude`).
    #[napi(ts_type = "Array<string | Exclusion>")]
    pub exclude: Option<Vec<Either<String, Exclusion>>>,
    /// Tasks files, hashed with the task-checkbox normalization (`--tasks`).
    pub tasks: Option<Vec<String>>,
    /// What the set is for (stored in the scope).
    pub purpose: Option<String>,
}

/// A path or directory removed from the candidates, with the reason.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct Exclusion {
    /// A workspace path or directory root.
    pub path: String,
    /// Why it is excluded.
    pub reason: String,
}

impl ScopeOptions {
    /// The core scope these options declare (`Scope::new` and its `add_*`).
    pub fn to_scope(&self) -> Result<Scope, Failure> {
        let mut scope = Scope::new(self.workspace.as_str());
        for p in self.repos.iter().flatten() {
            scope.add_repository(p)?;
        }
        for p in self.roots.iter().flatten() {
            scope.add_root(p)?;
        }
        for p in self.paths.iter().flatten() {
            scope.add_path(p)?;
        }
        for e in self.exclude.iter().flatten() {
            match e {
                Either::A(path) => scope.exclude(path, EXCLUDED_BY_CALLER)?,
                Either::B(e) => scope.exclude(&e.path, &e.reason)?,
            }
        }
        for p in self.tasks.iter().flatten() {
            scope.add_tasks(p)?;
        }
        scope.purpose = self.purpose.clone().unwrap_or_default();
        Ok(scope)
    }
}

fn resolve_scope_impl(options: &ScopeOptions) -> Result<Json, Failure> {
    json(&options.to_scope()?.resolve()?)
}

/// The scope as an expansion would cover it: the workspace made absolute, the
/// default repository filled in, the store exclusion present (`Scope::resolve`).
#[napi(ts_return_type = "Promise<Scope>")]
pub fn resolve_scope(options: ScopeOptions) -> AsyncTask<Work<Json>> {
    spawn(move || resolve_scope_impl(&options))
}

/// `resolveScope`, blocking the JavaScript thread.
#[napi(ts_return_type = "Scope")]
pub fn resolve_scope_sync(env: Env, options: ScopeOptions) -> napi::Result<Json> {
    block(&env, || resolve_scope_impl(&options))
}
