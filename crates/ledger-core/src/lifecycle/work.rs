//! The items of a resume report (docs/lifecycle.md, Resuming in one call):
//! work, each with a stable kind and the change it belongs to, and notes,
//! which say what the check did not use or could not observe and are never
//! work.

use serde::Serialize;

/// What kind of work an item is: a stable tag callers may filter on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WorkKind {
    /// An artifact's approval does not stand (unbound, changed, reset, blocked).
    Approval,
    /// A binding was made with another schema than the one in use.
    SchemaChanged,
    /// The Tasks file has open tasks.
    TasksLeft,
    /// The envelope records a blocker.
    Blocker,
    /// No verdict is recorded for the change.
    NotValidated,
    /// The recorded verdict is a FAIL.
    VerdictFail,
    /// The PASS inventory differs from the disk.
    PassChanged,
    /// A gate the verdict relied on is stale, or ran again since.
    GateStale,
    /// A phase record the PASS excluded is not one regular file.
    PhaseRecord,
    /// The PASS stands and nothing else is open: the change is to be archived
    /// and its finalization checked.
    Archive,
    /// An archived change's finalization does not check out.
    Finalization,
    /// The change's recorded state is live but its directory is gone.
    Gone,
    /// A gate declared in `ledger.toml` is stale (`gate check --all`).
    DeclaredGateStale,
    /// A verdict recorded in the store no longer stands (`verdict check`).
    VerdictStale,
    /// The record store has problems (`store check`).
    Store,
}

/// One thing to do, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Work {
    /// Its kind.
    pub kind: WorkKind,
    /// The change it belongs to (`None`: the workspace's — a declared gate,
    /// a verdict, the store).
    pub change: Option<String>,
    /// What it is about, when it is one thing: the artifact (`approval`,
    /// `schema-changed`), the gate (`gate-stale`, `declared-gate-stale`),
    /// the phase record's path (`phase-record`), the verdict's name
    /// (`verdict-stale`).
    pub subject: Option<String>,
    /// What to do and why, one line (names and paths quoted).
    pub message: String,
}

impl Work {
    /// Work of the workspace, about nothing in particular.
    pub(crate) fn new(kind: WorkKind, message: String) -> Work {
        Work {
            kind,
            change: None,
            subject: None,
            message,
        }
    }

    /// Work of the workspace about `subject`.
    pub(crate) fn about(kind: WorkKind, subject: &str, message: String) -> Work {
        Work {
            subject: Some(subject.to_owned()),
            ..Work::new(kind, message)
        }
    }

    /// This item, as work of `change`.
    pub(crate) fn of(self, change: &str) -> Work {
        Work {
            change: Some(change.to_owned()),
            ..self
        }
    }
}

/// What kind of note an item is: a stable tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NoteKind {
    /// Prerequisites were given for a gate that nothing checked at this
    /// stage relies on (no checked PASS, no declaration): they were not used.
    UnusedPrerequisites,
    /// A gate declares prerequisite commands in `ledger.toml` that the check
    /// did not run, since the caller did not allow it: each stays unverified.
    CommandsNotRun,
}

/// Something the check noticed that is not work: it never changes the
/// exit code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Note {
    /// Its kind.
    pub kind: NoteKind,
    /// The gate it is about.
    pub subject: Option<String>,
    /// What and why, one line (names quoted).
    pub message: String,
}
