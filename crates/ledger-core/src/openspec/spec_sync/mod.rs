//! The spec sync (docs/lifecycle.md, The spec sync; SPEC §16): what
//! OpenSpec's archive must write into each baseline spec a change touches, and
//! whether the disk holds exactly that.
//!
//! ledger keeps no copy of content, and the old baseline is gone after the
//! archive, so the expectation is fixed when the PASS is recorded: for every
//! capability the change has a delta for, [`apply`] (a port of OpenSpec
//! 1.13.2's merge, `merge`) computes the bytes the archive would write from
//! the validated baseline and delta, and the PASS keeps their SHA-256 and, per
//! requirement block, the header and a digest of the block ([`ExpectedSync`]).
//! At finalization the baseline is judged against it (`judge`): the expected
//! digest is an expected completion output; any other content is a new change
//! naming the requirement headers that differ; an expectation ledger could not
//! compute is `sync-unverified`, never clean.

mod blocks;
mod merge;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::error::Result;
use crate::expand::entry::{Content, Digest};
use crate::expand::inventory::Inventory;
use crate::own_file::{DOCUMENT_LIMIT, read_in_workspace};
use crate::path::WorkspacePath;

pub use merge::apply;

/// A spec sync ledger cannot reproduce: OpenSpec's archive would abort, or its
/// rules for the case are ones ledger does not port (docs/lifecycle.md).
#[derive(
    Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize, schemars::JsonSchema,
)]
#[error("spec sync of capability {capability} is unverified: {reason}")]
pub struct Unverified {
    /// The capability (`auth`, `api/tokens`).
    pub capability: String,
    /// Why, in a few words.
    pub reason: String,
}

/// One requirement block of an expected spec: its header name and the
/// SHA-256 of its text (LF line endings, trailing whitespace trimmed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RequirementDigest {
    /// The requirement's name, as OpenSpec reads the header.
    pub name: String,
    /// `sha256:` and the hex digest of the block's text.
    pub sha256: String,
}

/// What the spec sync must leave in one touched baseline, kept in the PASS
/// (docs/records.md, The validation): either the expected bytes' digest with
/// the outline of their requirement blocks, or why ledger cannot say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExpectedSync {
    /// The capability.
    pub capability: String,
    /// The baseline spec, `openspec/specs/<capability>/spec.md`.
    pub path: String,
    /// `sha256:` and the hex SHA-256 of the bytes OpenSpec's archive leaves
    /// there (`None`: unverified).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The expected spec's requirement blocks, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<RequirementDigest>,
    /// `sha256:` and the digest of everything outside the requirement blocks
    /// (title, Purpose, section header and preamble, later sections).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// Why the sync cannot be reproduced (`None`: it can).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<String>,
}

/// `sha256:` and the hex SHA-256 of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", Digest(Sha256::digest(bytes).into()).to_hex())
}

/// The outline of a spec's text: its requirement blocks' digests, and the
/// digest of the rest.
fn outline(text: &str) -> (Vec<RequirementDigest>, String) {
    let parts = blocks::requirements_section(text);
    let requirements = parts
        .blocks
        .iter()
        .map(|b| RequirementDigest {
            name: b.name.clone(),
            sha256: sha256(b.raw.as_bytes()),
        })
        .collect();
    // NUL cannot occur in the pieces' own separators, so the split is unambiguous enough.
    let frame = [
        parts.before.as_str(),
        &parts.header_line,
        &parts.preamble,
        &parts.after,
    ]
    .join("\0");
    (requirements, sha256(frame.as_bytes()))
}

impl ExpectedSync {
    /// The expectation for `capability` at `path`: [`apply`]'s bytes, outlined.
    pub fn compute(
        capability: &str,
        path: &str,
        change: &str,
        baseline: Option<&[u8]>,
        delta: &[u8],
    ) -> ExpectedSync {
        match apply(capability, change, baseline, delta) {
            Ok(bytes) => {
                // `apply` returns only text it read or built as UTF-8.
                let text = String::from_utf8_lossy(&bytes);
                let (requirements, frame) = outline(&text);
                ExpectedSync {
                    capability: capability.to_owned(),
                    path: path.to_owned(),
                    sha256: Some(sha256(&bytes)),
                    requirements,
                    frame: Some(frame),
                    unverified: None,
                }
            }
            Err(why) => ExpectedSync::unverified(capability, path, why.reason),
        }
    }

    /// An expectation ledger cannot give, with the reason.
    pub fn unverified(capability: &str, path: &str, reason: String) -> ExpectedSync {
        ExpectedSync {
            capability: capability.to_owned(),
            path: path.to_owned(),
            sha256: None,
            requirements: Vec::new(),
            frame: None,
            unverified: Some(reason),
        }
    }

    /// The requirement headers whose blocks differ between this expectation
    /// and `current` (the file's bytes now, `None`: absent), in expected order
    /// then the unexpected ones; `(outside the requirement blocks)` when the
    /// rest differs. Empty when `current` has the expected digest.
    pub fn differing_headers(&self, current: Option<&[u8]>) -> Vec<String> {
        if current.is_some_and(|bytes| self.sha256.as_deref() == Some(&sha256(bytes))) {
            return Vec::new();
        }
        let text = current.map(String::from_utf8_lossy);
        let (found, frame) = text.as_deref().map(outline).unwrap_or_default();
        let mut out: Vec<String> = Vec::new();
        let mut push = |name: &str| {
            let header = format!("### Requirement: {name}");
            if !out.contains(&header) {
                out.push(header);
            }
        };
        for want in &self.requirements {
            if !found.contains(want) {
                push(&want.name);
            }
        }
        for have in &found {
            if !self.requirements.contains(have) {
                push(&have.name);
            }
        }
        let expected_names: Vec<&str> = self.requirements.iter().map(|r| r.name.as_str()).collect();
        let found_names: Vec<&str> = found.iter().map(|r| r.name.as_str()).collect();
        if out.is_empty() && expected_names != found_names {
            out.push("(the requirements' order)".to_owned());
        }
        if self.frame.as_deref() != Some(frame.as_str()) || current.is_none() {
            out.push("(outside the requirement blocks)".to_owned());
        }
        if out.is_empty() {
            // Same blocks, same rest: the bytes differ in line endings or a BOM.
            out.push("(line endings or encoding)".to_owned());
        }
        out
    }
}

/// A touched baseline whose content is not what the approved deltas make of
/// the validated baseline: a new change, naming the requirement headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SpecMismatch {
    /// The capability.
    pub capability: String,
    /// The baseline spec.
    pub path: String,
    /// The requirement headers whose blocks differ (`### Requirement: …`), or
    /// what else differs in parentheses.
    pub headers: Vec<String>,
}

/// A touched baseline whose sync ledger cannot reproduce (`sync-unverified`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SyncUnverified {
    /// The capability.
    pub capability: String,
    /// The baseline spec.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// The expected sync of every capability of `capabilities`, from the delta
/// and baseline bytes the PASS `inventory` holds (read again and checked
/// against its digests: a file edited meanwhile is unverified). OpenSpec's
/// archive applies every capability or none, so one unverified capability
/// makes them all unverified.
pub(crate) fn expect(
    change: &str,
    directory: &str,
    specs_root: &str,
    capabilities: &[String],
    inventory: &Inventory,
) -> Result<Vec<ExpectedSync>> {
    let mut out = Vec::new();
    for capability in capabilities {
        let path = format!("{specs_root}/{capability}/spec.md");
        let delta = format!("{directory}/specs/{capability}/spec.md");
        let expected = match (
            validated_bytes(inventory, &delta)?,
            validated_bytes(inventory, &path)?,
        ) {
            (Ok(Some(delta)), Ok(baseline)) => {
                ExpectedSync::compute(capability, &path, change, baseline.as_deref(), &delta)
            }
            (Ok(None), _) => {
                ExpectedSync::unverified(capability, &path, "the delta spec is absent".to_owned())
            }
            (Err(why), _) | (_, Err(why)) => ExpectedSync::unverified(capability, &path, why),
        };
        out.push(expected);
    }
    if let Some(first) = out
        .iter()
        .find_map(|e| e.unverified.clone().map(|r| (e.capability.clone(), r)))
    {
        for e in &mut out {
            if e.unverified.is_none() {
                *e = ExpectedSync::unverified(
                    &e.capability,
                    &e.path,
                    format!(
                        "capability {}: {} (OpenSpec's archive applies all capabilities or none)",
                        first.0, first.1
                    ),
                );
            }
        }
    }
    Ok(out)
}

/// The bytes of the inventory file `path` as validated: `Ok(None)` when the
/// PASS holds it absent; `Err` with a reason when it is not a regular file or
/// its bytes now are not the validated ones.
fn validated_bytes(
    inventory: &Inventory,
    path: &str,
) -> Result<std::result::Result<Option<Vec<u8>>, String>> {
    let path = WorkspacePath::new(path)?;
    let entry = inventory.entries.iter().find(|e| e.path == path);
    let digest = match entry.map(|e| e.content) {
        None | Some(Content::Missing) => return Ok(Ok(None)),
        Some(Content::Symlink { .. }) => return Ok(Err(format!("{} is a symlink", path.as_str()))),
        Some(Content::File { digest, .. }) => digest,
    };
    let bytes = read_in_workspace(
        inventory.scope.workspace.as_std_path(),
        &path,
        "a spec",
        DOCUMENT_LIMIT,
    )?;
    match bytes {
        Some(bytes) if Digest(Sha256::digest(&bytes).into()) == digest => Ok(Ok(Some(bytes))),
        _ => Ok(Err(format!(
            "{} changed while the PASS was read",
            path.as_str()
        ))),
    }
}

/// What finalization finds in the touched baselines.
#[derive(Debug, Default)]
pub(crate) struct Judgement {
    /// New changes: content other than the expected sync.
    pub mismatches: Vec<SpecMismatch>,
    /// Syncs ledger cannot reproduce.
    pub unverified: Vec<SyncUnverified>,
}

/// What a validation PASS recorded of the spec sync: the capabilities the
/// change touches, the specs root, and the expected post-sync digests
/// (`None`: a PASS made before they were recorded).
pub(crate) struct Expectation<'a> {
    /// The touched capabilities.
    pub capabilities: &'a [String],
    /// The specs root, relative to the workspace.
    pub specs_root: &'a str,
    /// The expected sync of each capability.
    pub spec_sync: Option<&'a [ExpectedSync]>,
}

/// Judges each touched baseline of `validation` as it is now (`now`): the
/// expected digest, or unchanged before the archive, passes; anything else is
/// a mismatch; an expectation that is unverified (or was never recorded) is
/// `sync-unverified` once the baseline was written or the change archived.
pub(crate) fn judge(
    validation: Expectation<'_>,
    archived: bool,
    now: &Inventory,
    validated: &Inventory,
) -> Result<Judgement> {
    let content = |inv: &Inventory, path: &WorkspacePath| {
        inv.entries
            .iter()
            .find(|e| &e.path == path)
            .map_or(Content::Missing, |e| e.content)
    };
    let mut out = Judgement::default();
    for capability in validation.capabilities {
        let path = format!("{}/{capability}/spec.md", validation.specs_root);
        let at = WorkspacePath::new(path.as_str())?;
        let current = content(now, &at);
        let written = current != content(validated, &at);
        let expected = validation
            .spec_sync
            .map(|all| all.iter().find(|e| &e.capability == capability));
        let unverified = |reason: String| SyncUnverified {
            capability: capability.clone(),
            path: path.clone(),
            reason,
        };
        let expected = match expected {
            None | Some(None) => {
                if written || archived {
                    out.unverified.push(unverified(
                        "the PASS was recorded without the expected spec sync; record it again"
                            .to_owned(),
                    ));
                }
                continue;
            }
            Some(Some(e)) => e,
        };
        if let Some(reason) = &expected.unverified {
            if written || archived {
                out.unverified.push(unverified(reason.clone()));
            }
            continue;
        }
        let matches = matches!(current, Content::File { digest, .. } if Some(format!("sha256:{}", digest.to_hex())) == expected.sha256);
        if matches || (!written && !archived) {
            continue;
        }
        let bytes = match current {
            Content::File { .. } => read_in_workspace(
                now.scope.workspace.as_std_path(),
                &at,
                "a spec",
                DOCUMENT_LIMIT,
            )?,
            _ => None,
        };
        out.mismatches.push(SpecMismatch {
            capability: capability.clone(),
            path,
            headers: expected.differing_headers(bytes.as_deref()),
        });
    }
    Ok(out)
}
