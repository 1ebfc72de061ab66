//! Validation (docs/lifecycle.md, Validation): a verdict bound to the PASS
//! inventory of a change — its planning artifacts raw, the baseline specs of
//! the capabilities it has deltas for, the delivery files and instructions the
//! caller names — and the later check that the PASS still stands.

use std::collections::BTreeMap;

use camino::Utf8Path;
use serde::Serialize;

use crate::approval::cascade::status;
use crate::approval::envelope::{GateUse, StateEnvelope, Validation, ValidationVerdict};
use crate::approval::handoff::now;
use crate::approval::state::{commit_state, recorded_state};
use crate::approval::write_basis::{WriteBasis, check_reviewed, state_from};
use crate::error::{Error, Result};
use crate::expand::fingerprint::Fingerprint;
use crate::expand::inventory::Inventory;
use crate::expand::scope::Scope;
use crate::expand::walk::walk_root;
use crate::gate::check::check_gate_query;
use crate::gate::evidence::{GateQuery, Observe, StaleReason};
use crate::openspec::change_set::{ChangeLocation, ChangeSet, capabilities, specs_root};
use crate::path::{WorkspacePath, normalize_root};
use crate::quote::quote;
use crate::records::compare::Comparison;
use crate::records::store::{RecordId, Store};

/// The file of a change that reports its completion: written at finalization,
/// so never part of the PASS it reports on.
pub const COMPLETION_EVIDENCE: &str = "completion-evidence.md";

/// The reason recorded for the exclusion of [`COMPLETION_EVIDENCE`].
pub const COMPLETION_EVIDENCE_REASON: &str =
    "the change's completion evidence: written at finalization, after the PASS it reports on";

/// The reason recorded for the exclusion of a phase record the caller names.
pub const PHASE_RECORD_REASON: &str =
    "a phase record of this change: it records the validation, it is not its input";

/// What a validation is asked to record: the verdict, where it was observed,
/// the delivery inputs beyond the change's own files, and the gates it relied on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationRequest {
    /// The verdict.
    pub verdict: ValidationVerdict,
    /// Where the verdict was observed (a review id, a message). Not empty.
    pub source: String,
    /// Git repositories at or below the workspace (default: the one holding it).
    pub repositories: Vec<String>,
    /// Delivery roots: directories (or files) whose files the PASS covers,
    /// new files included.
    pub roots: Vec<String>,
    /// Delivery paths: exact files, included regardless of Git.
    pub paths: Vec<String>,
    /// Paths or roots left out of the delivery roots, with their reasons
    /// (`None`: the front doors' default reason).
    pub exclusions: Vec<(String, Option<String>)>,
    /// Local unversioned instruction files the validation read (e.g. an
    /// ignored `AGENTS.local.md`), included explicitly.
    pub instructions: Vec<String>,
    /// Phase records of this change to leave out of the PASS (they record it).
    pub phase_records: Vec<String>,
    /// The gates the verdict relied on. A PASS needs each fresh now, checked as
    /// [`check_gate_query`] checks it: what a query leaves out comes from the
    /// gate's evidence, and nothing read from the store is run.
    pub gates: Vec<GateQuery>,
    /// Why the change has no delivery files, when it names no delivery root
    /// or path: recorded with the verdict. A PASS naming neither, without
    /// this, is refused with `no-delivery`.
    pub no_delivery: Option<String>,
    /// The fingerprint of the PASS inventory the reviewer saw and the state
    /// record the write started from (`fingerprint-moved`, `pointer-conflict`).
    pub basis: WriteBasis,
}

/// How to observe each gate's prerequisites now, by gate name: what `ledger
/// gate check --env/--env-cmd` takes, for every gate a validation relies on.
/// A gate left out observes none (each recorded one is
/// `prerequisite-unverified`).
pub type GatePrerequisites = BTreeMap<String, BTreeMap<String, Observe>>;

/// Refuses prerequisites given for a gate that is not among `gates`: a typo
/// would otherwise leave the gate it meant unverified without a word.
fn check_gate_names<'a>(
    prerequisites: &GatePrerequisites,
    mut gates: impl Iterator<Item = &'a str> + Clone,
) -> Result<()> {
    match prerequisites
        .keys()
        .find(|name| !gates.clone().any(|g| g == name.as_str()))
    {
        Some(name) => Err(Error::InvalidArgument {
            message: format!(
                "prerequisites were given for gate {}, which the validation does not rely on ({})",
                quote(name),
                gates
                    .by_ref()
                    .map(|g| quote(g).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
        None => Ok(()),
    }
}

impl ValidationRequest {
    /// A request for `verdict` observed at `source`, with no delivery inputs
    /// and no gates yet.
    pub fn new(verdict: ValidationVerdict, source: &str) -> Self {
        ValidationRequest {
            verdict,
            source: source.to_owned(),
            repositories: Vec::new(),
            roots: Vec::new(),
            paths: Vec::new(),
            exclusions: Vec::new(),
            instructions: Vec::new(),
            phase_records: Vec::new(),
            gates: Vec::new(),
            no_delivery: None,
            basis: WriteBasis::default(),
        }
    }

    /// Adds the gate `name`, checked in `workspace` as `ledger gate check
    /// --name NAME` checks it (no prerequisite observed now).
    pub fn gate(&mut self, workspace: &Utf8Path, name: &str) {
        self.gates.push(GateQuery {
            name: name.to_owned(),
            workspace: workspace.to_owned(),
            ..GateQuery::default()
        });
    }

    /// Adds the gates `names`, each checked in `workspace` as `ledger gate
    /// check --name NAME --env … --env-cmd …` checks it with its
    /// `prerequisites`; prerequisites of a gate not named are refused
    /// (`invalid-argument`).
    pub fn gates_observing(
        &mut self,
        workspace: &Utf8Path,
        names: &[String],
        prerequisites: &GatePrerequisites,
    ) -> Result<()> {
        check_gate_names(prerequisites, names.iter().map(String::as_str))?;
        for name in names {
            self.gates.push(GateQuery {
                name: name.clone(),
                workspace: workspace.to_owned(),
                prerequisites: prerequisites.get(name).cloned(),
                ..GateQuery::default()
            });
        }
        Ok(())
    }
}

/// The scope of `change`'s PASS inventory (docs/lifecycle.md, The PASS scope):
/// the change directory as a root (every planning artifact raw: Tasks are not
/// normalized; `.openspec.yaml` too), the artifacts' files outside it (design
/// materials linked from elsewhere), `openspec/specs/<capability>` for each
/// capability with deltas, the delivery roots and paths and the instruction
/// files of `request`; excluded with reasons: the store, the change's
/// `completion-evidence.md` and the phase records named.
pub fn pass_scope(change: &ChangeSet, request: &ValidationRequest) -> Result<Scope> {
    let change = &change.located_now()?;
    change.require_present()?;
    if let ChangeLocation::Archived { directory } = &change.location {
        return Err(Error::InvalidArgument {
            message: format!(
                "change {} is archived ({}); a validation is of an active change, before finalization",
                quote(&change.change),
                quote(directory)
            ),
        });
    }
    let directory = change.directory();
    let mut scope =
        Scope::new(change.workspace.clone()).with_settings(change.workspace_settings().clone());
    scope.purpose = format!("validation PASS of change {}", change.change);
    for repository in &request.repositories {
        scope.add_repository(repository)?;
    }
    scope.add_root(&directory)?;
    // What the PASS must hold whatever the caller excludes.
    let mut required = MustHold {
        directory: directory.clone(),
        files: Vec::new(),
        baselines: Vec::new(),
    };
    for artifact in change.graph.artifacts() {
        let set = change.scope(&artifact.id)?;
        for path in set.paths.iter().chain(set.tasks_paths()) {
            required.files.push(path.as_str().to_owned());
            if !path.is_within(&directory) {
                scope.add_path(path.as_str())?;
            }
        }
    }
    let specs = specs_root(change);
    for capability in capabilities(change)? {
        let root = format!("{specs}/{capability}");
        scope.add_root(&root)?;
        required.baselines.push(root);
    }
    for root in &request.roots {
        scope.add_root(root)?;
    }
    for path in request.paths.iter().chain(&request.instructions) {
        scope.add_path(path)?;
    }
    for (path, reason) in &request.exclusions {
        let path = check_exclusion(change, path, &required, false)?;
        let reason = reason
            .as_deref()
            .unwrap_or(crate::expand::scope::DEFAULT_EXCLUSION_REASON);
        scope.exclude(&path, reason)?;
    }
    scope.exclude(
        &format!("{directory}/{COMPLETION_EVIDENCE}"),
        COMPLETION_EVIDENCE_REASON,
    )?;
    for record in &request.phase_records {
        let record = check_exclusion(change, record, &required, true)?;
        scope.exclude(&record, PHASE_RECORD_REASON)?;
    }
    Ok(scope)
}

/// What a PASS must hold whatever the caller excludes.
struct MustHold {
    /// The change directory (only phase records inside it may be excluded).
    directory: String,
    /// Every file of every artifact's set, inside the change directory or not.
    files: Vec<String>,
    /// `openspec/specs/<capability>` of every touched capability.
    baselines: Vec<String>,
}

/// Refuses an exclusion that would take out of the PASS what it must hold,
/// whatever its spelling, and returns it as the scope holds it (normalized as
/// [`Scope::exclude`] normalizes it: `./x`, `x/` and `x` are one path; `a/../x`
/// and `a//x` are refused). Refused: one that covers a planning artifact, the
/// change directory or a touched capability's baseline; one inside a touched
/// baseline; inside the change directory anything but a phase record, and a
/// phase record that is a planning file (an artifact's file, `.openspec.yaml`,
/// anything below `specs/`); wholesale `.agents`/`.opencode` (SPEC: exclusions
/// are per change). Paths are compared in any letter case, as a
/// case-insensitive file system would resolve them. A phase record must be
/// one regular file now.
fn check_exclusion(
    change: &ChangeSet,
    path: &str,
    required: &MustHold,
    phase_record: bool,
) -> Result<String> {
    let path = normalize_root(path)?;
    let refuse = |why: String| {
        Err(Error::InvalidArgument {
            message: format!(
                "cannot exclude '{}' from the PASS of change {}: {why}",
                crate::quote::escape(path.as_bytes()),
                quote(&change.change)
            ),
        })
    };
    let folded = path.to_lowercase();
    let covers = |held: &String| {
        let held = held.to_lowercase();
        folded == "." || held == folded || is_below(&held, &folded)
    };
    let held = std::iter::once(&required.directory)
        .chain(&required.files)
        .chain(&required.baselines);
    if let Some(covered) = held.clone().find(|held| covers(held)) {
        return refuse(format!(
            "it covers '{}', which the PASS must hold",
            crate::quote::escape(covered.as_bytes())
        ));
    }
    if let Some(baseline) =
        (required.baselines.iter()).find(|b| is_below(&folded, &b.to_lowercase()))
    {
        return refuse(format!(
            "it lies in '{}', the baseline specs of a capability the change has deltas for, which the PASS must hold",
            crate::quote::escape(baseline.as_bytes())
        ));
    }
    let directory = required.directory.to_lowercase();
    if let Some(relative) = below(&folded, &directory) {
        if !phase_record {
            return refuse(
                "inside the change directory only the phase records named as such (one file each) are excluded"
                    .to_owned(),
            );
        }
        if relative == crate::openspec::change_config::CHANGE_METADATA
            || relative.starts_with("specs/")
            || change.generates_path(relative)?
        {
            return refuse(
                "it is a planning file of the change, which the PASS must hold".to_owned(),
            );
        }
    }
    if matches!(folded.as_str(), ".agents" | ".opencode") {
        return refuse("exclusions are per change, never all of it".to_owned());
    }
    if phase_record {
        let kind = PhaseRecordKind::of(&change.workspace, &path)?;
        if kind != PhaseRecordKind::File {
            return refuse(format!(
                "a phase record is one regular file, and it is {}",
                kind.described()
            ));
        }
    }
    Ok(path)
}

/// Whether `path` lies below the directory `dir`.
fn is_below(path: &str, dir: &str) -> bool {
    below(path, dir).is_some()
}

/// The part of `path` below the directory `dir`, if it lies below it.
fn below<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    path.strip_prefix(dir)?.strip_prefix('/')
}

/// What a phase record is on disk (symlinks not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PhaseRecordKind {
    /// One regular file: what a phase record must be.
    File,
    /// Nothing is there.
    Missing,
    /// A directory: its files would be left out of the PASS.
    Directory,
    /// A symlink (never followed).
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

impl PhaseRecordKind {
    /// What `relative` is below `workspace` now.
    fn of(workspace: &Utf8Path, relative: &str) -> Result<PhaseRecordKind> {
        match std::fs::symlink_metadata(workspace.join(relative)) {
            Ok(meta) if meta.file_type().is_symlink() => Ok(PhaseRecordKind::Symlink),
            Ok(meta) if meta.is_file() => Ok(PhaseRecordKind::File),
            Ok(meta) if meta.is_dir() => Ok(PhaseRecordKind::Directory),
            Ok(_) => Ok(PhaseRecordKind::Other),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                Ok(PhaseRecordKind::Missing)
            }
            Err(source) => Err(Error::Unreadable {
                path: relative.into(),
                operation: "stat a phase record",
                source,
            }),
        }
    }

    /// `file`, `missing`, ... as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            PhaseRecordKind::File => "file",
            PhaseRecordKind::Missing => "missing",
            PhaseRecordKind::Directory => "directory",
            PhaseRecordKind::Symlink => "symlink",
            PhaseRecordKind::Other => "other",
        }
    }

    /// For a message: `missing`, `a directory`, ...
    fn described(self) -> &'static str {
        match self {
            PhaseRecordKind::File => "a regular file",
            PhaseRecordKind::Missing => "missing",
            PhaseRecordKind::Directory => "a directory",
            PhaseRecordKind::Symlink => "a symlink",
            PhaseRecordKind::Other => "a special file (FIFO, socket or device)",
        }
    }
}

/// A phase record the PASS excluded, as it is now (docs/lifecycle.md, Phase
/// records): the PASS stands only while each is one regular file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PhaseRecordStanding {
    /// Where it is now (below the archive directory once the change moved there).
    pub path: String,
    /// What is there.
    pub kind: PhaseRecordKind,
    /// When it is a directory: every file below it (symlinks not followed),
    /// which the exclusion would leave out of the PASS.
    pub inside: Vec<WorkspacePath>,
}

impl PhaseRecordStanding {
    /// Whether it is one regular file.
    pub fn stands(&self) -> bool {
        self.kind == PhaseRecordKind::File
    }

    /// The phase record at `path` in `workspace` now.
    pub(crate) fn observe(workspace: &Utf8Path, path: &str) -> Result<PhaseRecordStanding> {
        let kind = PhaseRecordKind::of(workspace, path)?;
        let inside = match kind {
            PhaseRecordKind::Directory => {
                let scope = Scope::new(workspace.to_owned());
                let mut files = walk_root(workspace.as_std_path(), path, &scope, &[])?;
                files.sort();
                files
            }
            _ => Vec::new(),
        };
        Ok(PhaseRecordStanding {
            path: path.to_owned(),
            kind,
            inside,
        })
    }
}

/// The phase records a PASS excluded: its scope's exclusions with their reason.
pub(crate) fn phase_records(validation: &Validation) -> Vec<String> {
    (validation.inventory.scope.exclusions.iter())
        .filter(|e| e.reason == PHASE_RECORD_REASON)
        .map(|e| e.path.clone())
        .collect()
}

/// Why a PASS cannot be recorded now: every artifact whose approval does not
/// stand, every gate that is not fresh. Returns the gates' evidence records.
fn pass_preconditions(
    store: &Store,
    change: &ChangeSet,
    gates: &[GateQuery],
) -> Result<(Vec<GateUse>, Vec<String>)> {
    let mut reasons = unapproved(store, change)?;
    let mut used = Vec::new();
    for query in gates {
        // Checked with the settings of the store's workspace (its allowed
        // signers), whoever built the query.
        let query = GateQuery {
            settings: store.settings().clone(),
            ..query.clone()
        };
        let freshness = check_gate_query(&query)?;
        if !freshness.fresh {
            let why: Vec<String> = freshness
                .reasons
                .iter()
                .map(StaleReason::to_string)
                .collect();
            reasons.push(format!(
                "gate {} is stale ({})",
                quote(&query.name),
                why.join(", ")
            ));
        }
        used.push(GateUse {
            gate: query.name.clone(),
            record: freshness.record,
        });
    }
    Ok((used, reasons))
}

/// Every artifact of `change` whose approval does not stand now, as reasons.
fn unapproved(store: &Store, change: &ChangeSet) -> Result<Vec<String>> {
    let approvals = status(store, change)?;
    let mut reasons = Vec::new();
    for row in &approvals.artifacts {
        if !row.state.stands() {
            reasons.push(format!(
                "artifact {} is {}",
                quote(&row.artifact),
                row.state.as_str()
            ));
        }
    }
    for changed in &approvals.schema_changed {
        reasons.push(format!(
            "artifact {} was approved with another schema ({})",
            quote(&changed.artifact),
            changed.reason.code()
        ));
    }
    Ok(reasons)
}

/// The gates' latest evidence records, whatever their freshness (a FAIL).
fn latest_records(of: &Store, gates: &[GateQuery]) -> Result<Vec<GateUse>> {
    gates
        .iter()
        .map(|query| {
            let workspace = Scope::new(query.workspace.clone()).resolve()?.workspace;
            let store = Store::open(&workspace)?.with_settings(of.settings().clone());
            let latest = crate::gate::evidence::latest_evidence(&store, &query.name)?;
            Ok(GateUse {
                gate: query.name.clone(),
                record: latest.map(|(id, _)| id),
            })
        })
        .collect()
}

/// Refuses a PASS that names no delivery input unless it declares, with a
/// reason, that the change has none (`no-delivery`); a declaration beside
/// delivery inputs, or with an empty reason, contradicts itself.
fn check_delivery(change: &ChangeSet, request: &ValidationRequest) -> Result<()> {
    let names_delivery = !(request.roots.is_empty() && request.paths.is_empty());
    match &request.no_delivery {
        Some(reason) if reason.trim().is_empty() => Err(Error::InvalidArgument {
            message: format!(
                "declaring that change {} has no delivery files needs the reason",
                quote(&change.change)
            ),
        }),
        Some(_) if names_delivery => Err(Error::InvalidArgument {
            message: format!(
                "change {} is declared to have no delivery files, but delivery roots or paths are named; give one or the other",
                quote(&change.change)
            ),
        }),
        None if !names_delivery && request.verdict == ValidationVerdict::Pass => {
            Err(Error::NoDelivery {
                change: change.change.clone(),
            })
        }
        _ => Ok(()),
    }
}

/// Records a validation verdict in `change`'s envelope (docs/lifecycle.md,
/// Validation): builds the PASS inventory ([`pass_scope`]), and, for a PASS,
/// refuses with `validation-refused` (every reason listed) unless every
/// artifact's approval stands and every gate named is fresh now. A FAIL is a
/// finding and needs neither. The envelope keeps every other field; the
/// write is compare-and-swap on the head read here (`pointer-conflict`).
pub fn record_validation(
    store: &Store,
    change: &ChangeSet,
    request: &ValidationRequest,
) -> Result<(RecordId, StateEnvelope)> {
    if request.source.trim().is_empty() {
        return Err(Error::InvalidArgument {
            message: format!(
                "a verdict on change {} needs the observed source of the decision",
                quote(&change.change)
            ),
        });
    }
    check_delivery(change, request)?;
    let scope = pass_scope(change, request)?;
    let (head, mut envelope) =
        state_from(store, &change.change, request.basis.started_from.as_ref())?;
    let gates = match request.verdict {
        ValidationVerdict::Pass => {
            let (gates, reasons) = pass_preconditions(store, change, &request.gates)?;
            if !reasons.is_empty() {
                return Err(Error::ValidationRefused {
                    change: change.change.clone(),
                    reasons: reasons.join("; "),
                });
            }
            gates
        }
        ValidationVerdict::Fail => latest_records(store, &request.gates)?,
    };
    let inventory = Inventory::expand(&scope)?;
    check_reviewed(
        store,
        &change.change,
        &format!(
            "the {} verdict on change {}",
            request.verdict.as_str(),
            quote(&change.change)
        ),
        request.basis.reviewed,
        &inventory,
        |e| e.validation.iter().map(|v| &v.inventory).collect(),
    )?;
    // An artifact edited between the check above and the expansion would be in
    // the PASS unapproved: the approvals must still stand after it.
    if request.verdict == ValidationVerdict::Pass {
        let reasons = unapproved(store, change)?;
        if !reasons.is_empty() {
            return Err(Error::ValidationRefused {
                change: change.change.clone(),
                reasons: format!("while the PASS was read: {}", reasons.join("; ")),
            });
        }
    }
    let specs = specs_root(change);
    let mut baseline =
        Scope::new(change.workspace.clone()).with_settings(change.workspace_settings().clone());
    baseline.repositories.clone_from(&scope.repositories);
    baseline.add_root(&specs)?;
    baseline.purpose = format!(
        "baseline specs at the validation of change {}",
        change.change
    );
    let capabilities = capabilities(change)?;
    // Fixed now: after the archive the validated baseline is gone (ledger keeps no copy).
    let spec_sync = crate::openspec::spec_sync::expect(
        &change.change,
        &change.directory(),
        &specs,
        &capabilities,
        &inventory,
    )?;
    let observed_head = crate::expand::ObservedHead::observe(&inventory);
    envelope.validation = Some(Validation {
        head: observed_head,
        verdict: request.verdict,
        fingerprint: inventory.fingerprint,
        inventory,
        gates,
        source: request.source.clone(),
        observed_at: now(),
        directory: change.directory(),
        specs_root: specs,
        capabilities,
        specs_baseline: Some(Inventory::expand(&baseline)?),
        archives: change.archived_directories()?,
        spec_sync: Some(spec_sync),
        no_delivery: request.no_delivery.clone(),
    });
    envelope.retired = None;
    let id = commit_state(store, &change.change, head.as_ref(), &envelope)?;
    Ok((id, envelope))
}

/// A gate the verdict relied on, as it stands now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GateStanding {
    /// The gate.
    pub gate: String,
    /// The evidence record the verdict recorded.
    pub recorded: Option<RecordId>,
    /// The gate's latest evidence record now.
    pub latest: Option<RecordId>,
    /// Whether the gate ran again since the verdict (its latest evidence is not
    /// the one the verdict relied on, e.g. over another scope): the verdict no
    /// longer stands on what the gate says now.
    pub rerun: bool,
    /// Whether its latest evidence is fresh now.
    pub fresh: bool,
    /// Why not (empty when fresh).
    pub reasons: Vec<StaleReason>,
}

/// Whether a recorded validation still stands (`ledger validate check`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ValidationCheck {
    /// The change.
    pub change: String,
    /// The state record holding the validation.
    pub record: RecordId,
    /// The recorded verdict.
    pub verdict: ValidationVerdict,
    /// The fingerprint it was given for.
    pub fingerprint: Fingerprint,
    /// The PASS inventory re-expanded now, path by path.
    pub comparison: Comparison,
    /// Every gate the verdict relied on, fresh or stale.
    pub gates: Vec<GateStanding>,
    /// Every phase record the PASS excluded, as it is now.
    pub phase_records: Vec<PhaseRecordStanding>,
    /// Why the change has no delivery files, when the verdict declared so.
    pub no_delivery: Option<String>,
    /// Whether the verdict is a PASS, its inventory is unchanged, every
    /// gate it relied on is fresh on the very evidence the verdict recorded
    /// and every phase record is one regular file.
    pub stands: bool,
}

/// The validation `change`'s envelope holds, with its record; `not-validated`
/// when there is none. The inventory is moved into the caller's workspace:
/// the record's own is never where ledger reads.
pub(crate) fn recorded_validation(
    store: &Store,
    change: &ChangeSet,
) -> Result<(RecordId, Validation)> {
    let (head, envelope) = recorded_state(store, change)?;
    let (Some(record), Some(mut validation)) = (head, envelope.validation) else {
        return Err(Error::NotValidated {
            change: change.change.clone(),
            reason: "its envelope records no verdict; record a validation first".to_owned(),
        });
    };
    // Records are input: a stored inventory must be what an expansion gives.
    let malformed = |reason: String| Error::MalformedRecord {
        record: crate::error::DisplayPath::from(record.to_string().as_str()),
        reason,
    };
    validation
        .inventory
        .check_stored()
        .map_err(|why| malformed(format!("validation.inventory: {why}")))?;
    if validation.fingerprint != validation.inventory.fingerprint {
        return Err(malformed(format!(
            "validation.fingerprint {} is not its inventory's {}",
            validation.fingerprint, validation.inventory.fingerprint
        )));
    }
    if let Some(baseline) = &validation.specs_baseline {
        baseline
            .check_stored()
            .map_err(|why| malformed(format!("validation.specs_baseline: {why}")))?;
    }
    let workspace = Scope::new(change.workspace.clone()).resolve()?.workspace;
    validation.inventory = validation.inventory.relocate(workspace.clone());
    validation.specs_baseline = validation.specs_baseline.map(|b| b.relocate(workspace));
    Ok((record, validation))
}

/// Re-expands the recorded PASS inventory of `change` and checks every gate it
/// relied on (docs/lifecycle.md, Checking a PASS). `not-validated` when the
/// envelope records no verdict.
pub fn check_validation(store: &Store, change: &ChangeSet) -> Result<ValidationCheck> {
    check_validation_with(store, change, &GatePrerequisites::new())
}

/// [`check_validation`], each gate's prerequisites observed as `prerequisites`
/// says (as `ledger gate check --env/--env-cmd` observes them); prerequisites
/// of a gate the verdict did not rely on are refused (`invalid-argument`).
pub fn check_validation_with(
    store: &Store,
    change: &ChangeSet,
    prerequisites: &GatePrerequisites,
) -> Result<ValidationCheck> {
    crate::expand::opened_once(|| {
        // An archived change's PASS is judged against the archive, by finalization.
        if let ChangeLocation::Archived { directory } = change.location() {
            return Err(Error::InvalidArgument {
                message: format!(
                    "change {} is archived ({}): its PASS is judged against the archive by the finalization check (finalize check), not by the validation check",
                    crate::quote::quote(&change.change),
                    crate::quote::quote(directory)
                ),
            });
        }
        let (record, validation) = recorded_validation(store, change)?;
        check_gate_names(
            prerequisites,
            validation.gates.iter().map(|g| g.gate.as_str()),
        )?;
        let recorded = (validation.inventory.clone()).with_settings(store.settings().clone());
        let comparison = recorded.compare()?;
        let workspace = validation.inventory.scope.workspace.clone();
        let mut gates = Vec::new();
        for used in &validation.gates {
            let freshness = check_gate_query(&GateQuery {
                name: used.gate.clone(),
                workspace: workspace.clone(),
                prerequisites: prerequisites.get(&used.gate).cloned(),
                settings: store.settings().clone(),
                ..GateQuery::default()
            })?;
            gates.push(GateStanding {
                gate: used.gate.clone(),
                recorded: used.record,
                latest: freshness.record,
                rerun: freshness.record != used.record,
                fresh: freshness.fresh,
                reasons: freshness.reasons,
            });
        }
        let phase_records = phase_records(&validation)
            .iter()
            .map(|path| PhaseRecordStanding::observe(&workspace, path))
            .collect::<Result<Vec<_>>>()?;
        let stands = validation.verdict == ValidationVerdict::Pass
            && comparison.matches
            && gates.iter().all(|g| g.fresh && !g.rerun)
            && phase_records.iter().all(PhaseRecordStanding::stands);
        Ok(ValidationCheck {
            change: change.change.clone(),
            record,
            verdict: validation.verdict,
            fingerprint: validation.fingerprint,
            comparison,
            gates,
            phase_records,
            no_delivery: validation.no_delivery,
            stands,
        })
    })
}

/// The paths of `paths` as workspace paths (for the finalization's registry).
pub(crate) fn workspace_paths(paths: &[String]) -> Result<Vec<WorkspacePath>> {
    paths
        .iter()
        .map(|p| WorkspacePath::new(p.as_str()))
        .collect()
}
