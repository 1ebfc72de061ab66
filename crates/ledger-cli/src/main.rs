//! The `ledger` command: fingerprints and inventories of explicit file sets.

use std::io::{self, Write};
use std::process::ExitCode;

use camino::Utf8PathBuf;
use clap::{Args, Parser, Subcommand};
use ledger_core::{Entry, Error, Inventory, Scope};

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  a comparison did not match (verbs that compare)
  2  error: a blocking condition, bad input or bad usage; stderr says
     `error[<code>]: <message naming the path>` and stdout stays empty";

/// Content fingerprints of explicit file inventories, for approvals and gate evidence.
#[derive(Parser)]
#[command(name = "ledger", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the v1 fingerprint (`sha256:<hex>`) of the scope as the last line.
    ///
    /// With no flags inside a Git checkout: every file `git ls-files --cached
    /// --others --exclude-standard` lists in the whole checkout.
    #[command(after_help = EXIT_CODES)]
    Fingerprint(Expand),
    /// Show the scope's entries: mode, kind, digest and path, one per line.
    #[command(after_help = EXIT_CODES)]
    Entries(Expand),
}

#[derive(Args)]
struct Expand {
    #[command(flatten)]
    scope: ScopeArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The flags that declare a scope (SPEC §3).
#[derive(Args)]
struct ScopeArgs {
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
    /// A path or directory root to leave out.
    #[arg(long = "exclude", value_name = "P")]
    excludes: Vec<String>,
    /// A Tasks file: included, with the task-checkbox normalization.
    #[arg(long = "tasks", value_name = "P")]
    tasks: Vec<String>,
    /// What the set is for (stored in the scope).
    #[arg(long, value_name = "TEXT")]
    purpose: Option<String>,
}

impl ScopeArgs {
    fn to_scope(&self) -> Result<Scope, Error> {
        let workspace = match &self.workspace {
            Some(dir) => dir.clone(),
            None => default_workspace()?,
        };
        let mut scope = Scope::new(workspace);
        for p in &self.repos {
            scope.add_repository(p)?;
        }
        for p in &self.roots {
            scope.add_root(p)?;
        }
        for p in &self.paths {
            scope.add_path(p)?;
        }
        for p in &self.excludes {
            scope.exclude(p, "excluded with --exclude")?;
        }
        for p in &self.tasks {
            scope.add_tasks(p)?;
        }
        scope.purpose = self.purpose.clone().unwrap_or_default();
        Ok(scope)
    }
}

/// The top of the enclosing Git checkout, so that the fingerprint of a checkout
/// is the same from any of its subdirectories; else the current directory.
fn default_workspace() -> Result<Utf8PathBuf, Error> {
    let cwd = std::env::current_dir().map_err(|source| Error::Unreadable {
        path: ".".into(),
        operation: "find the current directory",
        source,
    })?;
    let dir = ledger_core::worktree_root(&cwd)?.unwrap_or(cwd);
    Utf8PathBuf::from_path_buf(dir).map_err(|p| Error::NonUtf8Path {
        path: ledger_core::DisplayPath::from_bytes(std::os::unix::ffi::OsStrExt::as_bytes(
            p.as_os_str(),
        )),
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(Failure::Ledger(e)) => {
            eprintln!("error[{}]: {e}", e.code());
            ExitCode::from(2)
        }
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(e)) => {
            eprintln!("error[output]: cannot write to stdout: {e}");
            ExitCode::from(2)
        }
    }
}

/// Why a command failed: a ledger error, or stdout could not be written.
enum Failure {
    Ledger(Error),
    Output(io::Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Ledger(e)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        Command::Fingerprint(args) => {
            let inventory = Inventory::expand(&args.scope.to_scope()?)?;
            // Built completely before anything is printed: on error, stdout stays empty.
            let text = if args.json {
                json_line(&serde_json::json!({
                    "fingerprint": inventory.fingerprint,
                    "entries": inventory.entries.len(),
                    "walked_roots": inventory.walked_roots,
                    "scope": inventory.scope,
                }))
            } else {
                format!("{}\n", inventory.fingerprint)
            };
            io::stdout().lock().write_all(text.as_bytes())?;
        }
        Command::Entries(args) => {
            let inventory = Inventory::expand(&args.scope.to_scope()?)?;
            let text = if args.json {
                json_line(&inventory)
            } else {
                let mut text: String = inventory.entries.iter().map(entry_line).collect();
                text.push_str(&format!("{}\n", inventory.fingerprint));
                text
            };
            io::stdout().lock().write_all(text.as_bytes())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn json_line(value: &impl serde::Serialize) -> String {
    // Serializing these types cannot fail: every map key is a string.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// `<mode> <kind> <digest>\t<path>`, the path quoted when it holds odd characters.
fn entry_line(entry: &Entry) -> String {
    format!(
        "{} {:<7} {:<64}\t{}\n",
        entry.mode(),
        entry.kind(),
        entry.digest_text(),
        quote(entry.path.as_str())
    )
}

/// Quotes a path like git does (`"a\tb"`) when it holds control characters, a
/// quote or a backslash, so that every entry stays on one line.
fn quote(path: &str) -> String {
    if !path
        .chars()
        .any(|c| c.is_control() || c == '"' || c == '\\')
    {
        return path.to_owned();
    }
    let mut out = String::from("\"");
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
