//! Objects: raw bytes stored once under their SHA-256 (`objects/<hex>`), such
//! as a gate run's kept output. Records name them by digest; an object is
//! never replaced, and reading one checks that its bytes hash to its name.

use std::io;
use std::path::PathBuf;

use sha2::{Digest as _, Sha256};

use super::Store;
use super::check::{CorruptFile, listed};
use crate::error::{Error, Result};
use crate::expand::entry::Digest;
use crate::expand::ledger_dir::{Missing, StoreDir, TMP, TempFile, shown, unreadable, unwritable};
use crate::platform::OsStrBytes;

/// The store's directory of objects.
pub(super) const OBJECTS: &str = "objects";

/// At most this many bytes of an object are read.
pub(super) const OBJECT_LIMIT: u64 = 16 * 1024 * 1024;

/// The name of the object holding `bytes`.
fn object_of(bytes: &[u8]) -> Digest {
    Digest(Sha256::digest(bytes).into())
}

impl Store {
    /// Stores `bytes` as an object and returns its name (their SHA-256).
    /// Writing the same bytes twice is one file; an existing object with
    /// other bytes is `corrupt-record` and left as it is.
    pub fn write_object(&self, bytes: &[u8]) -> Result<Digest> {
        let id = object_of(bytes);
        let root = self.create_dir()?;
        let objects = root.make_sub(OBJECTS)?;
        let tmp = root.make_sub(TMP)?;
        let mut temp = TempFile::create(&tmp, "object")?;
        temp.write_synced(bytes)?;
        let name = id.to_hex();
        // A link, not a rename: an existing object is never replaced.
        let linked = tmp.link(temp.name(), &objects, &name);
        drop(temp);
        match linked {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                self.read_object(&id)?;
            }
            Err(e) => return Err(unwritable(&objects.join(&name), "link object", e)),
        }
        objects.sync()?;
        Ok(id)
    }

    /// The bytes of the object `id`: `unreadable` when there is none,
    /// `corrupt-record` when its bytes do not hash to its name, `too-large`
    /// past `OBJECT_LIMIT`, `untrusted-store` as every store read.
    pub fn read_object(&self, id: &Digest) -> Result<Vec<u8>> {
        let path = self.object_path(id);
        let missing = || unreadable(&path, "read object", io::ErrorKind::NotFound.into());
        let root = self.existing_dir()?.ok_or_else(missing)?;
        let objects = root.sub(OBJECTS, Missing::Absent)?.ok_or_else(missing)?;
        let bytes = objects
            .read(&id.to_hex(), "object", OBJECT_LIMIT)?
            .ok_or_else(missing)?;
        match object_of(&bytes) {
            actual if actual == *id => Ok(bytes),
            actual => Err(Error::CorruptRecord {
                path: shown(&path),
                reason: format!("its bytes hash to {actual}, not to its name"),
            }),
        }
    }

    /// The digests of every object the store keeps, sorted (entries not
    /// named by a digest are left to `check`).
    pub(super) fn object_ids(&self) -> Result<Vec<Digest>> {
        let Some(root) = self.existing_dir()? else {
            return Ok(Vec::new());
        };
        let Some(objects) = root.sub(OBJECTS, Missing::Absent)? else {
            return Ok(Vec::new());
        };
        let mut ids: Vec<Digest> = objects
            .names()?
            .iter()
            .filter_map(|name| name.to_str().and_then(Digest::from_hex))
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// The file of the object `id`.
    pub fn object_path(&self, id: &Digest) -> PathBuf {
        self.dir().join(OBJECTS).join(id.to_hex())
    }
}

/// Lists in `corrupt` every entry of `objects/` that cannot be trusted: not
/// named by a digest, not a regular file of this user's, or bytes that do not
/// hash to its name.
pub(super) fn scan_objects(objects: &StoreDir, corrupt: &mut Vec<CorruptFile>) -> Result<()> {
    for name in objects.names()? {
        let file = format!("{OBJECTS}/{}", crate::quote::escape(name.as_bytes()));
        let Some(id) = name.to_str().and_then(Digest::from_hex) else {
            let reason = "not named <64 lowercase hex digits>".to_owned();
            corrupt.push(CorruptFile { file, reason });
            continue;
        };
        match objects.read(&id.to_hex(), "object", OBJECT_LIMIT) {
            Ok(None) => {}
            Ok(Some(bytes)) => {
                let actual = object_of(&bytes);
                if actual != id {
                    let reason = format!("its bytes hash to {actual}, not to its name");
                    corrupt.push(CorruptFile { file, reason });
                }
            }
            Err(e) => corrupt.push(listed(file, e)?),
        }
    }
    Ok(())
}
