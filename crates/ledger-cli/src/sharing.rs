//! Evidence that travels (docs/sharing.md): `ledger remote setup` and
//! `ledger store resolve`; the signing flags are global (main.rs).

use ledger_core::Settings;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use ledger_core::{
    Error,
    quote::quote,
    records::{OrphanChoice, RecordId},
};

use crate::change_args::PlaceArgs;
use crate::report::json_line;

/// `ledger remote …`.
#[derive(Subcommand)]
#[command(defer = true)]
pub enum RemoteCommand {
    /// Add to the repository's configuration the fetch refspec that brings a
    /// remote's ledger heads beside this store's
    /// (`+refs/ledger/heads/*:refs/ledger/remotes/REMOTE/*`), and print the
    /// push refspec (`git push REMOTE 'refs/ledger/heads/*'`).
    Setup(SetupArgs),
}

#[derive(Args)]
pub struct SetupArgs {
    #[command(flatten)]
    place: PlaceArgs,
    /// The Git remote.
    #[arg(long, value_name = "NAME", default_value = "origin")]
    remote: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

// `ledger store resolve`: keep one head of a ref whose heads went apart.
#[derive(Args)]
pub struct ResolveArgs {
    #[command(flatten)]
    pub(crate) place: PlaceArgs,
    /// The ref whose heads went apart (as `ledger store check` lists it).
    #[arg(long = "ref", value_name = "NAME")]
    reference: String,
    /// The record of the head to keep.
    #[arg(long, value_name = "RECORD")]
    keep: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

// `ledger store decide`: decide an orphan record.
#[derive(Args)]
#[command(group(clap::ArgGroup::new("choice").required(true).args(["keep", "discard"])))]
pub struct DecideArgs {
    #[command(flatten)]
    pub(crate) place: PlaceArgs,
    /// The orphan record (as `ledger store check` lists it).
    #[arg(long, value_name = "RECORD")]
    orphan: String,
    /// Record its content again on top of its ref's head.
    #[arg(long)]
    keep: bool,
    /// Set it aside: what landed stands.
    #[arg(long)]
    discard: bool,
    /// Why (recorded with the decision).
    #[arg(long, value_name = "TEXT")]
    because: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

// `ledger store provenance`.
#[derive(Args)]
pub struct ProvenanceArgs {
    #[command(flatten)]
    pub(crate) place: PlaceArgs,
    /// The ref, e.g. `gates/test` or `changes/add-auth`.
    #[arg(long = "ref", value_name = "NAME")]
    reference: String,
    /// Print JSON (`null` when the ref has no head).
    #[arg(long)]
    json: bool,
}

/// Exit 0 when the ref has a head, 1 when it has none.
pub fn run_provenance(
    args: ProvenanceArgs,
    settings: &Settings,
) -> Result<(String, ExitCode), Error> {
    let seen = args.place.store(settings)?.provenance(&args.reference)?;
    let code = ExitCode::from(if seen.is_some() { 0 } else { 1 });
    if args.json {
        return Ok((json_line(&seen), code));
    }
    let Some(p) = seen else {
        return Ok((format!("{}: no head\n", quote(&args.reference)), code));
    };
    let (origin, signature) = ledger_core::door::text::provenance(&p);
    let text = format!(
        "{}: {}, {origin}, {signature}\n",
        quote(&args.reference),
        p.record
    );
    Ok((text, code))
}

pub fn run_remote(
    command: RemoteCommand,
    settings: &Settings,
) -> Result<(String, ExitCode), Error> {
    let RemoteCommand::Setup(args) = command;
    let setup = args.place.store(settings)?.remote_setup(&args.remote)?;
    let text = if args.json {
        json_line(&setup)
    } else {
        let done = if setup.added {
            "added"
        } else {
            "already there"
        };
        format!(
            "remote {}: fetch {} ({done})\npush with: git push {} '{}'\n",
            setup.remote,
            setup.fetch,
            setup.remote,
            setup.push.split(':').next().unwrap_or(&setup.push)
        )
    };
    Ok((text, ExitCode::SUCCESS))
}

pub fn run_decide(args: DecideArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let orphan: RecordId = args.orphan.parse()?;
    let choice = match args.keep {
        true => OrphanChoice::Keep,
        false => OrphanChoice::Discard,
    };
    let decision = args
        .place
        .store(settings)?
        .decide_orphan(&orphan, choice, &args.because)?;
    let text = match (args.json, decision.kept_as) {
        (true, _) => json_line(&decision),
        (false, Some(kept)) => format!("kept orphan {orphan} on top as {kept}\n"),
        (false, None) => format!("discarded orphan {orphan}; the decision is recorded\n"),
    };
    Ok((text, ExitCode::SUCCESS))
}

pub fn run_resolve(args: ResolveArgs, settings: &Settings) -> Result<(String, ExitCode), Error> {
    let keep: RecordId = args.keep.parse()?;
    let kept = args
        .place
        .store(settings)?
        .resolve(&args.reference, &keep)?;
    let text = if args.json {
        json_line(&serde_json::json!({ "reference": args.reference, "head": kept }))
    } else {
        ledger_core::door::text::resolved(&args.reference, &kept)
    };
    Ok((text, ExitCode::SUCCESS))
}
