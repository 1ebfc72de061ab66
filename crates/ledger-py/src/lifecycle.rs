//! `advance_state()`, `state_log()`, `validate_record()`, `validate_check()`,
//! `finalize_check()` and their results (core `handoff`, `validation`,
//! `finalize`; docs/lifecycle.md).

use ledger_core::{
    Check, Finalization, GatePrerequisites, LogEntry, PhaseRecordStanding, StatePatch, TaskIds,
    ValidationCheck, ValidationRequest, Verdict, to_pretty_json,
};
use pyo3::prelude::*;

use crate::approval::{started_from, write_basis};
use crate::args::mapping;
use crate::artifacts::PyChangeSet;
use crate::compare::{PyChange, PyComparison};
use crate::envelope::PyStateEnvelope;
use crate::evidence::PyStaleReason;
use crate::evidence::prerequisites;
use crate::store::PyStore;
use crate::{errors, repr};

/// `gate_prerequisites=`: gate name → (prerequisite name → `Observe`).
fn gate_prerequisites(arg: Option<&Bound<'_, PyAny>>) -> PyResult<GatePrerequisites> {
    let observes = |v: &Bound<'_, PyAny>| Ok(prerequisites(Some(v))?.unwrap_or_default());
    Ok(arg
        .map(|a| mapping(a, observes))
        .transpose()?
        .unwrap_or_default())
}

/// Advances the change's state envelope (the handoff, `ledger state set`):
/// only the fields given change; the task ids are read from the tracked Tasks
/// file unless `completed` or `remaining` is given. `checks` are `(name,
/// result)` pairs, each replacing the check of the same name. `expected` is
/// the record the caller started from (`"none"`: no state was recorded;
/// default: the head as read now); another
/// writer's advance raises `PointerConflictError`. Returns the new record's id
/// and its envelope.
#[pyfunction]
#[pyo3(signature = (store, change, *, role = None, outcome = None, areas = None, checks = None, blockers = None, clear_blockers = false, next = None, completed = None, remaining = None, expected = None))]
#[allow(clippy::too_many_arguments)]
pub fn advance_state(
    py: Python<'_>,
    store: &PyStore,
    change: &PyChangeSet,
    role: Option<String>,
    outcome: Option<String>,
    areas: Option<Vec<String>>,
    checks: Option<Vec<(String, String)>>,
    blockers: Option<Vec<String>>,
    clear_blockers: bool,
    next: Option<String>,
    completed: Option<Vec<String>>,
    remaining: Option<Vec<String>>,
    expected: Option<String>,
) -> PyResult<(String, PyStateEnvelope)> {
    let tasks = match (completed, remaining) {
        (None, None) => TaskIds::FromTasksFile,
        (completed, remaining) => TaskIds::Given {
            completed: completed.unwrap_or_default(),
            remaining: remaining.unwrap_or_default(),
        },
    };
    let patch = StatePatch {
        role,
        outcome,
        areas,
        checks: (checks.into_iter().flatten())
            .map(|(name, result)| Check { name, result })
            .collect(),
        blockers: blockers.unwrap_or_default(),
        clear_blockers,
        next,
        tasks,
    };
    let expected = errors::run(py, || started_from(expected.as_deref()))?;
    let (store, change) = (store.inner.clone(), change.inner.clone());
    let (record, envelope) = errors::detached(py, move || {
        ledger_core::advance_state(&store, &change, &patch, expected.as_ref())
    })?;
    Ok((record.to_string(), PyStateEnvelope::from(envelope)))
}

/// One record of a change's state chain and what it changed.
#[pyclass(frozen, eq, get_all, skip_from_py_object)]
#[pyo3(name = "LogEntry", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyLogEntry {
    /// The record's id.
    record: String,
    /// When it was written (RFC 3339 UTC).
    written_at: String,
    /// `(field, summary)` for every field that differs from the record before.
    changes: Vec<(String, String)>,
}

impl From<&LogEntry> for PyLogEntry {
    fn from(e: &LogEntry) -> Self {
        PyLogEntry {
            record: e.record.to_string(),
            written_at: e.written_at.clone(),
            changes: (e.changes.iter())
                .map(|c| (c.field.clone(), c.summary.clone()))
                .collect(),
        }
    }
}

#[pymethods]
impl PyLogEntry {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["record", "changes"])
    }
}

/// The change's chain of state records, newest first (`ledger state log`).
#[pyfunction]
pub fn state_log(py: Python<'_>, store: &PyStore, change: String) -> PyResult<Vec<PyLogEntry>> {
    let store = store.inner.clone();
    let log = errors::detached(py, move || ledger_core::state_log(&store, &change))?;
    Ok(log.iter().map(PyLogEntry::from).collect())
}

/// Records a verdict (`"PASS"` or `"FAIL"`) with its PASS inventory in the
/// change's envelope (`ledger validate record`): the change's planning
/// artifacts raw, the baseline specs of the capabilities it has deltas for,
/// the delivery `roots` and `paths`, the `instructions` files; `phase_records`
/// are excluded (each one regular file). A PASS raises `ValidationRefusedError`
/// unless every artifact is approved and every gate of `gates` (names) is
/// fresh now, its prerequisites observed as `gate_prerequisites[gate]` says
/// (a mapping name → `Observe`, as `check_recorded_gate` takes them). A PASS
/// naming no `roots` or `paths` raises `NoDeliveryError` unless
/// `no_delivery` says why the change has none. `reviewed` is the PASS
/// fingerprint the reviewer saw (`FingerprintMovedError`), `expected` the
/// state record the caller started from (`PointerConflictError`). Returns the
/// new record's id and its envelope.
#[pyfunction]
#[pyo3(signature = (store, change, verdict, source, *, repos = None, roots = None, paths = None, exclude = None, instructions = None, gates = None, phase_records = None, no_delivery = None, gate_prerequisites = None, reviewed = None, expected = None))]
#[allow(clippy::too_many_arguments)]
pub fn validate_record(
    py: Python<'_>,
    store: &PyStore,
    change: &PyChangeSet,
    verdict: String,
    source: String,
    repos: Option<Vec<String>>,
    roots: Option<Vec<String>>,
    paths: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    instructions: Option<Vec<String>>,
    gates: Option<Vec<String>>,
    phase_records: Option<Vec<String>>,
    no_delivery: Option<String>,
    gate_prerequisites: Option<&Bound<'_, PyAny>>,
    reviewed: Option<String>,
    expected: Option<String>,
) -> PyResult<(String, PyStateEnvelope)> {
    let verdict: Verdict = errors::run(py, || verdict.parse())?;
    let observes = self::gate_prerequisites(gate_prerequisites)?;
    let mut request = ValidationRequest::new(verdict, &source);
    request.repositories = repos.unwrap_or_default();
    request.roots = roots.unwrap_or_default();
    request.paths = paths.unwrap_or_default();
    request.exclusions = (exclude.into_iter().flatten()).map(|p| (p, None)).collect();
    request.instructions = instructions.unwrap_or_default();
    request.phase_records = phase_records.unwrap_or_default();
    request.no_delivery = no_delivery;
    request.basis = write_basis(py, reviewed, expected)?;
    let gates = gates.unwrap_or_default();
    errors::run(py, || {
        request.gates_observing(&change.inner.workspace, &gates, &observes)
    })?;
    let (store, change) = (store.inner.clone(), change.inner.clone());
    let (record, envelope) = errors::detached(py, move || {
        ledger_core::record_validation(&store, &change, &request)
    })?;
    Ok((record.to_string(), PyStateEnvelope::from(envelope)))
}

/// A gate a validation relied on, as it stands now.
#[pyclass(frozen, eq, get_all, skip_from_py_object)]
#[pyo3(name = "GateStanding", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyGateStanding {
    /// The gate.
    gate: String,
    /// The evidence record the verdict recorded.
    recorded: Option<String>,
    /// The gate's latest evidence record now.
    latest: Option<String>,
    /// Whether the gate ran again since the verdict (its latest evidence is
    /// another record): the verdict no longer stands on it.
    rerun: bool,
    /// Whether its latest evidence is fresh now.
    fresh: bool,
    /// Why not (empty when fresh).
    reasons: Vec<PyStaleReason>,
}

/// Whether a recorded validation still stands (`ledger validate check`).
#[pyclass(frozen, eq)]
#[pyo3(name = "ValidationCheck", module = "ledger")]
#[derive(PartialEq)]
pub struct PyValidationCheck {
    /// The change.
    #[pyo3(get)]
    change: String,
    /// The state record holding the validation.
    #[pyo3(get)]
    record: String,
    /// `PASS` or `FAIL`.
    #[pyo3(get)]
    verdict: &'static str,
    /// The fingerprint it was given for.
    #[pyo3(get)]
    fingerprint: String,
    /// The PASS inventory re-expanded now, path by path.
    #[pyo3(get)]
    comparison: PyComparison,
    /// Every gate the verdict relied on.
    #[pyo3(get)]
    gates: Vec<PyGateStanding>,
    /// Every phase record the PASS excluded, as it is now.
    #[pyo3(get)]
    phase_records: Vec<PyPhaseRecord>,
    /// Why the change has no delivery files, when the verdict declared so.
    #[pyo3(get)]
    no_delivery: Option<String>,
    /// A PASS whose inventory is unchanged, whose gates are all fresh and
    /// whose phase records are each one regular file.
    #[pyo3(get)]
    stands: bool,
    inner: ValidationCheck,
}

/// A phase record a PASS excluded, as it is now: the PASS stands only while
/// it is one regular file.
#[pyclass(frozen, eq, get_all, skip_from_py_object)]
#[pyo3(name = "PhaseRecord", module = "ledger")]
#[derive(Clone, PartialEq)]
pub struct PyPhaseRecord {
    /// Where it is now (below the archive directory once the change moved).
    path: String,
    /// `file`, `missing`, `directory`, `symlink` or `other`.
    kind: &'static str,
    /// When a directory: every file below it, left out of the PASS.
    inside: Vec<String>,
    /// Whether it is one regular file.
    stands: bool,
}

impl From<&PhaseRecordStanding> for PyPhaseRecord {
    fn from(r: &PhaseRecordStanding) -> Self {
        PyPhaseRecord {
            path: r.path.clone(),
            kind: r.kind.as_str(),
            inside: r.inside.iter().map(|p| p.as_str().to_owned()).collect(),
            stands: r.stands(),
        }
    }
}

#[pymethods]
impl PyPhaseRecord {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["path", "kind"])
    }
}

impl From<ValidationCheck> for PyValidationCheck {
    fn from(inner: ValidationCheck) -> Self {
        PyValidationCheck {
            change: inner.change.clone(),
            record: inner.record.to_string(),
            verdict: inner.verdict.as_str(),
            fingerprint: inner.fingerprint.to_string(),
            comparison: PyComparison::from(inner.comparison.clone()),
            gates: (inner.gates.iter())
                .map(|g| PyGateStanding {
                    gate: g.gate.clone(),
                    recorded: g.recorded.map(|r| r.to_string()),
                    latest: g.latest.map(|r| r.to_string()),
                    rerun: g.rerun,
                    fresh: g.fresh,
                    reasons: g.reasons.iter().cloned().map(PyStaleReason::from).collect(),
                })
                .collect(),
            phase_records: inner
                .phase_records
                .iter()
                .map(PyPhaseRecord::from)
                .collect(),
            no_delivery: inner.no_delivery.clone(),
            stands: inner.stands,
            inner,
        }
    }
}

#[pymethods]
impl PyValidationCheck {
    /// The answer as JSON, exactly as `ledger validate check --json` prints it.
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["change", "verdict", "stands"])
    }
}

/// Re-expands the change's recorded PASS inventory and checks its gates
/// (`ledger validate check`), each gate's prerequisites observed as
/// `gate_prerequisites[gate]` says; `NotValidatedError` when none is recorded.
#[pyfunction]
#[pyo3(signature = (store, change, *, gate_prerequisites = None))]
pub fn validate_check(
    py: Python<'_>,
    store: &PyStore,
    change: &PyChangeSet,
    gate_prerequisites: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyValidationCheck> {
    let observes = self::gate_prerequisites(gate_prerequisites)?;
    let (store, change) = (store.inner.clone(), change.inner.clone());
    errors::detached(py, move || {
        ledger_core::check_validation_with(&store, &change, &observes)
    })
    .map(PyValidationCheck::from)
}

/// The answer of `ledger finalize check`: every difference from the PASS, by class.
#[pyclass(frozen, eq)]
#[pyo3(name = "Finalization", module = "ledger")]
#[derive(PartialEq)]
pub struct PyFinalization {
    /// The change.
    #[pyo3(get)]
    change: String,
    /// The state record holding the PASS.
    #[pyo3(get)]
    record: String,
    /// The PASS fingerprint.
    #[pyo3(get)]
    fingerprint: String,
    /// The archive move `(from directory, to directory)`, `None` when not archived.
    #[pyo3(get)]
    archive_move: Option<(String, String)>,
    /// The validated files moved byte-identically: `(from, to)` pairs.
    #[pyo3(get)]
    moved: Vec<(String, String)>,
    /// Writes below the baseline specs of the capabilities with deltas.
    #[pyo3(get)]
    spec_sync: Vec<PyChange>,
    /// The change's `completion-evidence.md`.
    #[pyo3(get)]
    completion_evidence: Vec<PyChange>,
    /// The registry paths named.
    #[pyo3(get)]
    registry: Vec<PyChange>,
    /// Every other difference: blocks finalization.
    #[pyo3(get)]
    new_changes: Vec<PyChange>,
    /// Touched baselines that are not the approved deltas applied:
    /// `(capability, path, headers)`, the requirement headers that differ.
    #[pyo3(get)]
    spec_mismatches: Vec<(String, String, Vec<String>)>,
    /// Touched baselines whose sync ledger cannot reproduce
    /// (`sync-unverified`): `(capability, path, reason)`.
    #[pyo3(get)]
    sync_unverified: Vec<(String, String, String)>,
    /// Every phase record of the PASS, where it is now; one that is not a
    /// regular file blocks.
    #[pyo3(get)]
    phase_records: Vec<PyPhaseRecord>,
    /// Whether there is no new change, spec mismatch or unverified sync, and
    /// every phase record is one regular file.
    #[pyo3(get)]
    clean: bool,
    inner: Finalization,
}

impl From<Finalization> for PyFinalization {
    fn from(inner: Finalization) -> Self {
        let changes = |list: &[ledger_core::Change]| list.iter().map(PyChange::from).collect();
        let moved = inner.archive_move.as_ref().map_or_else(Vec::new, |m| {
            (m.files.iter())
                .map(|f| (f.from.as_str().to_owned(), f.to.as_str().to_owned()))
                .collect()
        });
        PyFinalization {
            change: inner.change.clone(),
            record: inner.record.to_string(),
            fingerprint: inner.fingerprint.to_string(),
            archive_move: (inner.archive_move.as_ref()).map(|m| (m.from.clone(), m.to.clone())),
            moved,
            spec_sync: changes(&inner.spec_sync),
            completion_evidence: changes(&inner.completion_evidence),
            registry: changes(&inner.registry),
            new_changes: changes(&inner.new_changes),
            spec_mismatches: (inner.spec_mismatches.iter())
                .map(|m| (m.capability.clone(), m.path.clone(), m.headers.clone()))
                .collect(),
            sync_unverified: (inner.sync_unverified.iter())
                .map(|u| (u.capability.clone(), u.path.clone(), u.reason.clone()))
                .collect(),
            phase_records: inner
                .phase_records
                .iter()
                .map(PyPhaseRecord::from)
                .collect(),
            clean: inner.clean,
            inner,
        }
    }
}

#[pymethods]
impl PyFinalization {
    /// The answer as JSON, exactly as `ledger finalize check --json` prints it.
    fn to_json(&self) -> String {
        to_pretty_json(&self.inner)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr::fields(slf, &["change", "clean"])
    }
}

/// Classifies every difference between the change's PASS and the disk after
/// the terminal mutations (`ledger finalize check`); `expect` names registry
/// files. `NotValidatedError` when the envelope holds no PASS.
#[pyfunction]
#[pyo3(signature = (store, change, *, expect = None))]
pub fn finalize_check(
    py: Python<'_>,
    store: &PyStore,
    change: &PyChangeSet,
    expect: Option<Vec<String>>,
) -> PyResult<PyFinalization> {
    let (store, change) = (store.inner.clone(), change.inner.clone());
    let expect = expect.unwrap_or_default();
    errors::detached(py, move || {
        ledger_core::finalize_check(&store, &change, &expect)
    })
    .map(PyFinalization::from)
}
