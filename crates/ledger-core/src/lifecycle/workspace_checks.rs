//! The parts of a resume report that belong to the workspace rather than to
//! one change (docs/lifecycle.md, Resuming in one call): the gates
//! `ledger.toml` declares, checked as `gate check --all` checks them; the
//! verdicts the store records, checked as `verdict check` checks them; and
//! how every gate's prerequisites are observed — as the caller gives them,
//! else as declared, a declared command only when the caller allows it
//! (SPEC §15: whoever writes the checkout chose what `ledger.toml` says).

use std::collections::{BTreeMap, BTreeSet};

use camino::Utf8Path;
use serde::Serialize;

use crate::error::Result;
use crate::gate::check::check_gate_query;
use crate::gate::declared::{DECLARATIONS_FILE, Declarations};
use crate::gate::evidence::{Observe, StaleReason};
use crate::lifecycle::validation::GatePrerequisites;
use crate::lifecycle::work::{Note, NoteKind, Work, WorkKind};
use crate::quote::quote;
use crate::records::store::{RecordId, Store};
use crate::verdict::{VerdictCheck, check_verdict, verdict_ref};

/// A gate `ledger.toml` declares, as it stands now (`gate check NAME`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DeclaredGateStanding {
    /// The gate.
    pub gate: String,
    /// Whether its latest evidence is fresh against the declaration now.
    pub fresh: bool,
    /// The record of its latest evidence, if any.
    pub record: Option<RecordId>,
    /// Why not (empty when fresh).
    pub reasons: Vec<StaleReason>,
    /// Its declared prerequisite commands that were not run (the caller did
    /// not allow it and gave no value): each is unverified.
    pub commands_not_run: Vec<String>,
}

/// How one resume check observes gates' prerequisites, and what it used.
pub(crate) struct Observation<'a> {
    declarations: Option<Declarations>,
    given: &'a GatePrerequisites,
    allow_commands: bool,
    /// Gates whose given prerequisites something checked relied on.
    used: BTreeSet<String>,
    /// Gate → its declared commands that were not run.
    not_run: BTreeMap<String, BTreeSet<String>>,
}

impl<'a> Observation<'a> {
    /// Reads `ledger.toml` of `workspace`, if there is one (a bad one is
    /// `bad-gate-declaration`, as for every gate verb).
    pub(crate) fn read(
        workspace: &Utf8Path,
        settings: &crate::Settings,
        given: &'a GatePrerequisites,
        allow_commands: bool,
    ) -> Result<Self> {
        let declarations = Declarations::read(workspace)?;
        Ok(Observation {
            declarations: declarations.map(|d| d.with_settings(settings.clone())),
            given,
            allow_commands,
            used: BTreeSet::new(),
            not_run: BTreeMap::new(),
        })
    }

    /// How to observe the prerequisites of `gate`, which a checked PASS
    /// relied on: the given ones over the declared ones when the gate is
    /// declared, else the given ones (`None`: none observed).
    pub(crate) fn for_pass_gate(&mut self, gate: &str) -> Option<BTreeMap<String, Observe>> {
        let given = self.given.get(gate);
        if given.is_some() {
            self.used.insert(gate.to_owned());
        }
        let declared =
            (self.declarations.as_ref()).and_then(|d| d.gates().iter().find(|g| g.name == gate));
        let Some(declared) = declared else {
            return given.cloned();
        };
        let mut observed = declared.checked_prerequisites(self.allow_commands);
        observed.extend(
            given
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        let not_run = (declared.env_cmd.keys())
            .filter(|name| !observed.contains_key(*name))
            .cloned();
        self.not_run
            .entry(gate.to_owned())
            .or_default()
            .extend(not_run);
        Some(observed)
    }

    /// Every declared gate checked now, in dependency order, each as `gate
    /// check NAME` checks it with the prerequisites given for it; nothing is
    /// run but the declared commands the caller allowed.
    pub(crate) fn declared_gates(&mut self) -> Result<Vec<DeclaredGateStanding>> {
        let Some(declarations) = &self.declarations else {
            return Ok(Vec::new());
        };
        let none = BTreeMap::new();
        let mut out = Vec::new();
        for gate in declarations.gates() {
            let given = self.given.get(&gate.name);
            if given.is_some() {
                self.used.insert(gate.name.clone());
            }
            let query =
                declarations.query_allowing(gate, given.unwrap_or(&none), self.allow_commands)?;
            let freshness = check_gate_query(&query)?;
            (self.not_run.entry(gate.name.clone()).or_default())
                .extend(query.unobserved.iter().cloned());
            out.push(DeclaredGateStanding {
                gate: gate.name.clone(),
                fresh: freshness.fresh,
                record: freshness.record,
                reasons: freshness.reasons,
                commands_not_run: query.unobserved.into_iter().collect(),
            });
        }
        Ok(out)
    }

    /// What the check did not use or could not observe: prerequisites given
    /// for a gate nothing checked relies on, declared commands not run.
    pub(crate) fn notes(&self) -> Vec<Note> {
        let mut notes: Vec<Note> = (self.given.keys())
            .filter(|gate| !self.used.contains(*gate))
            .map(|gate| Note {
                kind: NoteKind::UnusedPrerequisites,
                subject: Some(gate.clone()),
                message: format!(
                    "prerequisites were given for gate {}, which nothing checked at this stage relies on (no checked verdict relies on it and {DECLARATIONS_FILE} does not declare it): not used",
                    quote(gate)
                ),
            })
            .collect();
        for (gate, commands) in self.not_run.iter().filter(|(_, c)| !c.is_empty()) {
            notes.push(Note {
                kind: NoteKind::CommandsNotRun,
                subject: Some(gate.clone()),
                message: commands_not_run(gate, commands),
            });
        }
        notes
    }
}

/// Why a declared command prerequisite stays unverified, and how to observe it.
fn commands_not_run(gate: &str, commands: &BTreeSet<String>) -> String {
    let names: Vec<String> = commands.iter().map(|c| quote(c).into_owned()).collect();
    let (what, it) = match names.len() {
        1 => ("command", "it stays"),
        _ => ("commands", "they stay"),
    };
    format!(
        "gate {} declares the prerequisite {what} {} in {DECLARATIONS_FILE}, which a check runs only when the caller allows declared prerequisite commands (a checkout cannot): {it} unverified; give the values, or allow them",
        quote(gate),
        names.join(", ")
    )
}

/// The work a stale declared gate is.
pub(crate) fn declared_gate_work(gate: &DeclaredGateStanding) -> Option<Work> {
    if gate.fresh {
        return None;
    }
    let why: Vec<String> = gate.reasons.iter().map(ToString::to_string).collect();
    Some(Work::about(
        WorkKind::DeclaredGateStale,
        &gate.gate,
        format!(
            "gate {} declared in {DECLARATIONS_FILE} is stale: {}; run it",
            quote(&gate.gate),
            why.join("; ")
        ),
    ))
}

/// Every verdict the store records (a ref `verdicts/<name>`), each checked
/// now as `verdict check` checks it, by name.
pub(crate) fn recorded_verdicts(store: &Store) -> Result<Vec<VerdictCheck>> {
    let prefix = verdict_ref("");
    let mut names: Vec<String> = (store.refs()?.into_iter())
        .filter_map(|(name, _)| name.strip_prefix(prefix.as_str()).map(str::to_owned))
        .collect();
    names.sort();
    names
        .iter()
        .map(|name| check_verdict(store, name))
        .collect()
}

/// The work a verdict that no longer stands is: audit again, or downgrade.
pub(crate) fn verdict_work(check: &VerdictCheck) -> Option<Work> {
    if check.stands {
        return None;
    }
    let name = quote(&check.name);
    let why = match (&check.unproven, &check.comparison) {
        (Some(unproven), _) => format!("it is unproven: {unproven}"),
        (None, Some(comparison)) => {
            let paths: Vec<String> = (comparison.changes.iter())
                .map(|c| quote(c.path()).into_owned())
                .collect();
            format!(
                "{} path{} changed since it was recorded ({})",
                paths.len(),
                if paths.len() == 1 { "" } else { "s" },
                paths.join(", ")
            )
        }
        (None, None) => "it was never recorded".to_owned(),
    };
    Some(Work::about(
        WorkKind::VerdictStale,
        &check.name,
        format!("verdict {name} no longer stands: {why}: audit again or downgrade it"),
    ))
}
