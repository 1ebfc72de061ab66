//! The inventory verbs: `fingerprint`, `entries` (`--rev`, `--excluded`),
//! `inventory` (a record) and `verify` (a record against the disk).

use std::process::ExitCode;

use camino::Utf8PathBuf;
use clap::Args;
use ledger_core::door::text;
use ledger_core::{
    Error, Settings,
    expand::{AtRevision, Inventory, exclusion_matches},
    records::{InventoryRecord, Observed},
};

use crate::report::json_line;
use crate::scope_args::{ScopeArgs, default_workspace};

#[derive(Args)]
pub struct Expand {
    #[command(flatten)]
    scope: ScopeArgs,
    /// Read the scope as it is in the commit REV names (any revision Git
    /// reads: HEAD, main~2, a tag, an id), from Git's objects, not the
    /// working tree; --json adds the commit's full id.
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

impl Expand {
    /// The scope's inventory: of the working tree, or of the commit `--rev`
    /// names, with that commit's full id.
    fn inventory(&self, settings: &Settings) -> Result<(Inventory, Option<String>), Error> {
        match &self.rev {
            None => Ok((self.scope.expand(settings, |_| Ok(()))?, None)),
            Some(rev) => {
                let at = Inventory::expand_at(&self.scope.to_scope(settings)?, rev)?;
                Ok((at.inventory, Some(at.commit)))
            }
        }
    }
}

#[derive(Args)]
pub struct EntriesArgs {
    #[command(flatten)]
    expand: Expand,
    /// End every entry (and the final fingerprint) with NUL instead of a newline,
    /// paths unquoted: any path round-trips, like `git ls-files -z`.
    #[arg(short = 'z', conflicts_with = "json")]
    nul: bool,
    /// List, instead of the entries, what each exclusion given removes: its
    /// candidates (tab-separated after the exclusion), or that it removes none.
    #[arg(long, conflicts_with_all = ["nul", "rev"])]
    excluded: bool,
}

#[derive(Args)]
pub struct InventoryArgs {
    #[command(flatten)]
    scope: ScopeArgs,
    /// Observed metadata stored in the record (repeatable).
    #[arg(long = "meta", value_name = "KEY=VALUE", value_parser = key_value)]
    meta: Vec<(String, String)>,
    /// Write the record to FILE (atomically) instead of stdout. A FILE the
    /// scope's roots select is excluded from the set, with a reason; one named
    /// by --path or --tasks is refused.
    #[arg(long, value_name = "FILE")]
    out: Option<Utf8PathBuf>,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// The inventory record to check.
    record: Utf8PathBuf,
    /// Re-expand in DIR [default: the top of the enclosing Git checkout, else the
    /// current directory]. The record's own workspace is never where ledger goes:
    /// a record is input, and could name any directory.
    #[arg(long, value_name = "DIR")]
    workspace: Option<Utf8PathBuf>,
    /// Print the comparison as JSON.
    #[arg(long)]
    json: bool,
}

fn key_value(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(format!("expected KEY=VALUE, got {text:?}")),
    }
}

/// `ledger fingerprint`: the fingerprint as the last line (`--json`: with
/// the count of entries, the walked roots, the scope and, for `--rev`, the commit).
pub fn run_fingerprint(args: Expand, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let (inventory, commit) = args.inventory(settings)?;
    let text = if args.json {
        let mut json = serde_json::json!({
            "fingerprint": inventory.fingerprint,
            "entries": inventory.entries.len(),
            "walked_roots": inventory.walked_roots,
            "scope": inventory.scope,
        });
        if let Some(commit) = commit {
            json["commit"] = commit.into();
        }
        json_line(&json)
    } else {
        format!("{}\n", inventory.fingerprint)
    };
    Ok((text, ExitCode::SUCCESS))
}

/// `ledger entries`: every entry, then the fingerprint; or, with
/// `--excluded`, what each exclusion given removes.
pub fn run_entries(args: EntriesArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let json = args.expand.json;
    if args.excluded {
        let matches = exclusion_matches(&args.expand.scope.to_scope(settings)?)?;
        let text = match json {
            true => json_line(&matches),
            false => text::exclusion_matches(&matches),
        };
        return Ok((text, ExitCode::SUCCESS));
    }
    let (inventory, commit) = args.expand.inventory(settings)?;
    let text = match (json, commit) {
        (true, Some(commit)) => json_line(&AtRevision { commit, inventory }),
        (true, None) => json_line(&inventory),
        (false, _) if args.nul => text::entries_nul(&inventory),
        (false, _) => text::entries(&inventory),
    };
    Ok((text, ExitCode::SUCCESS))
}

/// `ledger inventory`: the record on stdout, or written to `--out` (then its
/// fingerprint on stdout), the record's own file excluded from the set.
pub fn run_inventory(
    args: InventoryArgs,
    settings: &Settings,
) -> Result<(String, ExitCode), Error> {
    let inventory = args.scope.expand(settings, |scope| match &args.out {
        Some(file) => scope.exclude_own_record(file),
        None => Ok(()),
    })?;
    let observed = Observed {
        meta: args.meta.into_iter().collect(),
        ..Observed::default()
    };
    let record = InventoryRecord::new(inventory, observed);
    match &args.out {
        Some(file) => {
            record.write(file)?;
            Ok((format!("{}\n", record.fingerprint), ExitCode::SUCCESS))
        }
        None => Ok((record.to_json(), ExitCode::SUCCESS)),
    }
}

/// `ledger verify`: the record's scope re-expanded in the workspace and
/// compared; exit 0 when it matches, 1 when a path changed.
pub fn run_verify(args: VerifyArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let workspace = match args.workspace {
        Some(dir) => dir,
        None => default_workspace()?,
    };
    let record = InventoryRecord::read(&args.record)?
        .inventory_in(&workspace)
        .with_settings(settings.clone());
    let comparison = record.compare()?;
    let text = match args.json {
        true => json_line(&comparison),
        false => text::comparison(&comparison),
    };
    Ok((text, ExitCode::from(if comparison.matches { 0 } else { 1 })))
}
