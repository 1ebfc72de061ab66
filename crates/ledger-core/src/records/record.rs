//! Inventory records (docs/records.md): an inventory as a versioned JSON document.
//!
//! The format is documented in `docs/records.md`, with a JSON Schema in
//! `docs/inventory-record.schema.json`. Reading is strict: the entries must be
//! sorted, unique and reproduce the stored fingerprint, so that a record that was
//! edited by hand or truncated is refused rather than trusted.

use std::collections::BTreeMap;

use camino::{Utf8Path, Utf8PathBuf};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::entry::Entry;
use crate::expand::fingerprint::{Fingerprint, fingerprint_sorted};
use crate::expand::inventory::Inventory;
use crate::expand::scope::Scope;
use crate::records::store::Store;

/// The `format` field of every inventory record.
pub const RECORD_FORMAT: &str = "ledger-inventory";

/// The version this library writes: 1.3, a host-free record, whose
/// `scope.workspace` is relative to the workspace the record belongs to
/// (always `.` for a record this library writes). Readers accept any `1.x`:
/// from 1.3 on the workspace is relative, before it (1.0 to 1.2, written
/// before host-free records) it is absolute (docs/records.md, Versioning).
pub const RECORD_VERSION: &str = "1.3";

/// The version records whose scope names a task rule (`scope.task_rules`)
/// were written with before host-free records; they read as they always did.
/// Since 1.3 a record with task rules is [`RECORD_VERSION`] too.
pub const TASK_RULES_VERSION: &str = "1.2";

/// The reason recorded when a record's own file is excluded from its set
/// ([`Scope::exclude_own_record`]).
pub const OWN_RECORD_REASON: &str =
    "the inventory record itself: written after the expansion, it cannot be part of its own set";

impl Scope {
    /// Prepares the scope for a record that will be written to `file` (the
    /// CLI's `inventory --out`): when `file` lies in the workspace where a root
    /// selects it, it is excluded with [`OWN_RECORD_REASON`], so that the next
    /// `verify` does not report the record itself as added. A file the scope
    /// names exactly (a path or a Tasks file) is refused (`invalid-argument`):
    /// a record cannot hold its own digest. A file outside the workspace, in
    /// the store, already excluded, or under no root changes nothing; so does
    /// one whose directory cannot be found (writing it fails later, naming it).
    pub fn exclude_own_record(&mut self, file: &Utf8Path) -> Result<()> {
        let Some(path) = self.own_path(file)? else {
            return Ok(());
        };
        if self.paths.contains(&path) || self.task_rule(&path).is_some() {
            return Err(Error::InvalidArgument {
                message: format!(
                    "the record file {} is named by the scope (an exact path or a Tasks file): a record cannot be part of its own set; write it elsewhere",
                    crate::quote::quote(path.as_str())
                ),
            });
        }
        let selected = self.roots.iter().any(|root| path.is_within(root));
        if selected && !self.is_excluded(path.as_str()) && !path.is_within(crate::expand::STORE_DIR)
        {
            self.exclude(path.as_str(), OWN_RECORD_REASON)?;
        }
        Ok(())
    }

    /// `file` as a path of the workspace (both with symlinks resolved, the file
    /// itself not followed); `None` when it lies outside or cannot be placed.
    fn own_path(&self, file: &Utf8Path) -> Result<Option<crate::path::WorkspacePath>> {
        let (Some(name), Ok(workspace)) = (file.file_name(), self.workspace.canonicalize_utf8())
        else {
            return Ok(None);
        };
        let parent = match file.parent() {
            Some(p) if !p.as_str().is_empty() => p,
            _ => Utf8Path::new("."),
        };
        let Ok(dir) = parent.canonicalize_utf8() else {
            return Ok(None);
        };
        match dir.join(name).strip_prefix(&workspace) {
            Ok(relative) if !relative.as_str().is_empty() => {
                crate::path::WorkspacePath::new(relative.as_str()).map(Some)
            }
            _ => Ok(None),
        }
    }
}

/// What the caller observed around the inventory: nothing here is verified by
/// ledger, it is stored so that a reader knows how the set was used.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct Observed {
    /// The command the set was taken for (e.g. a gate's argv), if any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// Tool name → version, e.g. `rustc` → `rustc 1.95.0`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, String>,
    /// Free-form key → value pairs.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub meta: BTreeMap<String, String>,
}

/// An inventory with its format header and observed metadata. Fields serialize
/// in the order below: small, human-read fields first, the entries last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InventoryRecord {
    /// Always [`RECORD_FORMAT`].
    pub format: String,
    /// `major.minor`; this library writes [`RECORD_VERSION`].
    pub version: String,
    /// The version of ledger that wrote the record.
    pub written_by: String,
    /// The fingerprint of `entries`.
    pub fingerprint: Fingerprint,
    /// The scope, as resolved at expansion.
    pub scope: Scope,
    /// Roots outside every repository, walked in full.
    pub walked_roots: Vec<String>,
    /// What the caller observed.
    #[serde(default)]
    pub observed: Observed,
    /// Every entry, ascending by path bytes.
    pub entries: Vec<Entry>,
}

impl InventoryRecord {
    /// Wraps an inventory for storage. The record belongs to the inventory's
    /// own workspace, so its scope's workspace is written `.`: the record
    /// holds no host path, and a reader takes it in its own workspace
    /// ([`InventoryRecord::inventory_in`]).
    pub fn new(inventory: Inventory, observed: Observed) -> Self {
        InventoryRecord {
            format: RECORD_FORMAT.to_owned(),
            version: RECORD_VERSION.to_owned(),
            written_by: concat!("ledger ", env!("CARGO_PKG_VERSION")).to_owned(),
            fingerprint: inventory.fingerprint,
            scope: inventory.scope.in_workspace(Utf8PathBuf::from(".")),
            walked_roots: inventory.walked_roots,
            observed,
            entries: inventory.entries,
        }
    }

    /// The inventory the record holds.
    pub fn inventory(&self) -> Inventory {
        Inventory {
            scope: self.scope.clone(),
            walked_roots: self.walked_roots.clone(),
            entries: self.entries.clone(),
            fingerprint: self.fingerprint,
        }
    }

    /// The inventory the record holds, in `workspace`, the caller's: a
    /// host-free record's relative workspace is taken below it
    /// ([`Scope::rerooted`]); a record written before host-free records names
    /// an absolute workspace, which is replaced by `workspace` (as `verify`
    /// always did: a record's own workspace is never where ledger reads).
    pub fn inventory_in(&self, workspace: &Utf8Path) -> Inventory {
        let inventory = self.inventory();
        match inventory.scope.workspace.is_absolute() {
            true => inventory.relocate(workspace),
            // Checked when the record was read: in normal form, so it joins.
            false => inventory.clone().rerooted(workspace).unwrap_or(inventory),
        }
    }

    /// The record as pretty-printed JSON, ending with a newline.
    pub fn to_json(&self) -> String {
        to_pretty_json(self)
    }

    /// Parses and checks a record. `source` names it in errors (a file path).
    ///
    /// Refused with `unsupported-version`: another format or major version.
    /// Refused with `malformed-record`: invalid JSON, wrong types, an invalid
    /// path or fingerprint, unsorted or duplicate entries, or a fingerprint the
    /// entries do not reproduce.
    pub fn from_json(text: &str, source: &str) -> Result<Self> {
        let malformed = |reason: String| Error::MalformedRecord {
            record: DisplayPath::from(source),
            reason,
        };
        // The version first, from the two fields alone: a record of another
        // version is reported as such, whatever its shape.
        let head = if text.trim_start().starts_with('{') {
            serde_json::from_str::<Head>(text).map_err(|e| malformed(e.to_string()))?
        } else {
            // Valid JSON but not an object: no format, no version.
            serde_json::from_str::<IgnoredAny>(text).map_err(|e| malformed(e.to_string()))?;
            Head::default()
        };
        check_version(&head, source)?;
        // Then the record straight from the text (no intermediate JSON tree, which
        // would take several times the record's size).
        let mut json = serde_json::Deserializer::from_str(text);
        let mut record: InventoryRecord = serde_path_to_error::deserialize(&mut json)
            .map_err(|e| malformed(format!("at {}: {}", e.path(), e.inner())))?;
        upgrade_legacy_scope(&mut record);
        record
            .scope
            .validate()
            .map_err(|e| malformed(format!("at scope: {e}")))?;
        check_workspace(&record).map_err(|why| malformed(format!("at scope.workspace: {why}")))?;
        let computed =
            fingerprint_sorted(&record.entries).map_err(|e| malformed(format!("entries: {e}")))?;
        if computed != record.fingerprint {
            return Err(malformed(format!(
                "the entries give {computed}, not the stored {}",
                record.fingerprint
            )));
        }
        Ok(record)
    }

    /// Writes the record to `path` atomically (a temporary file in the same
    /// directory, synced, renamed over `path`, the directory synced), so that a
    /// reader never sees half a record.
    ///
    /// Only a new file or an existing regular file with no other hard link is
    /// replaced: a symlink, device, FIFO or directory is refused (`unwritable`),
    /// as is a file whose other names a rename would silently part from. The new
    /// file gets the mode any new file gets (`0o644` less the umask).
    pub fn write(&self, path: &Utf8Path) -> Result<()> {
        use std::io::Write as _;
        let failed = |operation: &'static str, source: std::io::Error| Error::Unwritable {
            path: DisplayPath::from(path.as_str()),
            operation,
            source,
        };
        let refused = |operation| failed(operation, std::io::ErrorKind::InvalidInput.into());
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(refused(
                    "replace (it is a symlink, which ledger never writes through)",
                ));
            }
            Ok(meta) if !meta.is_file() => {
                return Err(refused("replace (it is not a regular file)"));
            }
            Ok(meta) if crate::platform::link_count(&meta) > 1 => {
                return Err(refused(
                    "replace (it has other hard links, which a new record would part from)",
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(failed("stat", e)),
        }
        let dir = match path.parent() {
            Some(p) if !p.as_str().is_empty() => p,
            _ => Utf8Path::new("."),
        };
        let name = path.file_name().unwrap_or("record");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let temp = dir.join(format!(".{name}.{}-{nanos}.tmp", std::process::id()));
        let mut file = crate::platform::create_new(&temp, 0o644)
            .map_err(|e| failed("create a temporary file for", e))?;
        let written = file
            .write_all(self.to_json().as_bytes())
            .and_then(|()| file.sync_all())
            .and_then(|()| std::fs::rename(&temp, path))
            .and_then(|()| std::fs::File::open(dir)?.sync_all());
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(failed("write", e));
        }
        Ok(())
    }

    /// Reads a record file: a regular file, not through a symlink, at most 1 GiB.
    pub fn read(path: &Utf8Path) -> Result<Self> {
        let bytes = crate::own_file::read_file(
            path.as_std_path(),
            "record",
            crate::own_file::RECORD_LIMIT,
        )?;
        let text = String::from_utf8(bytes).map_err(|e| Error::MalformedRecord {
            record: DisplayPath::from(path.as_str()),
            reason: format!("not UTF-8: {e}"),
        })?;
        Self::from_json(&text, path.as_str())
    }
}

/// `value` as pretty JSON ending with a newline: the one form of every JSON
/// document ledger writes (records, `--json` output, the bindings' `to_json`).
pub fn to_pretty_json(value: &impl Serialize) -> String {
    // Every map in ledger's types has string keys, so serializing cannot fail.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Version 1.0 wrote the front doors' "whole workspace" default as a scope with
/// no roots, paths or Tasks files; from 1.1 on a scope says `.` explicitly and
/// an empty one selects nothing. A 1.0 record is read as what it meant.
fn upgrade_legacy_scope(record: &mut InventoryRecord) {
    let scope = &mut record.scope;
    let selects_nothing =
        scope.roots.is_empty() && scope.paths.is_empty() && scope.tasks().is_empty();
    if record.version == "1.0" && selects_nothing {
        scope.roots.push(".".to_owned());
    }
}

/// The workspace a record may hold: relative in normal form (host-free, as
/// 1.3 writes it) or absolute (as 1.0 to 1.2 wrote it). The shape, not the
/// version, says how it is read: a reader never goes to an absolute
/// workspace anyway ([`InventoryRecord::inventory_in`]), so a record that
/// pairs a version with the other shape reads the same and is not refused.
fn check_workspace(record: &InventoryRecord) -> std::result::Result<(), String> {
    record.scope.check_stored_workspace()
}

/// The workspace `store` belongs to ([`Store::workspace`]). Records in the
/// store hold scopes relative to it.
/// `None` for a store opened at another directory ([`Store::at`]) or whose
/// workspace cannot be resolved: its records keep absolute workspaces, as
/// before host-free records.
pub(crate) fn store_workspace(store: &Store) -> Option<Utf8PathBuf> {
    store.workspace()
}

/// Refuses another format or an unknown major version before the fields are
/// interpreted: a future major version may mean something else by them.
/// The fields that say which record format a JSON object holds.
#[derive(Default, Deserialize)]
struct Head {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

fn check_version(head: &Head, source: &str) -> Result<()> {
    let format = head.format.as_ref().and_then(|v| v.as_str());
    let version = head.version.as_ref().and_then(|v| v.as_str());
    // Exactly `1.<minor>`: a newer minor version only adds optional fields.
    let is_v1 = version
        .and_then(|v| v.strip_prefix("1."))
        .is_some_and(|minor| !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit()));
    if format == Some(RECORD_FORMAT) && is_v1 {
        return Ok(());
    }
    Err(Error::UnsupportedVersion {
        record: DisplayPath::from(source),
        found: format!(
            "format {} version {}",
            format.unwrap_or("(none)"),
            version.unwrap_or("(none)")
        ),
        supported: format!("format {RECORD_FORMAT} version 1.x"),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::expand::fingerprint::fingerprint_entries;

    #[test]
    fn a_record_file_in_its_own_scope_is_excluded_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ws = camino::Utf8Path::from_path(dir.path()).unwrap();
        std::fs::create_dir(ws.join("sub")).unwrap();
        let reasons = |scope: &Scope| -> Vec<(String, String)> {
            let own = scope
                .exclusions
                .iter()
                .filter(|e| e.reason == OWN_RECORD_REASON);
            own.map(|e| (e.path.clone(), e.reason.clone())).collect()
        };
        let mut scope = Scope::new(ws);
        scope.add_root(".").unwrap();
        scope
            .exclude_own_record(&ws.join("sub/../sub/rec.json"))
            .unwrap();
        assert_eq!(
            reasons(&scope),
            [("sub/rec.json".to_owned(), OWN_RECORD_REASON.to_owned())]
        );
        // Given again, or already excluded, or in the store: nothing more.
        scope.exclude_own_record(&ws.join("sub/rec.json")).unwrap();
        scope
            .exclude_own_record(&ws.join(".ledger/rec.json"))
            .unwrap();
        assert_eq!(reasons(&scope).len(), 1);
        // Outside the workspace, under no root, or in a missing directory: nothing.
        let mut narrow = Scope::new(ws);
        narrow.add_root("sub").unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let outside = camino::Utf8Path::from_path(elsewhere.path())
            .unwrap()
            .join("r.json");
        for file in [outside, ws.join("top.json"), ws.join("nope/r.json")] {
            narrow.exclude_own_record(&file).unwrap();
        }
        assert!(reasons(&narrow).is_empty());
        // Named exactly by the scope: refused.
        for tasks in [false, true] {
            let mut exact = Scope::new(ws);
            match tasks {
                true => exact.add_tasks("sub/rec.json").unwrap(),
                false => exact.add_path("sub/rec.json").unwrap(),
            }
            let err = exact
                .exclude_own_record(&ws.join("sub/rec.json"))
                .unwrap_err();
            assert_eq!(err.code(), "invalid-argument");
            assert!(err.to_string().contains("sub/rec.json"), "{err}");
        }
    }

    fn sample() -> InventoryRecord {
        let entries = vec![
            Entry::from_parts("a.txt", "file", "100644", &"ab".repeat(32)).unwrap(),
            Entry::from_parts("gone", "missing", "-", "-").unwrap(),
            Entry::from_parts("link", "symlink", "120000", &"cd".repeat(32)).unwrap(),
        ];
        let mut scope = Scope::new("/w");
        scope.add_root("src").unwrap();
        scope.purpose = "test".into();
        let mut observed = Observed::default();
        observed.meta.insert("gate".into(), "make test".into());
        InventoryRecord::new(
            Inventory {
                scope,
                walked_roots: vec![],
                fingerprint: fingerprint_entries(entries.clone()).unwrap(),
                entries,
            },
            observed,
        )
    }

    #[test]
    fn round_trip_is_identical() {
        let record = sample();
        let text = record.to_json();
        let back = InventoryRecord::from_json(&text, "r.json").unwrap();
        assert_eq!(back, record);
        assert_eq!(back.to_json(), text);
    }

    #[test]
    fn field_order_is_stable() {
        let text = sample().to_json();
        let order = [
            "\"format\"",
            "\"version\"",
            "\"written_by\"",
            "\"fingerprint\"",
            "\"scope\"",
            "\"walked_roots\"",
            "\"observed\"",
            "\"entries\"",
        ];
        let at: Vec<usize> = order.iter().map(|k| text.find(k).unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    }

    fn rejected(text: &str) -> Error {
        InventoryRecord::from_json(text, "bad.json").unwrap_err()
    }

    fn edited(f: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v: serde_json::Value = serde_json::from_str(&sample().to_json()).unwrap();
        f(&mut v);
        v.to_string()
    }

    #[test]
    fn malformed_records_are_refused_with_their_code() {
        let good = sample().to_json();
        let cases: Vec<(&str, String, &str)> = vec![
            (
                "truncated",
                good[..good.len() / 2].to_owned(),
                "malformed-record",
            ),
            ("empty", String::new(), "malformed-record"),
            (
                "wrong type",
                edited(|v| v["entries"] = serde_json::json!("nope")),
                "malformed-record",
            ),
            (
                "dotdot path",
                edited(|v| v["entries"][0]["path"] = serde_json::json!("../a.txt")),
                "malformed-record",
            ),
            (
                "bad fingerprint",
                edited(|v| v["fingerprint"] = serde_json::json!("sha256:XYZ")),
                "malformed-record",
            ),
            (
                "tampered digest",
                edited(|v| v["entries"][0]["digest"] = serde_json::json!("ef".repeat(32))),
                "malformed-record",
            ),
            (
                "unsorted",
                edited(|v| v["entries"].as_array_mut().unwrap().reverse()),
                "malformed-record",
            ),
            (
                "unknown scope field",
                edited(|v| v["scope"]["globs"] = serde_json::json!(["*"])),
                "malformed-record",
            ),
            (
                "unknown major",
                edited(|v| v["version"] = serde_json::json!("2.0")),
                "unsupported-version",
            ),
            (
                "other format",
                edited(|v| v["format"] = serde_json::json!("something")),
                "unsupported-version",
            ),
            (
                "no version",
                edited(|v| {
                    v.as_object_mut().unwrap().remove("version");
                }),
                "unsupported-version",
            ),
            (
                "version 1",
                edited(|v| v["version"] = serde_json::json!("1")),
                "unsupported-version",
            ),
            (
                "version 1.0.0",
                edited(|v| v["version"] = serde_json::json!("1.0.0")),
                "unsupported-version",
            ),
            (
                "root escapes",
                edited(|v| v["scope"]["roots"] = serde_json::json!(["../x"])),
                "malformed-record",
            ),
            (
                "workspace leaves",
                edited(|v| v["scope"]["workspace"] = serde_json::json!("../w")),
                "malformed-record",
            ),
            (
                "workspace not in normal form",
                edited(|v| v["scope"]["workspace"] = serde_json::json!("./sub/")),
                "malformed-record",
            ),
            (
                "empty workspace",
                edited(|v| v["scope"]["workspace"] = serde_json::json!("")),
                "malformed-record",
            ),
            (
                "entry extra key",
                edited(|v| v["entries"][0]["size"] = serde_json::json!(3)),
                "malformed-record",
            ),
            ("not an object", "[1, 2]".to_owned(), "unsupported-version"),
            ("a string", "\"ledger\"".to_owned(), "unsupported-version"),
            ("trailing text", format!("{good} {{}}"), "malformed-record"),
            (
                "a key twice",
                good.replacen("\"entries\"", "\"entries\": [],\n  \"entries\"", 1),
                "malformed-record",
            ),
        ];
        for (name, text, code) in cases {
            let err = rejected(&text);
            assert_eq!(err.code(), code, "{name}: {err}");
            assert!(err.to_string().contains("bad.json"), "{name}: {err}");
        }
        let err = rejected(&edited(|v| {
            v["entries"][0]["path"] = serde_json::json!("../a.txt")
        }));
        assert!(
            err.to_string().contains("at entries[0]:") && err.to_string().contains(".."),
            "{err}"
        );
    }

    #[test]
    fn a_record_is_host_free_and_read_in_the_callers_workspace() {
        let record = sample();
        assert_eq!(record.version, RECORD_VERSION);
        assert_eq!(record.scope.workspace(), ".");
        assert!(!record.to_json().contains("/w"), "{}", record.to_json());
        let back = InventoryRecord::from_json(&record.to_json(), "r.json").unwrap();
        let copy = Utf8Path::new("/copy");
        assert_eq!(back.inventory_in(copy).scope.workspace(), "/copy");
        // A workspace below the one the record belongs to stays below it.
        let below = edited(|v| v["scope"]["workspace"] = serde_json::json!("sub"));
        let below = InventoryRecord::from_json(&below, "r.json").unwrap();
        assert_eq!(below.inventory_in(copy).scope.workspace(), "/copy/sub");
    }

    #[test]
    fn a_record_of_before_host_free_records_reads_as_it_always_did() {
        // Version 1.1 and 1.2 records name an absolute workspace, which stays
        // in the record; a reader takes the inventory in its own workspace.
        for version in ["1.0", "1.1", "1.2"] {
            let old = edited(|v| {
                v["version"] = serde_json::json!(version);
                v["scope"]["workspace"] = serde_json::json!("/old/checkout");
            });
            let record = InventoryRecord::from_json(&old, "old.json").unwrap();
            assert_eq!(record.scope.workspace(), "/old/checkout", "{version}");
            let here = record.inventory_in(Utf8Path::new("/here"));
            assert_eq!(here.scope.workspace(), "/here", "{version}");
            assert_eq!(here.fingerprint, record.fingerprint);
        }
    }

    #[test]
    fn a_task_rule_record_is_host_free_and_round_trips() {
        let mut record = sample();
        let mut inventory = record.inventory();
        inventory
            .scope
            .add_tasks_with("t.md", crate::tasks::TaskRule::OpenspecCheckbox)
            .unwrap();
        record = InventoryRecord::new(inventory, Observed::default());
        // Since host-free records one version for both: 1.2 was "with task
        // rules, absolute workspace".
        assert_eq!(record.version, RECORD_VERSION);
        assert_ne!(record.version, TASK_RULES_VERSION);
        let text = record.to_json();
        assert!(text.contains(r#""task_rules": {"#), "{text}");
        let back = InventoryRecord::from_json(&text, "r.json").unwrap();
        assert_eq!(back, record);
        assert_eq!(back.to_json(), text);
    }

    #[test]
    fn a_newer_minor_version_is_read() {
        let text = edited(|v| {
            v["version"] = serde_json::json!("1.7");
            v["added_later"] = serde_json::json!({"x": 1});
        });
        assert!(InventoryRecord::from_json(&text, "r.json").is_ok());
    }
}
