//! Scope options (`{ workspace, repos, roots, paths, exclude, tasks }`) and
//! their translation into the core's `Scope`, the way the CLI's scope flags are.

use ledger_core::{Scope, ScopeLists, TaskRule};
use napi::Env;
use napi::bindgen_prelude::{AsyncTask, Either};
use napi_derive::napi;

use crate::error::Failure;
use crate::json::{Json, json};
use crate::task::{Work, block, spawn};

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
    /// The rule the Tasks files are normalized under; default
    /// `task-checkbox-v1` (`--task-rule`).
    #[napi(ts_type = "TaskRule")]
    pub task_rule: Option<String>,
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
        let lists = ScopeLists {
            repositories: self.repos.clone().unwrap_or_default(),
            roots: self.roots.clone().unwrap_or_default(),
            paths: self.paths.clone().unwrap_or_default(),
            exclusions: self
                .exclude
                .iter()
                .flatten()
                .map(|e| match e {
                    Either::A(path) => (path.clone(), None),
                    Either::B(e) => (e.path.clone(), Some(e.reason.clone())),
                })
                .collect(),
            tasks: self.tasks.clone().unwrap_or_default(),
            purpose: self.purpose.clone().unwrap_or_default(),
        };
        let rule = parse_rule(self.task_rule.as_deref())?;
        Ok(Scope::from_lists_with(
            self.workspace.as_str(),
            &lists,
            rule,
        )?)
    }
}

/// A rule name from JavaScript (a bad name is `invalid-argument`).
pub fn parse_rule_name(name: &str) -> Result<TaskRule, Failure> {
    Ok(name.parse()?)
}

/// An optional rule name from JavaScript; none is the default.
pub fn parse_rule(name: Option<&str>) -> Result<TaskRule, Failure> {
    Ok(name.map(parse_rule_name).transpose()?.unwrap_or_default())
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
