//! Whether a store comes with the checkout (docs/errors.md, Security model): a store whose files Git
//! tracks arrived with a clone or a merge, so anyone who could commit wrote it,
//! and its evidence and approvals say nothing about this workspace.
//!
//! Asked of the index of the repository holding the workspace, read with gix
//! (never by running `git`, whose configuration could run commands).

use std::path::Path;

use crate::error::Result;
use crate::expand::git::{Listing, Locate};
use crate::expand::scope::STORE_DIR;
use crate::quote::escape;

use super::ledger_dir::untrusted;

/// Why a tracked store file is not trusted, as `store check` lists it.
pub(crate) const TRACKED: &str =
    "it is tracked by Git: a store that comes with the checkout is not trusted";

/// The files below the store directory `root` that the index of the repository
/// holding its parent (the workspace) tracks, relative to `root`, sorted.
pub(crate) fn tracked(root: &Path) -> Result<Vec<String>> {
    let (Some(parent), Some(name)) = (root.parent(), root.file_name()) else {
        return Ok(Vec::new());
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let display = parent.to_string_lossy();
    let Some(listing) = Listing::open(parent, Locate::Discover, &display)? else {
        return Ok(Vec::new());
    };
    let mut prefix = name.as_encoded_bytes().to_vec();
    prefix.push(b'/');
    let mut files: Vec<String> = listing
        .tracked_files()
        .filter_map(|(path, _)| path.strip_prefix(prefix.as_slice()))
        .map(|rel| escape(rel).into_owned())
        .collect();
    files.sort();
    Ok(files)
}

/// Refuses (`untrusted-store`) a store any of whose files Git tracks.
pub(crate) fn refuse_tracked(root: &Path) -> Result<()> {
    let files = tracked(root)?;
    if files.is_empty() {
        return Ok(());
    }
    let name = root
        .file_name()
        .map_or_else(|| STORE_DIR.into(), |n| n.to_string_lossy());
    let mut some = files.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if files.len() > 3 {
        some.push_str(", ...");
    }
    let reason = format!(
        "Git tracks {} of its files ({some}): a store that comes with the checkout \
         is not trusted; untrack it (git rm -r --cached {name}) and keep {name}/ ignored",
        files.len()
    );
    Err(untrusted(root, reason))
}
