//! Scopes, sets and fingerprints beyond one expansion, as the doors call
//! them: a scope resolved, a set compared with the disk now, the fingerprint
//! of entries the caller gives, and where a Git worktree starts.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;

use super::expand::ScopeOptions;
use super::records::checked_inventory;
use super::{Verb, Workspace};
use crate::{Comparison, DisplayPath, Entry, Error, Fingerprint, Inventory, Result, Scope};

/// The scope as an expansion would cover it: the workspace made absolute, the
/// default repository filled in, the store exclusion present.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct ResolveScopeOptions(ScopeOptions);

fn resolve_scope(ws: &Workspace, o: ResolveScopeOptions) -> Result<Scope> {
    ws.scope(&o.0)?.resolve()
}

/// Re-expands an inventory's scope plus every path it held, in this
/// workspace (a moved checkout: its paths are relative to it), and reports
/// what changed, path by path.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompareOptions {
    /// The inventory, as `inventory`, `change_inventory` or `read_record` gave
    /// it; its entries must give its fingerprint.
    pub inventory: Inventory,
}

fn compare(ws: &Workspace, o: CompareOptions) -> Result<Comparison> {
    let inventory = checked_inventory(o.inventory)?;
    inventory.relocate(ws.path().to_owned()).compare()
}

/// One entry as the caller gives it: its four parts as text, checked by the
/// core (`bad-entry`, `invalid-path`), as `ledger entries` prints them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntryParts {
    /// The workspace path (`/`-separated, relative).
    pub path: String,
    /// `file`, `symlink` or `missing`.
    pub kind: String,
    /// Git's mode: `100644`, `100755`, `120000`, or `-` for a missing path.
    pub mode: String,
    /// 64 lowercase hex digits of SHA-256, or `-` for a missing path.
    pub digest: String,
}

/// The v1 fingerprint of `entries`, in any order: they are sorted by the
/// UTF-8 bytes of their paths; a path given twice is `duplicate-entry`, an
/// invalid entry `bad-entry`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FingerprintEntriesOptions {
    /// The entries.
    pub entries: Vec<EntryParts>,
}

fn fingerprint_entries(o: FingerprintEntriesOptions) -> Result<Fingerprint> {
    let entries = (o.entries.iter())
        .map(|e| Entry::from_parts(&e.path, &e.kind, &e.mode, &e.digest))
        .collect::<Result<Vec<Entry>>>()?;
    crate::fingerprint_entries(entries)
}

/// A fingerprint in its one canonical form (`sha256:` and 64 lowercase hex
/// digits); anything else is `bad-fingerprint`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParseFingerprintOptions {
    /// The text, e.g. `sha256:8a18…`.
    pub text: String,
}

fn parse_fingerprint(o: ParseFingerprintOptions) -> Result<Fingerprint> {
    o.text.parse()
}

/// The top directory of the Git worktree containing `path`, or null outside
/// Git.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorktreeRootOptions {
    /// A directory (relative to the current directory, or absolute).
    pub path: String,
}

fn worktree_root(o: WorktreeRootOptions) -> Result<Option<String>> {
    let Some(root) = crate::worktree_root(Path::new(&o.path))? else {
        return Ok(None);
    };
    root.into_os_string().into_string().map(Some).map_err(|p| {
        let bytes = std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str());
        Error::NonUtf8Path {
            path: DisplayPath::from_bytes(bytes),
        }
    })
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("resolve_scope", &[], resolve_scope),
        Verb::method("compare", &["inventory"], compare),
        Verb::free("fingerprint_entries", &["entries"], fingerprint_entries),
        Verb::free("parse_fingerprint", &["text"], parse_fingerprint),
        Verb::free("worktree_root", &["path"], worktree_root),
    ]
}
