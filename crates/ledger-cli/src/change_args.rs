//! The arguments every change verb shares (`approve`, `status`, `state …`,
//! `tasks`, `validate …`, `finalize check`): which change, where, and what a
//! write started from.

use camino::Utf8PathBuf;
use clap::Args;
use ledger_core::{
    Error, Settings,
    approval::WriteBasis,
    openspec::{ChangeSet, DEFAULT_CHANGES_ROOT},
    records::StartedFrom,
    records::Store,
    tasks::TaskRule,
};

use crate::scope_args::default_workspace;

// Which change, where, and with which artifact graph.
#[derive(Args)]
pub struct ChangeArgs {
    /// The change's name (its directory under the changes root).
    #[arg(long, value_name = "C")]
    pub(crate) change: String,
    #[command(flatten)]
    pub(crate) place: PlaceArgs,
    /// The rule the tracked Tasks file is read and normalized under [default:
    /// the rule the tasks approval recorded, else the schema's
    /// `ledger.task_rule`, else openspec/config.yaml's, else openspec-checkbox
    /// in a project with an openspec/config.yaml, else task-checkbox-v1;
    /// `status` uses the rule each binding recorded].
    #[arg(long, value_name = "R", value_parser = crate::scope_args::task_rule())]
    task_rule: Option<TaskRule>,
}

// Where the workspace and its changes are.
#[derive(Args)]
pub struct PlaceArgs {
    /// Workspace directory [default: the top of the enclosing Git checkout].
    #[arg(long, value_name = "DIR")]
    workspace: Option<Utf8PathBuf>,
    /// Where changes live, relative to the workspace.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_CHANGES_ROOT)]
    changes_root: String,
    /// The artifact schema: a name (`openspec/schemas/NAME/schema.yaml`, else
    /// built in) or a path to a `schema.yaml` [default: the change's
    /// `.openspec.yaml`, else `openspec/config.yaml`, else spec-driven].
    #[arg(long, value_name = "NAME|PATH")]
    schema: Option<String>,
}

impl PlaceArgs {
    pub(crate) fn workspace(&self) -> Result<Utf8PathBuf, Error> {
        match &self.workspace {
            Some(dir) => Ok(dir.clone()),
            None => default_workspace(),
        }
    }

    /// The change `name` of this place, read as every change is (its schema
    /// as --schema, `.openspec.yaml` or `config.yaml` say).
    pub(crate) fn change_set(&self, name: &str, settings: &Settings) -> Result<ChangeSet, Error> {
        Ok(ChangeSet::open(
            self.workspace()?,
            name,
            &self.changes_root,
            self.schema.as_deref(),
        )?
        .with_settings(settings.clone()))
    }

    /// The store of this place, with the run's settings.
    pub(crate) fn store(&self, settings: &Settings) -> Result<Store, Error> {
        Ok(Store::open(&self.workspace()?)?.with_settings(settings.clone()))
    }

    pub(crate) fn changes_root(&self) -> &str {
        &self.changes_root
    }

    pub(crate) fn schema(&self) -> Option<&str> {
        self.schema.as_deref()
    }
}

impl ChangeArgs {
    pub(crate) fn change_set(&self, settings: &Settings) -> Result<ChangeSet, Error> {
        let change = ChangeSet::open(
            self.place.workspace()?,
            &self.change,
            &self.place.changes_root,
            self.place.schema.as_deref(),
        )?;
        Ok(change
            .with_task_rule(self.task_rule)
            .with_settings(settings.clone()))
    }
}

// What a write is based on (docs/approvals.md, What was reviewed).
#[derive(Args)]
pub struct BasisArgs {
    /// The fingerprint the reviewer saw (`sha256:…`); refused with
    /// fingerprint-moved, naming the changed paths, when the set's fingerprint
    /// is another now. Nothing is recorded then.
    #[arg(long, value_name = "FINGERPRINT")]
    reviewed: Option<String>,
    #[command(flatten)]
    expect: ExpectArgs,
}

impl BasisArgs {
    pub(crate) fn basis(&self) -> Result<WriteBasis, Error> {
        Ok(WriteBasis {
            reviewed: self.reviewed.as_deref().map(str::parse).transpose()?,
            started_from: self.expect.started_from()?,
        })
    }
}

// The state record a write started from.
#[derive(Args)]
pub struct ExpectArgs {
    /// The state record this write started from (`no-record`: no state was
    /// recorded); refused with pointer-conflict when the pointer names another
    /// [default: the head as read now].
    #[arg(long, value_name = "RECORD|no-record")]
    expect: Option<String>,
}

impl ExpectArgs {
    pub(crate) fn started_from(&self) -> Result<Option<StartedFrom>, Error> {
        self.expect.as_deref().map(str::parse).transpose()
    }
}
