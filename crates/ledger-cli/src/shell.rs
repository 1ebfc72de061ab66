//! What a shell and `man` need, generated from the clap definitions by the
//! crates made for it (clap_complete, clap_mangen): never written by hand,
//! so they cannot drift from the flags.

use clap::CommandFactory;
use clap_complete::Shell;

/// The completion script of `shell` for the `ledger` command.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(), "ledger", &mut script);
    script
}

/// The man page, `ledger(1)`, in roff.
pub fn man_page() -> std::io::Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command()).render(&mut page)?;
    Ok(page)
}

/// The whole command tree, built: the subcommands' arguments are deferred
/// (`#[command(defer = true)]`, so that a run builds only its own
/// subcommand's), and these generators read every one of them.
fn command() -> clap::Command {
    let mut command = crate::Cli::command();
    command.build();
    command
}
