//! The one error type of the core, with a stable machine-readable code per variant.
//!
//! Every variant that concerns a file names it: the message a user reads must say
//! which path and which operation failed (BurntSushi's `walkdir`/`ignore` are the
//! model). The code returned by [`Error::code`] is part of the public contract: the
//! CLI prints it as `error[<code>]`, the bindings expose it as `.code`.

use std::fmt;
use std::io;

/// Convenient alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The error gix reported under an [`Error::Git`].
pub type GitSource = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A path as the user should read it in a message: workspace-relative when it is
/// valid UTF-8, otherwise with the offending bytes escaped (octal, `\377`: see [`crate::quote`]), never lossy.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct DisplayPath(pub String);

impl DisplayPath {
    /// Renders raw bytes with ledger's one quoting ([`crate::quote::escape`]): bytes
    /// that are not UTF-8, control characters and characters that reorder or
    /// break a line are escaped, so that the message is one readable line and
    /// two different names never read the same.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        DisplayPath(crate::quote::escape(bytes).into_owned())
    }
}

impl fmt::Display for DisplayPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}'", self.0)
    }
}

impl fmt::Debug for DisplayPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<&str> for DisplayPath {
    fn from(s: &str) -> Self {
        DisplayPath::from_bytes(s.as_bytes())
    }
}

/// A name from the caller or a file (a change, an artifact), escaped as every
/// printed value is ([`crate::quote`]).
fn esc(text: &str) -> std::borrow::Cow<'_, str> {
    crate::quote::escape(text.as_bytes())
}

/// Everything that can go wrong in ledger. No variant ever comes with a fingerprint:
/// a blocked expansion produces an error, never an approximate result.
///
/// The codes are the variants' names in kebab case (`NonUtf8Path` is
/// `non-utf8-path`), derived once by `strum`: [`Error::code`] and
/// [`Error::CODES`] cannot drift apart, and the bindings take their tables
/// from `CODES`.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "kebab-case")]
#[non_exhaustive]
pub enum Error {
    /// A path is not a valid workspace path (§2): empty, absolute, `.`/`..` or empty
    /// segment, trailing `/`, NUL.
    #[error("invalid workspace path {path}: {reason}")]
    InvalidPath {
        /// The offending path as given.
        path: DisplayPath,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A path that is not valid UTF-8; the message shows the bytes escaped.
    #[error(
        "path {path} is not valid UTF-8; rename it, or exclude the directory holding it from the scope"
    )]
    NonUtf8Path {
        /// The path with its invalid bytes escaped (octal, `\377`).
        path: DisplayPath,
    },
    /// An in-scope path with an unresolved merge conflict (index stage ≠ 0).
    #[error("{path} has an unresolved merge conflict; resolve it (git add) before fingerprinting")]
    Conflict {
        /// Workspace path of the conflicted file.
        path: DisplayPath,
    },
    /// A directory where a file is listed, a FIFO, socket or device.
    #[error("{path} is a {what}, not a regular file or symlink; exclude it from the scope")]
    SpecialFile {
        /// Workspace path.
        path: DisplayPath,
        /// What was found instead ("directory", "FIFO", "socket", "device").
        what: &'static str,
    },
    /// A nested repository or submodule in scope that is not declared as a repository.
    #[error(
        "{path} is a nested Git repository or submodule that is not declared; declare it as a repository of the scope, or exclude it"
    )]
    NestedRepository {
        /// Workspace path of the nested repository's directory.
        path: DisplayPath,
    },
    /// An input that cannot be read (permission, I/O error).
    #[error("cannot {operation} {path}: {source}")]
    Unreadable {
        /// Workspace path (or the workspace directory itself).
        path: DisplayPath,
        /// What was being done: "open", "read", "stat", "read directory", ...
        operation: &'static str,
        /// The operating system's answer.
        #[source]
        source: io::Error,
    },
    /// An output (a record file) that cannot be written.
    #[error("cannot {operation} {path}: {source}")]
    Unwritable {
        /// The file being written.
        path: DisplayPath,
        /// What was being done.
        operation: &'static str,
        /// The operating system's answer.
        #[source]
        source: io::Error,
    },
    /// A path whose parent directory is a symlink.
    #[error(
        "{path} lies below the symlink {link}; reading through it would hash content outside the declared file — declare the link target as its own input"
    )]
    SymlinkedParent {
        /// Workspace path of the file.
        path: DisplayPath,
        /// The ancestor that is a symlink.
        link: DisplayPath,
    },
    /// A file whose size or mtime changed while it was being read.
    #[error("{path} changed while it was being read; retry when writers have finished")]
    ChangedWhileReading {
        /// Workspace path.
        path: DisplayPath,
    },
    /// A path that would leave the workspace: absolute, or with a `..` segment.
    #[error(
        "{path} escapes the workspace: {reason}; give paths relative to the workspace, without '..'"
    )]
    OutsideWorkspace {
        /// The path as given.
        path: DisplayPath,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A repository owned by another user: git refuses it (safe.directory), so do we.
    #[error(
        "repository {path} is owned by another user; git refuses it too — add it to safe.directory if you trust it"
    )]
    UntrustedRepository {
        /// Workspace path of the repository (`.` for the workspace itself).
        path: DisplayPath,
    },
    /// A store, or an entry of it, that ledger did not create for this user: a
    /// symlink, FIFO, device or socket where a file or directory belongs, a file
    /// owned by another user, or a store whose files Git tracks (it came with
    /// the checkout).
    #[error("{path} is not trusted as ledger's store: {reason}")]
    UntrustedStore {
        /// The entry.
        path: DisplayPath,
        /// What is wrong with it, and what to do.
        reason: String,
    },
    /// A declared repository that is not a Git repository, or whose index or
    /// configuration cannot be read.
    #[error("cannot read Git repository {path}: {message}")]
    Git {
        /// Workspace path of the repository.
        path: DisplayPath,
        /// What failed, with gix's chain of causes on one line.
        message: String,
        /// gix's own error, when gix reported one, for callers that walk
        /// [`std::error::Error::source`].
        #[source]
        source: Option<GitSource>,
    },
    /// A string that is not `sha256:` followed by 64 lowercase hex digits.
    #[error("invalid fingerprint {text:?}: expected 'sha256:' and 64 lowercase hex digits")]
    BadFingerprint {
        /// The text as given (truncated for display).
        text: String,
    },
    /// A record that is not valid JSON, has wrong types or invalid values, or
    /// whose entries do not reproduce its fingerprint.
    #[error("malformed record {record}: {reason}")]
    MalformedRecord {
        /// Where the record came from (a file path).
        record: DisplayPath,
        /// What is wrong, with the field's location.
        reason: String,
    },
    /// A record of another format or an unknown major version.
    #[error("record {record} is {found}; this ledger reads {supported}")]
    UnsupportedVersion {
        /// Where the record came from.
        record: DisplayPath,
        /// The format and version found.
        found: String,
        /// What this version reads.
        supported: String,
    },
    /// A Design links a material that does not exist.
    #[error("{document} links {material}, which does not exist; restore it or remove the link")]
    MissingMaterial {
        /// The linking document.
        document: DisplayPath,
        /// The missing material's workspace path.
        material: DisplayPath,
    },
    /// A Design links something that cannot be resolved to one workspace file.
    #[error("{document} links {material}, which is ambiguous: {reason}")]
    AmbiguousMaterial {
        /// The linking document.
        document: DisplayPath,
        /// The link destination as written.
        material: DisplayPath,
        /// Why it is ambiguous.
        reason: String,
    },
    /// An artifact graph whose `requires` form a cycle.
    #[error("the artifact graph has a cycle among: {artifacts}")]
    GraphCycle {
        /// The artifacts left when no more could be ordered.
        artifacts: String,
    },
    /// An artifact name that the graph does not define.
    #[error("unknown artifact {name:?} ({context})")]
    UnknownArtifact {
        /// The name.
        name: String,
        /// Where it was used, or which artifacts exist.
        context: String,
    },
    /// A schema file that cannot be read as an artifact graph.
    #[error("invalid artifact schema {path}: {reason}")]
    BadSchema {
        /// The schema file (or artifact).
        path: DisplayPath,
        /// What is wrong.
        reason: String,
    },
    /// A schema name that resolves neither to a project schema
    /// (`openspec/schemas/<name>/schema.yaml`) nor to a built-in one.
    #[error(
        "unknown schema \"{}\" (named by {}): neither {project} exists nor is it built in ({builtin}); ledger reads no user-level schemas (~/.local/share/openspec/schemas): copy it into the project (openspec schema fork) or name its schema file instead",
        esc(.name),
        esc(.origin)
    )]
    UnknownSchema {
        /// The name.
        name: String,
        /// What named it: the caller, or the file (`.openspec.yaml`, `config.yaml`).
        origin: String,
        /// Where the project schema would be.
        project: DisplayPath,
        /// The built-in schemas.
        builtin: String,
    },
    /// An OpenSpec settings file (`.openspec.yaml`, `openspec/config.yaml`) that
    /// is not what OpenSpec writes: unparsable, without a required key, or with
    /// a value of the wrong type.
    #[error("invalid OpenSpec settings {path}: {reason}")]
    BadOpenspecConfig {
        /// The file.
        path: DisplayPath,
        /// What is wrong.
        reason: String,
    },
    /// A `ledger.toml` that does not declare gates as docs/gates.md says:
    /// unparsable, an unknown key, a gate whose spec cannot be built, a
    /// `needs` naming an undeclared gate, an exclusion without a reason.
    #[error("invalid gate declarations {path}: {reason}")]
    BadGateDeclaration {
        /// The file.
        path: DisplayPath,
        /// What is wrong.
        reason: String,
    },
    /// Declared gates whose `needs` form a cycle.
    #[error("the declared gates need each other in a cycle: {gates}")]
    GateCycle {
        /// The gates left when no more could be ordered.
        gates: String,
    },
    /// An approval without the observed source of the decision.
    #[error("approving {artifact:?} needs the observed source of the owner's decision")]
    MissingSource {
        /// The artifact.
        artifact: String,
    },
    /// A prerequisite command (`--env-cmd`) failed, so its value is unknown.
    #[error("prerequisite {name} could not be observed: `{command}` failed: {reason}")]
    PrerequisiteFailed {
        /// The prerequisite.
        name: String,
        /// The command.
        command: String,
        /// What happened.
        reason: String,
    },
    /// A gate's command could not be started.
    #[error("gate {gate:?} did not run: {reason}")]
    GateNotStarted {
        /// The gate.
        gate: String,
        /// Why.
        reason: String,
        /// The operating system's answer when the command could not be
        /// executed (`NotFound`: no such program).
        #[source]
        source: Option<io::Error>,
    },
    /// The caller cancelled a gate run (a door's cancellation token, Node's
    /// `AbortSignal`): before its command started, nothing ran; during the
    /// run, its process group was stopped and the run recorded as failed and
    /// not reusable (`record`, stopped by `interrupt`).
    #[error("gate {gate:?} was cancelled by the caller: {}", match record {
        Some(record) => format!("its process group was stopped and the run recorded as not reusable (evidence {record})"),
        None => "its command did not run".to_owned(),
    })]
    Cancelled {
        /// The gate.
        gate: String,
        /// The evidence recorded of the stopped run; `None` when nothing ran.
        record: Option<String>,
    },
    /// Arguments that do not fit together or are incomplete.
    #[error("invalid arguments: {message}")]
    InvalidArgument {
        /// What is wrong.
        message: String,
    },
    /// An exclusion the caller declared that removes no candidate of the
    /// scope (a mistyped path, a pattern that matches nothing): an explained
    /// boundary that holds nothing is a mistake, never taken silently.
    #[error(
        "the exclusion {exclusion} removes nothing from the scope: no candidate in {workspace} lies in it or matches it"
    )]
    UnmatchedExclusion {
        /// The exclusion as declared (a path or a pattern), quoted.
        exclusion: DisplayPath,
        /// The workspace, quoted.
        workspace: DisplayPath,
    },
    /// A tool that writes records or runs a command, or an argument that
    /// would run one, asked of a server started read-only (`ledger mcp
    /// --read-only`): nothing was written and nothing ran.
    #[error(
        "{what} is refused: this server is read-only (it writes no record and runs no command)"
    )]
    ReadOnly {
        /// What was asked.
        what: String,
    },
    /// A verdict's report that is not one regular file: a directory (every
    /// file in it would leave the state the verdict judges), a symlink, FIFO,
    /// socket or device, or a path below a symlink.
    #[error(
        "the verdict's report {path} is {what}: a report is one regular file, excluded from the state the verdict judges, and anything else would exclude more than the report"
    )]
    BadReport {
        /// The report, a workspace path.
        path: DisplayPath,
        /// What it is instead, e.g. `a directory`.
        what: String,
    },
    /// An entry given by the caller that is not a valid `(path, kind, mode, digest)`.
    #[error("invalid entry for {path}: {reason}")]
    BadEntry {
        /// The entry's path.
        path: DisplayPath,
        /// What is wrong with it.
        reason: String,
    },
    /// The same path given twice to [`crate::expand::fingerprint_entries`].
    #[error("entry {path} is listed twice")]
    DuplicateEntry {
        /// The repeated path.
        path: DisplayPath,
    },
    /// A ref that no longer names the record the writer started from (docs/approvals.md, The record store).
    #[error(
        "ref {pointer:?} was moved by another writer: this write started from record {expected}, the ref now names record {found}; the ref was not replaced, and the new record {orphan} stays in the store as an orphan — read the ref again and decide"
    )]
    PointerConflict {
        /// The ref name, e.g. `changes/add-auth`.
        pointer: String,
        /// The record the writer started from (`none`: the ref did not exist).
        expected: String,
        /// The record the ref names now (`none`: it does not exist).
        found: String,
        /// The new record, written but named by no ref.
        orphan: String,
    },
    /// Heads of one ref that went apart (this store's and a fetched one, or
    /// two fetched ones): nothing is merged and no head wins by itself.
    #[error(
        "ref {pointer:?} has heads that went apart: {heads}; nothing was merged — read them, then write from the one to keep (ledger store resolve)"
    )]
    DivergentHeads {
        /// The ref name, e.g. `changes/add-auth`.
        pointer: String,
        /// Every head, local first.
        heads: String,
    },
    /// A record advanced onto a ref it does not follow.
    #[error(
        "cannot advance ref {pointer:?} from record {expected} to record {record}: that record follows {follows}; moving the ref would drop records from its history — write a record that follows {expected}"
    )]
    ChainMismatch {
        /// The ref name.
        pointer: String,
        /// The record the ref was to name.
        record: String,
        /// The record's own `previous` (`none` for a first record).
        follows: String,
        /// The record the caller expected the ref to name (`no-record`: no ref).
        expected: String,
    },
    /// A store file (record or ref) whose content is not what the store wrote.
    #[error(
        "{path} is corrupt: {reason}; the store writes records and refs once and never edits them"
    )]
    CorruptRecord {
        /// The file.
        path: DisplayPath,
        /// What is wrong with it.
        reason: String,
    },
    /// A ref of a Git store whose lock file exists: another writer holds it,
    /// or a writer that was killed left it (docs/sharing.md, Stale ref locks).
    #[error("cannot update ref {reference:?}: its lock file {lock} exists, {age} old; {state}")]
    RefLocked {
        /// The store ref, e.g. `changes/add-auth`.
        reference: String,
        /// The lock file.
        lock: DisplayPath,
        /// Its age, e.g. `2h 3m 10s`.
        age: String,
        /// Whether it is older than any writer holds a lock: abandoned.
        abandoned: bool,
        /// What that means, and what to do.
        state: String,
    },
    /// A ref name that a Git store cannot hold beside another ref: one is a
    /// directory of the other's (`x` and `x/y`), as Git keeps refs as files.
    #[error(
        "cannot write ref {reference:?}: the ref {other:?} exists, and a ref name cannot also be a directory of ref names (Git keeps refs as files); choose a name that neither extends nor is extended by another"
    )]
    RefNameConflict {
        /// The store ref being written.
        reference: String,
        /// The existing ref it conflicts with (a full Git ref name).
        other: String,
    },
    /// A ref name that is not `/`-separated segments of `[A-Za-z0-9._-]`.
    #[error(
        "invalid ref name {name:?}: {reason}; use '/'-separated segments of letters, digits, '.', '_' and '-', none starting with '.'"
    )]
    BadRefName {
        /// The name as given (truncated for display).
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A `.git` file (of the workspace, a submodule or a nested checkout) that does
    /// not name a repository: git refuses it ("invalid gitfile format", "not a git
    /// repository"), so ledger refuses instead of listing another repository.
    #[error(
        "{path} is a broken gitfile: {reason}; git refuses it too — repair its 'gitdir:' line or remove it"
    )]
    InvalidGitfile {
        /// Workspace path of the `.git` file.
        path: DisplayPath,
        /// What is wrong with it.
        reason: String,
    },
    /// A Git environment variable (`GIT_DIR`, `GIT_WORK_TREE`, ...) is set that would
    /// make git list another repository or worktree than the one ledger finds.
    #[error(
        "{variable} is set ({value}); git would list another repository or worktree than the one ledger finds from the workspace — unset it and name the workspace explicitly"
    )]
    GitEnvironment {
        /// The variable.
        variable: String,
        /// Its value, escaped.
        value: String,
    },
    /// A change name found neither among the active changes nor in the archive.
    #[error(
        "no change \"{}\" in workspace {workspace}: neither {active} nor an archived '<date>-{}' under {archive} exists; check the name and the workspace",
        esc(.change),
        esc(.change)
    )]
    UnknownChange {
        /// The name as given.
        change: String,
        /// The workspace looked in (a door's `Workspace` names it; a wrong one
        /// finds no change).
        workspace: DisplayPath,
        /// Where the active change would be.
        active: DisplayPath,
        /// Where archived changes are.
        archive: DisplayPath,
    },
    /// An approval whose upstream artifact cannot be fingerprinted now: the approval
    /// could not record what it stands on.
    #[error(
        "cannot approve \"{}\": its upstream \"{}\" cannot be fingerprinted ({reason}); fix \"{}\" first — an approval stands on the exact fingerprints of all its upstreams",
        esc(.artifact),
        esc(.upstream),
        esc(.upstream)
    )]
    UpstreamBlocked {
        /// The artifact being approved.
        artifact: String,
        /// The blocked upstream.
        upstream: String,
        /// Why it is blocked: `error[<code>]: <message>`.
        reason: String,
    },
    /// An approval of an artifact none of whose files exist.
    #[error(
        "cannot approve \"{}\": none of its files exist ({}); write it, or approve it as absent explicitly",
        esc(.artifact),
        esc(.expected)
    )]
    AbsentArtifact {
        /// The artifact.
        artifact: String,
        /// The files (or glob) it generates.
        expected: String,
    },
    /// A value (environment variable, command output) that is not valid UTF-8: it
    /// cannot be recorded byte-exactly, so it is refused rather than collapsed.
    #[error(
        "{what} is not valid UTF-8 ({value}); ledger records values byte-exactly and refuses to collapse this one into another"
    )]
    NonUtf8Value {
        /// What the value is, e.g. `prerequisite FLAGS (environment variable)`.
        what: String,
        /// The value with its invalid bytes escaped (octal, `\377`).
        value: String,
    },
    /// A file ledger reads for itself (a design, a schema, a record, a pointer)
    /// that is larger than the bound it is read with.
    #[error(
        "{path} is larger than {limit} bytes, the most ledger reads of a {what}; it is refused rather than read without bound"
    )]
    TooLarge {
        /// The file.
        path: DisplayPath,
        /// What it was read as, e.g. `design document`.
        what: &'static str,
        /// The bound, in bytes.
        limit: u64,
    },
    /// A validation PASS whose preconditions do not hold now: an artifact's
    /// approval does not stand, or a gate it names is not fresh.
    #[error(
        "cannot record a validation PASS of change \"{}\": {reasons}; approve the artifacts again and rerun the stale gates, or record the verdict FAIL",
        esc(.change)
    )]
    ValidationRefused {
        /// The change.
        change: String,
        /// Every reason, `; `-separated.
        reasons: String,
    },
    /// A check of a validation (or finalization) on a change whose envelope
    /// holds no validation it can use.
    #[error("change \"{}\" is not validated: {reason}", esc(.change))]
    NotValidated {
        /// The change.
        change: String,
        /// What the envelope holds instead.
        reason: String,
    },
    /// A validation PASS that names no delivery input (no delivery root or
    /// path) and does not declare that the change has none: later edits of the
    /// delivery would leave it standing.
    #[error(
        "cannot record a validation PASS of change \"{}\" over no delivery: name its delivery roots or paths, or declare that the change has no delivery files, with the reason",
        esc(.change)
    )]
    NoDelivery {
        /// The change.
        change: String,
    },
    /// A write whose reviewer saw another fingerprint than the one of the set
    /// now (docs/approvals.md, What was reviewed): nothing is recorded.
    #[error(
        "cannot record {what}: it was reviewed as {reviewed}, but it is {current} now ({changed}); nothing was recorded — review it again and pass the fingerprint you saw"
    )]
    FingerprintMoved {
        /// What the write was about, e.g. `the approval of "design" of change "add-auth"`.
        what: String,
        /// The fingerprint the reviewer saw.
        reviewed: String,
        /// The fingerprint now.
        current: String,
        /// The paths that differ from what was reviewed, or why they cannot be named.
        changed: String,
    },
    /// Text that is not a record id.
    #[error("invalid record id {text:?}: expected 64 lowercase hex digits")]
    BadRecordId {
        /// The text as given (truncated for display).
        text: String,
    },
    /// A signing key ledger cannot sign with: not an OpenSSH private key,
    /// encrypted, or of a type it does not sign with.
    #[error("cannot use the signing key {path}: {reason}")]
    BadSigningKey {
        /// The key file.
        path: DisplayPath,
        /// What is wrong with it.
        reason: String,
    },
    /// An allowed-signers file with a line ledger cannot read as OpenSSH
    /// reads it; nothing of the file is used.
    #[error("cannot read the allowed-signers file {path}, line {line}: {reason}")]
    BadAllowedSigners {
        /// The allowed-signers file.
        path: DisplayPath,
        /// The line, counted from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

impl Error {
    /// The stable machine-readable code of this error, e.g. `"conflict"`.
    pub fn code(&self) -> &'static str {
        self.into()
    }

    /// The workspace path the error is about, when there is one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::InvalidPath { path, .. }
            | Error::NonUtf8Path { path }
            | Error::Conflict { path }
            | Error::SpecialFile { path, .. }
            | Error::NestedRepository { path }
            | Error::Unreadable { path, .. }
            | Error::Unwritable { path, .. }
            | Error::SymlinkedParent { path, .. }
            | Error::ChangedWhileReading { path }
            | Error::OutsideWorkspace { path, .. }
            | Error::UntrustedRepository { path }
            | Error::UntrustedStore { path, .. }
            | Error::Git { path, .. }
            | Error::MalformedRecord { record: path, .. }
            | Error::UnsupportedVersion { record: path, .. }
            | Error::MissingMaterial { document: path, .. }
            | Error::AmbiguousMaterial { document: path, .. }
            | Error::BadSchema { path, .. }
            | Error::BadOpenspecConfig { path, .. }
            | Error::BadGateDeclaration { path, .. }
            | Error::UnknownSchema { project: path, .. }
            | Error::BadEntry { path, .. }
            | Error::BadReport { path, .. }
            | Error::UnmatchedExclusion {
                exclusion: path, ..
            }
            | Error::RefLocked { lock: path, .. }
            | Error::DuplicateEntry { path }
            | Error::InvalidGitfile { path, .. }
            | Error::TooLarge { path, .. }
            | Error::UnknownChange { active: path, .. }
            | Error::BadSigningKey { path, .. }
            | Error::BadAllowedSigners { path, .. } => Some(&path.0),
            Error::CorruptRecord { path, .. } => Some(&path.0),
            Error::PointerConflict { .. }
            | Error::DivergentHeads { .. }
            | Error::ChainMismatch { .. }
            | Error::RefNameConflict { .. }
            | Error::BadRefName { .. }
            | Error::BadRecordId { .. } => None,
            Error::BadFingerprint { .. }
            | Error::GraphCycle { .. }
            | Error::GateCycle { .. }
            | Error::UnknownArtifact { .. }
            | Error::MissingSource { .. }
            | Error::PrerequisiteFailed { .. }
            | Error::GateNotStarted { .. }
            | Error::Cancelled { .. }
            | Error::InvalidArgument { .. }
            | Error::ReadOnly { .. }
            | Error::GitEnvironment { .. }
            | Error::UpstreamBlocked { .. }
            | Error::AbsentArtifact { .. }
            | Error::ValidationRefused { .. }
            | Error::NotValidated { .. }
            | Error::NoDelivery { .. }
            | Error::FingerprintMoved { .. }
            | Error::NonUtf8Value { .. } => None,
        }
    }

    /// Every code this version can return, in declaration order, for
    /// documentation and the bindings' tables.
    pub const CODES: &'static [&'static str] = <Error as strum::VariantNames>::VARIANTS;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_variant_names_in_kebab_case() {
        // Digits stay with their word: the code of NonUtf8Path is non-utf8-path.
        let e = Error::NonUtf8Path {
            path: DisplayPath::from("x"),
        };
        assert_eq!(e.code(), "non-utf8-path");
        assert_eq!(Error::CODES.len(), 56);
        assert!(Error::CODES.contains(&"non-utf8-value") && Error::CODES.contains(&"git"));
        let unique: std::collections::BTreeSet<_> = Error::CODES.iter().collect();
        assert_eq!(unique.len(), Error::CODES.len());
    }

    #[test]
    fn display_path_escapes_invalid_bytes_and_controls() {
        let p = DisplayPath::from_bytes(b"a\xffb\nc");
        assert_eq!(p.0, "a\\377b\\nc");
    }
}
