//! Scopes, sets and fingerprints beyond one expansion, as the doors call
//! them: a scope resolved, a set compared with the disk now, the fingerprint
//! of entries the caller gives, and where a Git worktree starts.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;

use super::expand::ScopeOptions;
use super::records::checked_inventory;
use super::{Verb, Workspace, text};
use crate::{
    DisplayPath, Error, Result,
    expand::{Entry, Fingerprint, Inventory, Scope},
    records::{Comparison, InventoryRecord},
};

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
    /// The inventory, as `inventory` or `change_inventory` gave it, or an
    /// inventory record as `read_record` or `parse_record` gave it (as read
    /// from disk); its entries must give its fingerprint.
    #[schemars(schema_with = "super::records::output_of::<Inventory>")]
    pub inventory: InventoryOrRecord,
}

fn compare(ws: &Workspace, o: CompareOptions) -> Result<Comparison> {
    let inventory = match o.inventory {
        InventoryOrRecord::Inventory(inventory) => {
            checked_inventory(inventory)?.relocate(ws.path().to_owned())
        }
        InventoryOrRecord::Record(record) => record.inventory_in(ws.path()),
    };
    // Re-expanded with this workspace's settings: a record keeps none.
    inventory.with_settings(ws.settings().clone()).compare()
}

/// What `compare` takes: an inventory, or an inventory record (which holds
/// one, with its format, version, writer and what its caller observed).
#[derive(Debug)]
pub enum InventoryOrRecord {
    /// As `inventory` gave it.
    Inventory(Inventory),
    /// As `read_record` gave it, checked as a record file is.
    Record(InventoryRecord),
}

/// The parts of an inventory or a record, as read.
#[derive(Default)]
struct Parts {
    format: Option<String>,
    version: Option<String>,
    written_by: Option<String>,
    fingerprint: Option<Fingerprint>,
    scope: Option<Scope>,
    walked_roots: Option<Vec<String>>,
    observed: Option<crate::records::Observed>,
    entries: Option<Vec<Entry>>,
}

impl Parts {
    /// A record when a format is named (checked as a record file is), else
    /// an inventory.
    fn into_either(self) -> std::result::Result<InventoryOrRecord, String> {
        let missing = |field: &str| format!("missing field `{field}`");
        let fingerprint = self.fingerprint.ok_or_else(|| missing("fingerprint"))?;
        let scope = self.scope.ok_or_else(|| missing("scope"))?;
        let entries = self.entries.ok_or_else(|| missing("entries"))?;
        let walked_roots = self.walked_roots.unwrap_or_default();
        let Some(format) = self.format else {
            return Ok(InventoryOrRecord::Inventory(Inventory {
                scope,
                walked_roots,
                entries,
                fingerprint,
            }));
        };
        let record = InventoryRecord {
            format,
            version: self.version.ok_or_else(|| missing("version"))?,
            written_by: self.written_by.ok_or_else(|| missing("written_by"))?,
            fingerprint,
            scope,
            walked_roots,
            observed: self.observed.unwrap_or_default(),
            entries,
        };
        // Checked as a record read from a file is.
        InventoryRecord::from_json(&record.to_json(), "inventory")
            .map(InventoryOrRecord::Record)
            .map_err(|e| e.to_string())
    }
}

/// Every field of both forms: a door renames the caller's spelling of each
/// (`walkedRoots`, `writtenBy`) and refuses any other.
const INVENTORY_OR_RECORD_FIELDS: &[&str] = &[
    "format",
    "version",
    "written_by",
    "fingerprint",
    "scope",
    "walked_roots",
    "observed",
    "entries",
];

impl<'de> Deserialize<'de> for InventoryOrRecord {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = InventoryOrRecord;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an inventory or an inventory record")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                // Each part read as its own type, so that a door renames the
                // fields inside it too (`taskRules` of a scope).
                let mut parts = Parts::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "format" => parts.format = Some(map.next_value()?),
                        "version" => parts.version = Some(map.next_value()?),
                        "written_by" => parts.written_by = Some(map.next_value()?),
                        "fingerprint" => parts.fingerprint = Some(map.next_value()?),
                        "scope" => parts.scope = Some(map.next_value()?),
                        "walked_roots" => parts.walked_roots = Some(map.next_value()?),
                        "observed" => parts.observed = Some(map.next_value()?),
                        "entries" => parts.entries = Some(map.next_value()?),
                        other => {
                            return Err(serde::de::Error::unknown_field(
                                other,
                                INVENTORY_OR_RECORD_FIELDS,
                            ));
                        }
                    }
                }
                parts.into_either().map_err(serde::de::Error::custom)
            }
        }
        deserializer.deserialize_struct("InventoryOrRecord", INVENTORY_OR_RECORD_FIELDS, Fields)
    }
}

/// One entry as the caller gives it: its four parts as text, checked by the
/// core (`bad-entry`, `invalid-path`), as `ledger entries` prints them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("x-accepts" = "Entry"))]
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

/// One entry given to `fingerprint_entries`: an object of its four parts,
/// or the four parts in order, `[path, kind, mode, digest]` (SPEC §12: a
/// Python 4-tuple, a JavaScript array).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "an entry: {path, kind, mode, digest} or [path, kind, mode, digest], four strings"
)]
pub enum EntryGiven {
    /// The parts by name.
    Parts(EntryParts),
    /// The parts in order: path, kind, mode, digest.
    InOrder(String, String, String, String),
}

impl EntryGiven {
    fn entry(&self) -> Result<Entry> {
        match self {
            EntryGiven::Parts(e) => Entry::from_parts(&e.path, &e.kind, &e.mode, &e.digest),
            EntryGiven::InOrder(path, kind, mode, digest) => {
                Entry::from_parts(path, kind, mode, digest)
            }
        }
    }
}

/// The v1 fingerprint of `entries`, in any order: they are sorted by the
/// UTF-8 bytes of their paths; a path given twice is `duplicate-entry`, an
/// invalid entry `bad-entry`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FingerprintEntriesOptions {
    /// The entries: objects, or `[path, kind, mode, digest]` each.
    pub entries: Vec<EntryGiven>,
}

fn fingerprint_entries(o: FingerprintEntriesOptions) -> Result<Fingerprint> {
    let entries = (o.entries.iter())
        .map(EntryGiven::entry)
        .collect::<Result<Vec<Entry>>>()?;
    crate::expand::fingerprint_entries(entries)
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
    let Some(root) = crate::expand::worktree_root(Path::new(&o.path))? else {
        return Ok(None);
    };
    root.into_os_string().into_string().map(Some).map_err(|p| {
        let bytes = crate::platform::OsStrBytes::as_bytes(p.as_os_str());
        Error::NonUtf8Path {
            path: DisplayPath::from_bytes(bytes),
        }
    })
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("resolve_scope", &[], resolve_scope),
        Verb::method("compare", &["inventory"], compare).shown(text::comparison),
        Verb::free("fingerprint_entries", &["entries"], fingerprint_entries),
        Verb::free("parse_fingerprint", &["text"], parse_fingerprint),
        Verb::free("worktree_root", &["path"], worktree_root),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::door::testing::code;
    use serde_json::{Value, json};

    use crate::door::{Case, Hooks, respond};

    fn call(ws: Option<&std::path::Path>, verb: &str, options: Value, case: Case) -> Value {
        let ws = ws.map(|p| p.to_str().unwrap());
        let reply = respond(ws, verb, &options.to_string(), case, &Hooks::default());
        serde_json::from_str(&reply).unwrap()
    }

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.txt"), "a\n").unwrap();
        std::fs::write(dir.path().join("src/b.txt"), "b\n").unwrap();
        dir
    }

    /// The README's example: `ws.compare(ledger.read_record("approved.json"))`,
    /// an inventory record as read from disk, in both spellings.
    #[test]
    fn a_record_as_read_from_disk_compares_too() {
        let dir = workspace();
        let ws = Some(dir.path());
        for case in [Case::Snake, Case::Camel] {
            let inventory = call(ws, "inventory", json!({"roots": ["src"]}), case)["ok"].clone();
            let text = call(
                None,
                "inventory_record",
                json!({"inventory": inventory}),
                case,
            )["ok"]
                .as_str()
                .unwrap()
                .to_owned();
            let record = call(None, "parse_record", json!({"text": text}), case)["ok"].clone();
            let same = call(ws, "compare", json!({"inventory": record}), case);
            assert_eq!(same["ok"]["matches"].as_bool(), Some(true), "{same}");
            let mut forged = record.clone();
            forged["entries"][0]["digest"] = json!("0".repeat(64));
            let reply = call(ws, "compare", json!({"inventory": forged}), case);
            assert!(reply["error"].is_object(), "{reply}");
        }
    }

    #[test]
    fn an_inventory_compares_in_the_workspace_it_is_given_to() {
        let dir = workspace();
        let ws = Some(dir.path());
        let inventory = call(ws, "inventory", json!({"roots": ["src"]}), Case::Camel)["ok"].clone();
        let same = call(ws, "compare", json!({"inventory": inventory}), Case::Camel);
        assert_eq!(
            (
                same["ok"]["matches"].as_bool(),
                same["ok"]["unchanged"].as_u64()
            ),
            (Some(true), Some(2)),
            "{same}"
        );
        // A moved checkout: the same paths, relative to another directory.
        let moved = workspace();
        std::fs::write(moved.path().join("src/b.txt"), "B\n").unwrap();
        std::fs::write(moved.path().join("src/c.txt"), "c\n").unwrap();
        let there = call(
            Some(moved.path()),
            "compare",
            json!({"inventory": inventory}),
            Case::Camel,
        );
        let kinds: Vec<&str> = (there["ok"]["changes"].as_array().unwrap().iter())
            .map(|c| c["change"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["content-changed", "added"], "{there}");
        // Edited by hand: refused, not compared.
        let mut forged = inventory.clone();
        forged["entries"][0]["digest"] = json!("0".repeat(64));
        let reply = call(ws, "compare", json!({"inventory": forged}), Case::Camel);
        assert_eq!(code(&reply), "invalid-argument", "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`inventory`")
        );
        let mut unsorted = inventory;
        unsorted["entries"].as_array_mut().unwrap().reverse();
        let reply = call(ws, "compare", json!({"inventory": unsorted}), Case::Camel);
        assert_eq!(code(&reply), "invalid-argument", "{reply}");
    }

    #[test]
    fn a_scope_resolves_as_an_expansion_would_cover_it() {
        let dir = workspace();
        let resolved = call(
            Some(dir.path()),
            "resolve_scope",
            json!({"roots": ["src/"]}),
            Case::Snake,
        );
        let scope = &resolved["ok"];
        let absolute = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(scope["workspace"], absolute.to_str().unwrap(), "{resolved}");
        assert_eq!(scope["roots"], json!(["src"]));
        assert_eq!(scope["exclusions"][0]["path"], ".ledger");
        let outside = call(
            Some(dir.path()),
            "resolve_scope",
            json!({"roots": ["../x"]}),
            Case::Snake,
        );
        assert_eq!(code(&outside), "outside-workspace", "{outside}");
    }

    #[test]
    fn entries_are_checked_by_the_core_before_they_are_fingerprinted() {
        let free = |options: Value| call(None, "fingerprint_entries", options, Case::Snake);
        let digest = "a".repeat(64);
        let entry = |path: &str, kind: &str, mode: &str, digest: &str| json!({"path": path, "kind": kind, "mode": mode, "digest": digest});
        let empty = free(json!({"entries": []}));
        assert_eq!(
            empty["ok"],
            "sha256:8a18fdb2a6e200deb5edc4025b5b0e99becb62f3e387dc915ec196d04f65fe99"
        );
        let a = entry("a", "file", "100644", &digest);
        let gone = entry("b", "missing", "-", "-");
        let one = free(json!({"entries": [a, gone]}));
        let other = free(json!({"entries": [gone, a]}));
        assert_eq!(one["ok"], other["ok"], "in any order");
        let bad = free(json!({"entries": [entry("a", "file", "120000", &digest)]}));
        assert_eq!(
            (code(&bad), bad["error"]["path"].as_str()),
            ("bad-entry", Some("a"))
        );
        let twice = free(json!({"entries": [a, a]}));
        assert_eq!(code(&twice), "duplicate-entry");
        let mut extra = a.clone();
        extra["size"] = json!(3);
        assert_eq!(code(&free(json!({"entries": [extra]}))), "invalid-argument");
        let parsed = call(
            None,
            "parse_fingerprint",
            json!({"text": one["ok"]}),
            Case::Snake,
        );
        assert_eq!(parsed["ok"], one["ok"]);
        let upper = one["ok"].as_str().unwrap().to_uppercase();
        let reply = call(
            None,
            "parse_fingerprint",
            json!({"text": upper}),
            Case::Snake,
        );
        assert_eq!(code(&reply), "bad-fingerprint");
    }

    #[test]
    fn a_worktree_root_is_the_top_of_the_checkout_holding_the_path() {
        let dir = workspace();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("deep/er")).unwrap();
        ledger_testkit::Git::isolated().init(&repo, &[]);
        let root = |path: &std::path::Path| {
            let options = json!({"path": path.to_str().unwrap()});
            call(None, "worktree_root", options, Case::Snake)
        };
        let found = root(&repo.join("deep/er"));
        let top = std::fs::canonicalize(&repo).unwrap();
        assert_eq!(found["ok"], top.to_str().unwrap(), "{found}");
        let missing = call(None, "worktree_root", json!({"paths": "."}), Case::Snake);
        assert_eq!(code(&missing), "invalid-argument");
    }
}
