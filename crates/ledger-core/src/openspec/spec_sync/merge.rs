//! OpenSpec's spec merge, ported from the published 1.13.2 build
//! (`dist/core/specs-apply.js`, `buildUpdatedSpec` and `writeUpdatedSpec`):
//! what `openspec archive <change> --yes` writes into
//! `openspec/specs/<capability>/spec.md` from the change's delta spec.
//!
//! The rules, in OpenSpec's order:
//! 1. The delta is read ([`super::blocks::parse_delta`]). A RENAMED line
//!    without its pair, a name twice in one operation, a name in two operations
//!    (MODIFIED+REMOVED, MODIFIED+ADDED, ADDED+REMOVED, RENAMED FROM+REMOVED,
//!    MODIFIED naming a rename's FROM, ADDED naming its TO) or no operation at
//!    all makes the archive abort.
//! 2. A capability without a baseline starts from the skeleton
//!    `# <capability> Specification`, `## Purpose`, `TBD - created by archiving
//!    change <change>. Update Purpose after archive.`, `## Requirements`;
//!    MODIFIED or RENAMED then aborts, REMOVED is ignored. A baseline with a
//!    delta header, a requirement outside `## Requirements` or a requirement
//!    twice aborts.
//! 3. The operations apply in the order RENAMED → REMOVED → MODIFIED → ADDED,
//!    names compared after dropping an ATX closing run and trimming:
//!    a rename keeps the block's place and text under the new header; a
//!    REMOVED name absent is a no-op (unless a case or spacing variant exists:
//!    abort); MODIFIED replaces the block in place and aborts when the block
//!    drops a scenario the baseline has; ADDED appends (identical text already
//!    there is a no-op, a case or spacing variant aborts).
//! 4. The spec is rebuilt: the text above `## Requirements`, the header, the
//!    section's preamble, the blocks joined by one blank line, the following
//!    sections; runs of empty lines outside fences become one, one final `\n`.
//! 5. When no operation changed anything, the file is not written. Otherwise
//!    it is written with the line ending the old file mostly used (CRLF wins a
//!    tie; a new file is LF).
//!
//! What ledger does not reproduce it refuses as [`Unverified`], never guesses:
//! every abort above, a baseline or delta that is not UTF-8 (Node would replace
//! bytes), a result without requirement blocks (OpenSpec's validator refuses it,
//! or `retire_capabilities` deletes the file), a new capability whose delta's
//! `## Purpose` holds markup (OpenSpec weighs its carry-over with its Markdown
//! parser; plain prose is carried over as OpenSpec does), a baseline naming one
//! requirement twice in a spelling the structure check misses, a header written
//! `###Requirement:` (OpenSpec's validator does not read it as one).
//!
//! Not ported: OpenSpec's validator (`openspec validate`), which the archive
//! runs on the change's deltas and on each rebuilt spec before writing. A
//! delta it refuses never archives through the CLI; ledger's expectation for it
//! is the merge's result.

use super::Unverified;
use super::blocks::{
    Block, collapse_blank_runs, fold_name, has_structure_issues, normalize_name, parse_delta,
    requirements_section, scenario_names, trim, trim_end,
};

/// `PURPOSE_PLACEHOLDER_PREFIX` and `_SUFFIX` of OpenSpec's validation constants.
const PURPOSE_PLACEHOLDER: (&str, &str) = (
    "TBD - created by archiving change ",
    ". Update Purpose after archive.",
);

/// The bytes `openspec archive` leaves in `openspec/specs/<capability>/spec.md`
/// when the change `change` has the delta spec `delta` for `capability`
/// (`auth`, `api/tokens`) and the baseline held `baseline` (`None`: no file):
/// the merge's result, or the baseline itself when the delta changes nothing
/// (OpenSpec then does not write). [`Unverified`] when OpenSpec's archive
/// would abort, or ledger does not reproduce what it would do.
pub fn apply(
    capability: &str,
    change: &str,
    baseline: Option<&[u8]>,
    delta: &[u8],
) -> Result<Vec<u8>, Unverified> {
    let refuse = |reason: String| Unverified {
        capability: capability.to_owned(),
        reason,
    };
    let delta =
        std::str::from_utf8(delta).map_err(|_| refuse("the delta spec is not UTF-8".to_owned()))?;
    let previous = baseline
        .map(std::str::from_utf8)
        .transpose()
        .map_err(|_| refuse("the baseline spec is not UTF-8".to_owned()))?;
    let merged = merge(capability, change, previous, delta).map_err(refuse)?;
    Ok(match (merged, previous) {
        (None, Some(old)) => old.as_bytes().to_vec(),
        (Some(rebuilt), Some(old)) => match_line_ending(&rebuilt, old).into_bytes(),
        (Some(rebuilt), None) => rebuilt.into_bytes(),
        (None, None) => return Err(refuse("the delta writes nothing".to_owned())),
    })
}

/// `buildUpdatedSpec`: the rebuilt spec, `None` when no operation changed
/// anything; `Err` with OpenSpec's reason when it would abort.
fn merge(
    capability: &str,
    change: &str,
    baseline: Option<&str>,
    delta: &str,
) -> Result<Option<String>, String> {
    let plan = parse_delta(delta);
    if plan.unpaired_renames {
        return Err("a RENAMED FROM or TO line has no pair".to_owned());
    }
    check_conflicts(&plan)?;
    if plan.added.len() + plan.modified.len() + plan.removed.len() + plan.renamed.len() == 0 {
        return Err("the delta has no ADDED/MODIFIED/REMOVED/RENAMED operation".to_owned());
    }
    let target = match baseline {
        Some(text) => text.to_owned(),
        None => {
            if !plan.modified.is_empty() || !plan.renamed.is_empty() {
                return Err("MODIFIED or RENAMED for a capability without a baseline".to_owned());
            }
            let (prefix, suffix) = PURPOSE_PLACEHOLDER;
            let purpose = match delta_purpose(delta)? {
                Some(body) => body,
                None => format!("{prefix}{change}{suffix}"),
            };
            format!("# {capability} Specification\n\n## Purpose\n{purpose}\n\n## Requirements\n")
        }
    };
    if has_structure_issues(&target) {
        return Err("the baseline is structurally invalid for OpenSpec".to_owned());
    }
    let parts = requirements_section(&target);
    // OpenSpec's validator, which the archive runs on the rebuilt spec, reads
    // `###Requirement:` as no header at all; ledger does not port the validator.
    let every = parts.blocks.iter().chain(&plan.added).chain(&plan.modified);
    if let Some(b) = every.into_iter().find(|b| !spaced_header(&b.raw)) {
        return Err(format!("the header of {:?} has no space after ###", b.name));
    }
    let mut map = Ordered::default();
    for block in &parts.blocks {
        if map.get(&block.name).is_some() {
            return Err(format!(
                "the baseline has requirement {:?} twice",
                block.name
            ));
        }
        map.set(&block.name, block.clone());
    }
    let mut order: Vec<String> = parts.blocks.iter().map(|b| b.name.clone()).collect();
    let mut changed = 0usize;
    for r in &plan.renamed {
        changed += rename(&mut map, &mut order, &r.from, &r.to)?;
    }
    for name in &plan.removed {
        let key = normalize_name(name);
        if map.get(&key).is_some() {
            map.delete(&key);
            changed += 1;
        } else if baseline.is_some() && map.near_miss(&key, None).is_some() {
            return Err(format!(
                "REMOVED {key:?} is not found, but a case or spacing variant is"
            ));
        }
    }
    for m in &plan.modified {
        changed += modify(&mut map, m)?;
    }
    for a in &plan.added {
        changed += add(&mut map, a)?;
    }
    let mut kept: Vec<&Block> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for key in &order {
        if let Some(block) = map.get(key) {
            kept.push(block);
            seen.push(key);
        }
    }
    for (key, block) in &map.entries {
        if !seen.contains(&key.as_str()) {
            kept.push(block);
        }
    }
    if kept.is_empty() {
        return Err("no requirement is left (OpenSpec's validator refuses the spec, or retires the capability)".to_owned());
    }
    if changed == 0 {
        return Ok(None);
    }
    let preamble = if trim(&parts.preamble).is_empty() {
        None
    } else {
        Some(trim_end(&parts.preamble))
    };
    let body: Vec<&str> = preamble
        .into_iter()
        .chain(kept.iter().map(|b| b.raw.as_str()))
        .collect();
    let body = trim_end(&body.join("\n\n")).to_owned();
    let pieces = [
        trim_end(&parts.before),
        parts.header_line.as_str(),
        body.as_str(),
        trim(&parts.after),
    ];
    let joined: Vec<&str> = pieces.into_iter().filter(|s| !s.is_empty()).collect();
    let rebuilt = collapse_blank_runs(&joined.join("\n\n"));
    Ok(Some(format!("{}\n", trim_end(&rebuilt))))
}

/// `extractPurposeSection` of the delta, for a new capability (OpenSpec
/// carries it into the skeleton): the trimmed body of the first unfenced
/// `## Purpose` section, `None` when there is none or it is empty. A Purpose
/// whose carry-over depends on rules ledger does not port (HTML comments,
/// fences, headings or setext underlines, HTML in its body, which OpenSpec
/// weighs with its Markdown parser) is refused.
fn delta_purpose(delta: &str) -> Result<Option<String>, String> {
    let text = super::blocks::lf(delta);
    let lines: Vec<&str> = text.split('\n').collect();
    let mask = super::blocks::fence_mask(&lines);
    let Some(start) = (0..lines.len()).find(|&i| !mask[i] && super::blocks::is_purpose(lines[i]))
    else {
        return Ok(None);
    };
    if text.contains("<!--") {
        return Err("the delta's ## Purpose is near an HTML comment".to_owned());
    }
    let end = (start + 1..lines.len())
        .find(|&i| !mask[i] && super::blocks::is_top_level(lines[i]))
        .unwrap_or(lines.len());
    let body = &lines[start + 1..end];
    let unported = |l: &&str| {
        let t = l.trim_start_matches([' ', '\t']);
        t.starts_with('#') || t.starts_with('<') || t.starts_with("===") || t.starts_with("---")
    };
    if mask[start + 1..end].iter().any(|&m| m) || body.iter().any(unported) {
        return Err("the delta's ## Purpose holds markup OpenSpec's parser weighs".to_owned());
    }
    let body = trim(&body.join("\n")).to_owned();
    Ok((!body.is_empty()).then_some(body))
}

/// The pre-validation of `buildUpdatedSpec`: duplicates within an operation,
/// names in two operations.
fn check_conflicts(plan: &super::blocks::DeltaPlan) -> Result<(), String> {
    let unique = |names: Vec<String>, what: &str| -> Result<Vec<String>, String> {
        let mut seen: Vec<String> = Vec::new();
        for name in names {
            if seen.contains(&name) {
                return Err(format!("requirement {name:?} twice in {what}"));
            }
            seen.push(name);
        }
        Ok(seen)
    };
    let names = |blocks: &[Block]| blocks.iter().map(|b| normalize_name(&b.name)).collect();
    let added = unique(names(&plan.added), "ADDED")?;
    let modified = unique(names(&plan.modified), "MODIFIED")?;
    let removed = unique(
        plan.removed.iter().map(|n| normalize_name(n)).collect(),
        "REMOVED",
    )?;
    let from = unique(
        plan.renamed
            .iter()
            .map(|r| normalize_name(&r.from))
            .collect(),
        "RENAMED FROM",
    )?;
    let to = unique(
        plan.renamed.iter().map(|r| normalize_name(&r.to)).collect(),
        "RENAMED TO",
    )?;
    for (f, t) in from.iter().zip(&to) {
        if removed.iter().any(|r| fold_name(r) == fold_name(f)) {
            return Err(format!("{f:?} is both RENAMED and REMOVED"));
        }
        if modified.contains(f) {
            return Err(format!("MODIFIED names {f:?}, the old name of a rename"));
        }
        if added.contains(t) {
            return Err(format!("ADDED names {t:?}, the new name of a rename"));
        }
    }
    let both = |a: &[String], b: &[String]| a.iter().find(|n| b.contains(n)).cloned();
    if let Some(name) = both(&modified, &removed)
        .or_else(|| both(&modified, &added))
        .or_else(|| both(&added, &removed))
    {
        return Err(format!("requirement {name:?} is in two operations"));
    }
    Ok(())
}

/// One RENAMED pair; 1 when applied, 0 when already synced.
fn rename(map: &mut Ordered, order: &mut [String], from: &str, to: &str) -> Result<usize, String> {
    let (from, to) = (normalize_name(from), normalize_name(to));
    let Some(block) = map.get(&from).cloned() else {
        if map.get(&to).is_some() && map.near_miss(&from, Some(&to)).is_none() {
            return Ok(0);
        }
        return Err(format!("RENAMED source {from:?} is not found"));
    };
    if map.get(&to).is_some() {
        return Err(format!("RENAMED target {to:?} already exists"));
    }
    if map.near_miss(&to, Some(&from)).is_some() {
        return Err(format!(
            "RENAMED target {to:?} differs from another requirement only in case or spacing"
        ));
    }
    let header = format!("### Requirement: {to}");
    let mut lines: Vec<&str> = block.raw.split('\n').collect();
    lines[0] = &header;
    let renamed = Block {
        name: to.clone(),
        raw: lines.join("\n"),
    };
    map.delete(&from);
    map.set(&to, renamed);
    if let Some(slot) = order.iter_mut().find(|k| **k == from) {
        *slot = to;
    }
    Ok(1)
}

/// One MODIFIED block; 1 when its text differs from the current one.
fn modify(map: &mut Ordered, block: &Block) -> Result<usize, String> {
    let key = normalize_name(&block.name);
    let Some(current) = map.get(&key) else {
        return Err(format!("MODIFIED {key:?} is not found"));
    };
    let mut incoming = scenario_names(&block.raw);
    for name in scenario_names(&current.raw) {
        match incoming.iter().position(|n| *n == name) {
            Some(i) => {
                incoming.remove(i);
            }
            None => {
                return Err(format!("MODIFIED {key:?} drops the scenario {name:?}"));
            }
        }
    }
    let differs = normalize_raw(&current.raw) != normalize_raw(&block.raw);
    map.set(&key, block.clone());
    Ok(usize::from(differs))
}

/// One ADDED block; 1 when added, 0 when the same text is already there.
fn add(map: &mut Ordered, block: &Block) -> Result<usize, String> {
    let key = normalize_name(&block.name);
    if let Some(existing) = map.get(&key) {
        if normalize_raw(&existing.raw) == normalize_raw(&block.raw) {
            return Ok(0);
        }
        return Err(format!("ADDED {key:?} already exists"));
    }
    if map.near_miss(&key, None).is_some() {
        return Err(format!(
            "ADDED {key:?} differs from a requirement only in case or spacing"
        ));
    }
    map.set(&key, block.clone());
    Ok(1)
}

/// Whether a block's header has a space or tab after `###`.
fn spaced_header(raw: &str) -> bool {
    raw.strip_prefix("###")
        .is_some_and(|rest| rest.starts_with([' ', '\t']))
}

/// `normalizeBlockRaw`: LF line endings, trimmed.
fn normalize_raw(raw: &str) -> String {
    trim(&super::blocks::lf(raw)).to_owned()
}

/// A JavaScript `Map` from names to blocks: insertion order, `set` of a present
/// key keeps its place, `delete` then `set` moves it to the end.
#[derive(Default)]
struct Ordered {
    entries: Vec<(String, Block)>,
}

impl Ordered {
    fn get(&self, key: &str) -> Option<&Block> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, b)| b)
    }

    fn set(&mut self, key: &str, block: Block) {
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = block,
            None => self.entries.push((key.to_owned(), block)),
        }
    }

    fn delete(&mut self, key: &str) {
        self.entries.retain(|(k, _)| k != key);
    }

    /// A key other than `except` that folds like `key`.
    fn near_miss(&self, key: &str, except: Option<&str>) -> Option<&str> {
        let folded = fold_name(key);
        self.entries
            .iter()
            .map(|(k, _)| k.as_str())
            .find(|k| Some(*k) != except && fold_name(k) == folded)
    }
}

/// `matchLineEnding(rebuilt, previous)`: CRLF when the old file had at least as
/// many CRLFs as bare LFs (and any line break at all).
fn match_line_ending(rebuilt: &str, previous: &str) -> String {
    let crlf = previous.matches("\r\n").count();
    let lf = previous.matches('\n').count() - crlf;
    let normalized = rebuilt.replace("\r\n", "\n");
    if crlf == 0 && lf == 0 || crlf < lf {
        // `matchLineEnding` returns `content` itself when there is no break;
        // for LF it returns the CRLF-normalized text.
        if crlf == 0 && lf == 0 {
            return rebuilt.to_owned();
        }
        return normalized;
    }
    normalized.replace('\n', "\r\n")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const BASE: &str = "# auth Specification\n\n## Purpose\nSigning in.\n\n## Requirements\n\n### Requirement: Sign in\nThe system SHALL sign users in.\n\n#### Scenario: ok\n- **WHEN** a user signs in\n- **THEN** it works\n\n### Requirement: Sign out\nThe system SHALL sign users out.\n\n#### Scenario: out\n- **WHEN** x\n- **THEN** y\n";

    fn run(baseline: Option<&str>, delta: &str) -> Result<String, Unverified> {
        apply(
            "auth",
            "add-auth",
            baseline.map(str::as_bytes),
            delta.as_bytes(),
        )
        .map(|b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn a_new_capability_gets_the_skeleton() {
        let out = run(None, "## ADDED Requirements\n### Requirement: A\nThe system SHALL a.\n\n#### Scenario: s\n- x\n").unwrap();
        assert_eq!(
            out,
            "# auth Specification\n\n## Purpose\nTBD - created by archiving change add-auth. Update Purpose after archive.\n\n## Requirements\n\n### Requirement: A\nThe system SHALL a.\n\n#### Scenario: s\n- x\n"
        );
        assert!(run(None, "## MODIFIED Requirements\n### Requirement: A\nx\n").is_err());
    }

    #[test]
    fn operations_apply_in_openspecs_order_and_places() {
        let delta = "## RENAMED Requirements\n- FROM: `### Requirement: Sign in`\n- TO: `### Requirement: Log in`\n\n## ADDED Requirements\n### Requirement: Reset\nThe system SHALL reset.\n\n#### Scenario: r\n- z\n\n## REMOVED Requirements\n### Requirement: Sign out\n";
        let out = run(Some(BASE), delta).unwrap();
        assert_eq!(
            out,
            "# auth Specification\n\n## Purpose\nSigning in.\n\n## Requirements\n\n### Requirement: Log in\nThe system SHALL sign users in.\n\n#### Scenario: ok\n- **WHEN** a user signs in\n- **THEN** it works\n\n### Requirement: Reset\nThe system SHALL reset.\n\n#### Scenario: r\n- z\n"
        );
    }

    #[test]
    fn aborts_are_unverified_and_no_op_keeps_the_bytes() {
        // MODIFIED dropping a scenario aborts the archive.
        let drop = "## MODIFIED Requirements\n### Requirement: Sign in\nThe system SHALL x.\n";
        assert!(run(Some(BASE), drop).is_err());
        // Removing what is not there changes nothing: the file stays as it was.
        let crlf = BASE.replace('\n', "\r\n");
        let out = run(
            Some(&crlf),
            "## REMOVED Requirements\n### Requirement: Gone\n",
        )
        .unwrap();
        assert_eq!(out, crlf);
        // A CRLF baseline is written back CRLF.
        let out = run(
            Some(&crlf),
            "## REMOVED Requirements\n### Requirement: Sign out\n",
        )
        .unwrap();
        assert!(out.contains("\r\n") && !out.replace("\r\n", "").contains('\n'));
        assert!(run(Some(BASE), "no delta here\n").is_err());
        assert!(
            run(
                Some(BASE),
                "## REMOVED Requirements\n### Requirement: Sign in\n### Requirement: Sign out\n"
            )
            .is_err()
        );
    }
}
