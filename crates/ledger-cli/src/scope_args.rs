//! The flags that declare a scope, shared by every verb that expands one.

use camino::Utf8PathBuf;
use clap::Args;
use ledger_core::{
    Error, Settings,
    expand::{Inventory, Scope, ScopeLists},
    tasks::TaskRule,
};

// The flags that declare a scope (docs/records.md, `scope`).
#[derive(Args)]
pub struct ScopeArgs {
    /// Workspace directory [default: the top of the Git checkout containing the
    /// current directory, else the current directory].
    #[arg(long, value_name = "DIR")]
    workspace: Option<Utf8PathBuf>,
    /// A Git repository at or below the workspace (`.` for the workspace itself)
    /// [default: the repository containing the workspace].
    #[arg(long = "repo", value_name = "P")]
    repos: Vec<String>,
    /// A directory root or single path selecting candidates [default: `.`].
    #[arg(long = "root", value_name = "P")]
    roots: Vec<String>,
    /// An exact path to include regardless of Git (e.g. an ignored input).
    #[arg(long = "path", value_name = "P")]
    paths: Vec<String>,
    /// A path, directory root or gitignore-style pattern (`g/case-*.md`,
    /// `risks-*.md`, `**/gen`) to leave out (recorded as "excluded by the
    /// caller"; `--exclude-because` records why). One that removes nothing
    /// is refused (unmatched-exclusion).
    #[arg(long = "exclude", value_name = "P")]
    excludes: Vec<String>,
    /// A path, directory root or pattern to leave out, with the reason a
    /// reviewer reads (seed 000: an exclusion has an explained boundary), e.g.
    /// `--exclude-because vendor "third-party code, reviewed upstream"`.
    #[arg(long = "exclude-because", num_args = 2, value_names = ["P", "REASON"])]
    excludes_because: Vec<String>,
    /// Take an exclusion that removes nothing instead of refusing it
    /// (`entries --excluded` lists it as removing nothing).
    #[arg(long)]
    allow_unmatched_exclusions: bool,
    /// A Tasks file: included, with the task-checkbox normalization.
    #[arg(long = "tasks", value_name = "P")]
    tasks: Vec<String>,
    /// The rule the `--tasks` files are normalized under (docs/format.md §4)
    /// [default: task-checkbox-v1].
    #[arg(long, value_name = "R", value_parser = task_rule())]
    task_rule: Option<TaskRule>,
    /// What the set is for (stored in the scope).
    #[arg(long, value_name = "TEXT")]
    purpose: Option<String>,
}

impl ScopeArgs {
    /// Whether no scope flag was given at all.
    pub fn is_empty(&self) -> bool {
        self.workspace.is_none()
            && self.repos.is_empty()
            && self.roots.is_empty()
            && self.paths.is_empty()
            && self.excludes.is_empty()
            && self.excludes_because.is_empty()
            && self.tasks.is_empty()
            && self.task_rule.is_none()
            && self.purpose.is_none()
    }

    /// Whether a flag selecting inputs was given (any but `--workspace`).
    pub fn selects(&self) -> bool {
        !(self.repos.is_empty()
            && self.roots.is_empty()
            && self.paths.is_empty()
            && self.excludes.is_empty()
            && self.excludes_because.is_empty()
            && self.tasks.is_empty()
            && self.task_rule.is_none()
            && self.purpose.is_none())
    }

    /// The workspace `--workspace` names, else the default one.
    pub fn workspace(&self) -> Result<Utf8PathBuf, Error> {
        match &self.workspace {
            Some(dir) => Ok(dir.clone()),
            None => default_workspace(),
        }
    }

    /// The expansion of the scope these flags declare, once `adjust` has
    /// changed it, with each repository opened once (the default workspace is
    /// found in the repository the expansion lists).
    pub fn expand(
        &self,
        settings: &Settings,
        adjust: impl FnOnce(&mut Scope) -> Result<(), Error>,
    ) -> Result<Inventory, Error> {
        ledger_core::expand::opened_once(|| {
            let mut scope = self.to_scope(settings)?;
            adjust(&mut scope)?;
            Inventory::expand(&scope)
        })
    }

    /// The scope these flags declare, with the run's settings.
    pub fn to_scope(&self, settings: &Settings) -> Result<Scope, Error> {
        let workspace = match &self.workspace {
            Some(dir) => dir.clone(),
            None => default_workspace()?,
        };
        let lists = ScopeLists {
            repositories: self.repos.clone(),
            roots: self.roots.clone(),
            paths: self.paths.clone(),
            exclusions: exclusions(&self.excludes, &self.excludes_because),
            tasks: self.tasks.clone(),
            purpose: self.purpose.clone().unwrap_or_default(),
        };
        let scope = Scope::from_lists_with(workspace, &lists, self.task_rule.unwrap_or_default())?;
        Ok(scope
            .allowing_unmatched_exclusions(self.allow_unmatched_exclusions)
            .with_settings(settings.clone()))
    }
}

/// Parses `--task-rule`: one of the core's names, listed in `--help`.
pub fn task_rule() -> impl clap::builder::TypedValueParser<Value = TaskRule> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(TaskRule::ALL.map(TaskRule::as_str))
        .try_map(|name| name.parse::<TaskRule>().map_err(|e: Error| e.to_string()))
}

/// The default workspace: the top of the Git checkout containing the current
/// directory, else the current directory.
pub fn default_workspace() -> Result<Utf8PathBuf, Error> {
    let cwd = std::env::current_dir().map_err(|source| Error::Unreadable {
        path: ".".into(),
        operation: "find the current directory",
        source,
    })?;
    ledger_core::expand::default_workspace(&cwd)
}

/// The exclusions of `--exclude P` (the default reason) and
/// `--exclude-because P REASON` (`because` holds the pairs flat, as clap
/// gives two values an occurrence).
pub fn exclusions(excludes: &[String], because: &[String]) -> Vec<(String, Option<String>)> {
    let bare = excludes.iter().map(|path| (path.clone(), None));
    let explained = (because.chunks_exact(2)).map(|pair| (pair[0].clone(), Some(pair[1].clone())));
    bare.chain(explained).collect()
}
