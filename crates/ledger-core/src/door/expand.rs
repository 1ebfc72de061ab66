//! The generic engine's verbs: a scope's fingerprint and inventory.

use camino::Utf8Path;
use schemars::JsonSchema;

use serde::{Deserialize, Deserializer};

use super::{Verb, Workspace, text};
use crate::{
    Result,
    expand::{
        AtRevision, ExclusionMatch, FileSet, Fingerprint, Inventory, Overlap, Scope, ScopeLists,
    },
    tasks::TaskRule,
};

/// A scope of the workspace: which files an inventory covers (docs/format.md
/// §2; the CLI's scope flags). Lists that name no root, path or Tasks file
/// declare the whole workspace.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScopeOptions {
    /// Git repositories at or below the workspace (`.` = the workspace);
    /// default: the repository containing the workspace.
    #[serde(default)]
    pub repos: Vec<String>,
    /// Directory roots or single paths selecting candidates; default `.`.
    #[serde(default)]
    pub roots: Vec<String>,
    /// Exact paths added regardless of Git, e.g. an ignored input.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Paths or directories left out, bare or with the reason a reviewer
    /// reads; `.ledger/` always is.
    #[serde(default)]
    pub exclude: Vec<Exclude>,
    /// Tasks files, hashed with their task-checkbox normalization.
    #[serde(default)]
    pub tasks: Vec<String>,
    /// The rule the Tasks files are normalized under; default `task-checkbox-v1`.
    #[serde(default)]
    pub task_rule: Option<TaskRule>,
    /// What the set is for (kept in the scope).
    #[serde(default)]
    pub purpose: String,
    /// Take an exclusion that removes nothing instead of refusing it
    /// (`unmatched-exclusion`); `exclusion_matches` lists it as removing none.
    #[serde(default)]
    pub allow_unmatched_exclusions: bool,
}

impl ScopeOptions {
    /// The core scope these options declare in `workspace`.
    pub fn to_scope(&self, workspace: &Utf8Path) -> Result<Scope> {
        let lists = ScopeLists {
            repositories: self.repos.clone(),
            roots: self.roots.clone(),
            paths: self.paths.clone(),
            exclusions: (self.exclude.iter())
                .map(|e| (e.path.clone(), e.reason.clone()))
                .collect(),
            tasks: self.tasks.clone(),
            purpose: self.purpose.clone(),
        };
        let scope = Scope::from_lists_with(workspace, &lists, self.task_rule.unwrap_or_default())?;
        Ok(scope.allowing_unmatched_exclusions(self.allow_unmatched_exclusions))
    }
}

/// A path or directory removed from the candidates: its text alone (the
/// default reason is recorded), or `{path, reason}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exclude {
    /// A workspace path or directory root.
    pub path: String,
    /// Why it is excluded.
    pub reason: Option<String>,
}

impl<'de> Deserialize<'de> for Exclude {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        /// The object form; its keys are single words, the same in every case.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct WithReason {
            path: String,
            reason: String,
        }
        #[derive(Deserialize)]
        #[serde(untagged, expecting = "a path, or {path, reason}")]
        enum Form {
            Bare(String),
            WithReason(WithReason),
        }
        Ok(match Form::deserialize(d)? {
            Form::Bare(path) => Exclude { path, reason: None },
            Form::WithReason(WithReason { path, reason }) => Exclude {
                path,
                reason: Some(reason),
            },
        })
    }
}

impl JsonSchema for Exclude {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Exclude".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A path or directory left out: its text alone (the default reason is recorded), or with the reason a reviewer reads.",
            "anyOf": [
                { "type": "string" },
                {
                    "type": "object",
                    "properties": {
                        "path": { "type": "string", "description": "A workspace path or directory root." },
                        "reason": { "type": "string", "description": "Why it is excluded." },
                    },
                    "required": ["path", "reason"],
                    "additionalProperties": false,
                },
            ],
        })
    }
}

/// The v1 fingerprint of the scope's inventory (`ledger fingerprint`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct FingerprintOptions(ScopeOptions);

/// Lists, reads and fingerprints the scope's files (`ledger inventory --json`):
/// the scope as resolved, the roots walked outside Git, every entry.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct InventoryOptions(ScopeOptions);

fn fingerprint(ws: &Workspace, options: FingerprintOptions) -> Result<Fingerprint> {
    Ok(Inventory::expand(&ws.scope(&options.0)?)?.fingerprint)
}

fn inventory(ws: &Workspace, options: InventoryOptions) -> Result<Inventory> {
    Inventory::expand(&ws.scope(&options.0)?)
}

/// The scope as it is in the commit `rev` names (`ledger entries --rev`),
/// read from Git's objects: that commit's full id and the inventory (for a
/// clean checkout of it, the working tree's). Results are bound to the full
/// id, never to the revision as given.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InventoryAtOptions {
    /// Any revision Git reads (`HEAD`, `main~2`, a tag, a full or short id),
    /// peeled to its commit.
    pub rev: String,
    /// The scope; default: the whole workspace.
    #[serde(default)]
    pub scope: ScopeOptions,
}

fn inventory_at(ws: &Workspace, options: InventoryAtOptions) -> Result<AtRevision> {
    Inventory::expand_at(&ws.scope(&options.scope)?, &options.rev)
}

/// What each exclusion of the scope removes now (`ledger entries
/// --excluded`): its candidates, or none (which a declared exclusion may
/// only do when `allow_unmatched_exclusions` says so).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct ExclusionMatchesOptions(ScopeOptions);

fn exclusion_matches(
    ws: &Workspace,
    options: ExclusionMatchesOptions,
) -> Result<Vec<ExclusionMatch>> {
    crate::expand::exclusion_matches(&ws.scope(&options.0)?)
}

/// One scope of [`OverlapOptions`]: a writer's name and its file set.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NamedScope {
    /// The writer's name (a fixer, an agent), unique among the scopes.
    pub name: String,
    /// Its file set; default: none of its own when it names patterns,
    /// else the whole workspace.
    #[serde(default)]
    pub scope: Option<ScopeOptions>,
    /// Gitignore-style patterns (`g/case-*.md`, `risks-*.md`) whose matches
    /// among the workspace's candidates it holds too.
    #[serde(default)]
    pub patterns: Vec<String>,
}

/// Which of two or more writers' file sets overlap (`ledger overlap`): every
/// path more than one scope holds, with their names; `disjoint` when none
/// does (seed 001: overlapping fixers run one after another).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OverlapOptions {
    /// The scopes, two or more, in order.
    pub scopes: Vec<NamedScope>,
}

fn overlap(ws: &Workspace, options: OverlapOptions) -> Result<Overlap> {
    let sets = (options.scopes.iter())
        .map(|named| {
            let scope = match &named.scope {
                Some(scope) => ws.scope(scope)?,
                None if !named.patterns.is_empty() => {
                    ws.scope(&ScopeOptions::default())?.selecting_nothing()
                }
                None => ws.scope(&ScopeOptions::default())?,
            };
            Ok(FileSet {
                name: named.name.clone(),
                scope,
                patterns: named.patterns.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    crate::expand::overlap_sets(&sets)
}

/// The verbs of this file.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("fingerprint", &[], fingerprint).shown(|f: &Fingerprint| format!("{f}\n")),
        Verb::method("inventory", &[], inventory).shown(text::entries),
        Verb::method("inventory_at", &["rev"], inventory_at).shown(|at: &AtRevision| {
            format!("{}commit {}\n", text::entries(&at.inventory), at.commit)
        }),
        Verb::method("overlap", &["scopes"], overlap).shown(text::overlap),
        Verb::method("exclusion_matches", &[], exclusion_matches)
            .shown(|m: &Vec<ExclusionMatch>| text::exclusion_matches(m)),
    ]
}
