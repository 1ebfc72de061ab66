//! OpenSpec's requirement-block reader, ported from the published 1.13.2 build
//! (`dist/core/parsers/requirement-blocks.js`, `code-fence.js`,
//! `spec-structure.js`): how a baseline spec splits into the text around its
//! `## Requirements` section and its `### Requirement:` blocks, and how a delta
//! spec splits into ADDED / MODIFIED / REMOVED / RENAMED operations.
//!
//! Every pattern is OpenSpec's JavaScript regular expression, spelled for the
//! `regex` crate with JavaScript's classes: `\s` is ECMAScript's whitespace and
//! line terminators ([`S`]), `.` excludes only `\n`, `\r`, U+2028 and U+2029
//! ([`DOT`]), and `/i` folds ASCII only (JavaScript without the `u` flag never
//! maps a non-ASCII letter to an ASCII one). The `regex` crate's leftmost-first
//! semantics give the same captures as JavaScript's backtracking engine, so a
//! name read here is the name OpenSpec reads.

use std::sync::LazyLock;

use regex::Regex;

use crate::js_space::is_js_space;

/// JavaScript's `\s`.
pub(super) const S: &str = r"[\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";

/// JavaScript's `.` (no `s` flag).
const DOT: &str = r"[^\n\r\x{2028}\x{2029}]";

/// Compiles one of OpenSpec's patterns, `\s` and `.` written as `{S}` and `{DOT}`.
fn js(pattern: &str) -> Regex {
    let pattern = pattern.replace("{S}", S).replace("{DOT}", DOT);
    // The patterns are constants of this module, tested below.
    #[allow(clippy::expect_used)]
    Regex::new(&pattern).expect("a constant pattern compiles")
}

/// `/^###\s*Requirement:\s*(.+)\s*$/i`, OpenSpec's `REQUIREMENT_HEADER_REGEX`.
static REQUIREMENT_HEADER: LazyLock<Regex> =
    LazyLock::new(|| js(r"^###{S}*(?i-u:requirement):{S}*({DOT}+){S}*$"));
/// `/^##\s+Requirements\s*$/i`.
static REQUIREMENTS_SECTION: LazyLock<Regex> =
    LazyLock::new(|| js(r"^##{S}+(?i-u:requirements){S}*$"));
/// `/^##\s+/`: a top-level section header.
static TOP_LEVEL: LazyLock<Regex> = LazyLock::new(|| js(r"^##{S}+"));
/// `/^(##)\s+(.+)$/`: a section header and its title.
static SECTION: LazyLock<Regex> = LazyLock::new(|| js(r"^(##){S}+({DOT}+)$"));
/// `/[ \t]+#+[ \t]*$/`: an ATX closing run.
static CLOSING_RUN: LazyLock<Regex> = LazyLock::new(|| js(r"[ \t]+#+[ \t]*$"));
/// `/^\s*[-*+]\s*`?###\s*Requirement:\s*(.+?)`?\s*$/`: a REMOVED bullet.
static REMOVED_BULLET: LazyLock<Regex> =
    LazyLock::new(|| js(r"^{S}*[-*+]{S}*`?###{S}*Requirement:{S}*({DOT}+?)`?{S}*$"));
/// `/^\s*[-*+]?\s*FROM:\s*`?###\s*Requirement:\s*(.+?)`?\s*$/`.
static RENAME_FROM: LazyLock<Regex> =
    LazyLock::new(|| js(r"^{S}*[-*+]?{S}*FROM:{S}*`?###{S}*Requirement:{S}*({DOT}+?)`?{S}*$"));
/// `/^\s*[-*+]?\s*TO:\s*`?###\s*Requirement:\s*(.+?)`?\s*$/`.
static RENAME_TO: LazyLock<Regex> =
    LazyLock::new(|| js(r"^{S}*[-*+]?{S}*TO:{S}*`?###{S}*Requirement:{S}*({DOT}+?)`?{S}*$"));
/// `/^####\s+/`, OpenSpec's `SCENARIO_HEADER`.
static SCENARIO_HEADER: LazyLock<Regex> = LazyLock::new(|| js(r"^####{S}+"));
/// `/^Scenario:\s*/i`.
static SCENARIO_PREFIX: LazyLock<Regex> = LazyLock::new(|| js(r"^(?i-u:scenario):{S}*"));
/// `/^\s*(`{3,}|~{3,})/`: a fence opener.
static FENCE_OPEN: LazyLock<Regex> = LazyLock::new(|| js(r"^{S}*(`{3,}|~{3,})"));
/// `/^\s*(`{3,}|~{3,})\s*$/`: a fence closer candidate.
static FENCE_CLOSE: LazyLock<Regex> = LazyLock::new(|| js(r"^{S}*(`{3,}|~{3,}){S}*$"));
/// `/^##\s+(ADDED|MODIFIED|REMOVED|RENAMED)\s+Requirements\s*$/i`.
static DELTA_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    js(r"^##{S}+(?i-u:added|modified|removed|renamed){S}+(?i-u:requirements){S}*$")
});
/// `/^###\s+Requirement:\s*(.+)\s*$/i` (spec-structure.js: one space at least).
static STRUCTURE_REQUIREMENT: LazyLock<Regex> =
    LazyLock::new(|| js(r"^###{S}+(?i-u:requirement):{S}*({DOT}+){S}*$"));
/// `/^##\s+Purpose\s*$/i`.
static PURPOSE: LazyLock<Regex> = LazyLock::new(|| js(r"^##{S}+(?i-u:purpose){S}*$"));
/// `/\s+/g`.
static SPACES: LazyLock<Regex> = LazyLock::new(|| js(r"{S}+"));

/// JavaScript's `String.prototype.trim`.
pub(super) fn trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// JavaScript's `String.prototype.trimEnd`.
pub(super) fn trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_space)
}

/// `content.replace(/\r\n?/g, '\n')`.
pub(super) fn lf(content: &str) -> String {
    content.replace("\r\n", "\n").replace('\r', "\n")
}

/// requirement-blocks.js `normalizeLineEndings`: a leading BOM dropped, CRLF
/// and lone CR made LF.
fn normalize_line_endings(content: &str) -> String {
    lf(content.strip_prefix('\u{FEFF}').unwrap_or(content))
}

/// code-fence.js `buildCodeFenceMask`: `true` for every line of a fenced code
/// block, its fences included. An unclosed fence runs to the end.
pub(super) fn fence_mask(lines: &[&str]) -> Vec<bool> {
    let mut mask = vec![false; lines.len()];
    let mut active: Option<(char, usize)> = None;
    for (i, line) in lines.iter().enumerate() {
        match active {
            None => {
                if let Some(m) = FENCE_OPEN.captures(line) {
                    let run = &m[1];
                    active = run.chars().next().map(|c| (c, run.len()));
                    mask[i] = true;
                }
            }
            Some((marker, length)) => {
                mask[i] = true;
                let closes = FENCE_CLOSE
                    .captures(line)
                    .is_some_and(|m| m[1].starts_with(marker) && m[1].len() >= length);
                if closes {
                    active = None;
                }
            }
        }
    }
    mask
}

/// `normalizeRequirementName`: an ATX closing run dropped, then trimmed.
pub(super) fn normalize_name(name: &str) -> String {
    trim(&CLOSING_RUN.replace(name, "")).to_owned()
}

/// `foldRequirementName`: lowercased, whitespace runs made one space (typo
/// detection only).
pub(super) fn fold_name(name: &str) -> String {
    SPACES
        .replace_all(&normalize_name(name).to_lowercase(), " ")
        .into_owned()
}

/// The requirement name of a `### Requirement:` header line.
fn header_name(line: &str) -> Option<String> {
    REQUIREMENT_HEADER
        .captures(line)
        .map(|m| normalize_name(&m[1]))
}

/// Whether `line` is a `### Requirement:` header.
pub(super) fn is_requirement_header(line: &str) -> bool {
    REQUIREMENT_HEADER.is_match(line)
}

/// One requirement block: its header line, its name, and its text from the
/// header to the next boundary, trailing whitespace trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Block {
    /// The name, as `normalizeRequirementName` makes it.
    pub name: String,
    /// The block's text (`raw`).
    pub raw: String,
}

/// A baseline spec around its requirements (`extractRequirementsSection`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Sections {
    /// Everything above `## Requirements`.
    pub before: String,
    /// The `## Requirements` line itself.
    pub header_line: String,
    /// The section's text above its first block.
    pub preamble: String,
    /// The requirement blocks, in order.
    pub blocks: Vec<Block>,
    /// The text from the next `## ` section on.
    pub after: String,
}

/// `extractRequirementsSection`. Without a `## Requirements` section the text
/// is kept unnormalized (OpenSpec's own quirk: CRLF survives there).
pub(super) fn requirements_section(content: &str) -> Sections {
    let normalized = normalize_line_endings(content);
    let lines: Vec<&str> = normalized.split('\n').collect();
    let mask = fence_mask(&lines);
    let Some(header) =
        (0..lines.len()).find(|&i| !mask[i] && REQUIREMENTS_SECTION.is_match(lines[i]))
    else {
        let before = trim_end(content);
        return Sections {
            before: if before.is_empty() {
                String::new()
            } else {
                format!("{before}\n\n")
            },
            header_line: "## Requirements".to_owned(),
            preamble: String::new(),
            blocks: Vec::new(),
            after: "\n".to_owned(),
        };
    };
    let end = (header + 1..lines.len())
        .find(|&i| !mask[i] && TOP_LEVEL.is_match(lines[i]))
        .unwrap_or(lines.len());
    let body = &lines[header + 1..end];
    let body_mask = &mask[header + 1..end];
    let is_header = |i: usize| !body_mask[i] && is_requirement_header(body[i]);
    let is_top = |i: usize| !body_mask[i] && TOP_LEVEL.is_match(body[i]);
    let mut cursor = 0;
    let mut preamble = Vec::new();
    while cursor < body.len() && !is_header(cursor) {
        preamble.push(body[cursor]);
        cursor += 1;
    }
    let mut blocks = Vec::new();
    while cursor < body.len() {
        // Every line here starts a block: the loop below stops at a header or
        // at a top-level header, and no top-level header is inside the section.
        let name = header_name(body[cursor]).unwrap_or_default();
        let mut raw = vec![body[cursor]];
        cursor += 1;
        while cursor < body.len() && !is_header(cursor) && !is_top(cursor) {
            raw.push(body[cursor]);
            cursor += 1;
        }
        blocks.push(Block {
            name,
            raw: trim_end(&raw.join("\n")).to_owned(),
        });
    }
    let before = lines[..header].join("\n");
    let after = lines[end..].join("\n");
    Sections {
        before: if trim_end(&before).is_empty() {
            before
        } else {
            format!("{before}\n")
        },
        header_line: lines[header].to_owned(),
        preamble: trim_end(&preamble.join("\n")).to_owned(),
        blocks,
        after: if after.starts_with('\n') {
            after
        } else {
            format!("\n{after}")
        },
    }
}

/// A RENAMED pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Rename {
    /// The old name.
    pub from: String,
    /// The new name.
    pub to: String,
}

/// The operations of a delta spec (`parseDeltaSpec`, the fields the merge uses).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct DeltaPlan {
    /// ADDED blocks, every `## ADDED Requirements` section in order.
    pub added: Vec<Block>,
    /// MODIFIED blocks.
    pub modified: Vec<Block>,
    /// REMOVED names.
    pub removed: Vec<String>,
    /// RENAMED pairs.
    pub renamed: Vec<Rename>,
    /// Whether a FROM or TO line never formed a pair (OpenSpec refuses).
    pub unpaired_renames: bool,
}

/// One `## ` section of a delta: its title and body lines with their mask.
struct Section<'a> {
    title: String,
    lines: &'a [&'a str],
    mask: &'a [bool],
}

/// `parseDeltaSpec`: every section whose title folds (JavaScript
/// `toLowerCase`) to one of the four delta titles, repeated sections merged in
/// document order.
pub(super) fn parse_delta(content: &str) -> DeltaPlan {
    let normalized = normalize_line_endings(content);
    let lines: Vec<&str> = normalized.split('\n').collect();
    let mask = fence_mask(&lines);
    let starts: Vec<(String, usize)> = (0..lines.len())
        .filter(|&i| !mask[i])
        .filter_map(|i| {
            SECTION
                .captures(lines[i])
                .map(|m| (trim(&m[2]).to_owned(), i))
        })
        .collect();
    let sections: Vec<Section<'_>> = starts
        .iter()
        .enumerate()
        .map(|(k, (title, start))| {
            let end = starts.get(k + 1).map_or(lines.len(), |next| next.1);
            Section {
                title: title.clone(),
                lines: &lines[start + 1..end],
                mask: &mask[start + 1..end],
            }
        })
        .collect();
    let titled = |want: &'static str| {
        sections
            .iter()
            .filter(move |s| s.title.to_lowercase() == want)
    };
    let mut plan = DeltaPlan::default();
    for s in titled("added requirements") {
        plan.added.extend(section_blocks(s.lines, s.mask));
    }
    for s in titled("modified requirements") {
        plan.modified.extend(section_blocks(s.lines, s.mask));
    }
    for s in titled("removed requirements") {
        plan.removed.extend(removed_names(s.lines, s.mask));
    }
    for s in titled("renamed requirements") {
        let (pairs, unpaired) = renamed_pairs(s.lines, s.mask);
        plan.renamed.extend(pairs);
        plan.unpaired_renames |= unpaired;
    }
    plan
}

/// `parseRequirementBlocksFromSection`.
fn section_blocks(lines: &[&str], mask: &[bool]) -> Vec<Block> {
    let is_header = |i: usize| !mask[i] && is_requirement_header(lines[i]);
    let is_top = |i: usize| !mask[i] && TOP_LEVEL.is_match(lines[i]);
    let mut blocks = Vec::new();
    let mut i = 0;
    loop {
        while i < lines.len() && !is_header(i) {
            i += 1;
        }
        if i >= lines.len() {
            return blocks;
        }
        let name = header_name(lines[i]).unwrap_or_default();
        let mut raw = vec![lines[i]];
        i += 1;
        while i < lines.len() && !is_header(i) && !is_top(i) {
            raw.push(lines[i]);
            i += 1;
        }
        blocks.push(Block {
            name,
            raw: trim_end(&raw.join("\n")).to_owned(),
        });
    }
}

/// `parseRemovedNames`: headers, or bullets carrying one.
fn removed_names(lines: &[&str], mask: &[bool]) -> Vec<String> {
    let mut names = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if mask[i] {
            continue;
        }
        if let Some(name) = header_name(line) {
            names.push(name);
        } else if let Some(m) = REMOVED_BULLET.captures(line) {
            names.push(normalize_name(&m[1]));
        }
    }
    names
}

/// `parseRenamedPairs`: a FROM followed by a TO; whether any line was left
/// unpaired.
fn renamed_pairs(lines: &[&str], mask: &[bool]) -> (Vec<Rename>, bool) {
    let mut pairs = Vec::new();
    let mut pending: Option<String> = None;
    let mut unpaired = false;
    for (i, line) in lines.iter().enumerate() {
        if mask[i] {
            continue;
        }
        if let Some(m) = RENAME_FROM.captures(line) {
            unpaired |= pending.is_some();
            pending = Some(normalize_name(&m[1]));
        } else if let Some(m) = RENAME_TO.captures(line) {
            match pending.take() {
                Some(from) => pairs.push(Rename {
                    from,
                    to: normalize_name(&m[1]),
                }),
                None => unpaired = true,
            }
        }
    }
    (pairs, unpaired || pending.is_some())
}

/// The scenario names of a block (`parseScenarioBlocks`): every unfenced
/// `#### ` header, closing run and `Scenario:` dropped.
pub(super) fn scenario_names(raw: &str) -> Vec<String> {
    let text = lf(raw);
    let lines: Vec<&str> = text.split('\n').collect();
    let mask = fence_mask(&lines);
    (0..lines.len())
        .filter(|&i| !mask[i] && SCENARIO_HEADER.is_match(lines[i]))
        .map(|i| {
            let name = SCENARIO_HEADER.replace(lines[i], "");
            let name = CLOSING_RUN.replace(&name, "");
            trim(&SCENARIO_PREFIX.replace(&name, "")).to_owned()
        })
        .collect()
}

/// Whether `findMainSpecStructureIssues` finds any issue: a delta header, a
/// requirement header outside `## Requirements`, a duplicate requirement (OpenSpec refuses to update such a spec).
pub(super) fn has_structure_issues(content: &str) -> bool {
    let normalized = lf(content);
    let raw: Vec<&str> = normalized.split('\n').collect();
    let mask = fence_mask(&raw);
    let lines: Vec<&str> = (0..raw.len())
        .map(|i| if mask[i] { "" } else { raw[i] })
        .collect();
    let header = lines.iter().position(|l| REQUIREMENTS_SECTION.is_match(l));
    let end = header.map_or(lines.len(), |h| {
        (h + 1..lines.len())
            .find(|&i| TOP_LEVEL.is_match(lines[i]))
            .unwrap_or(lines.len())
    });
    let mut seen = std::collections::HashSet::new();
    for (i, line) in lines.iter().enumerate() {
        if trim(line).is_empty() {
            continue;
        }
        if DELTA_HEADER.is_match(line) {
            return true;
        }
        let Some(m) = STRUCTURE_REQUIREMENT.captures(line) else {
            continue;
        };
        let inside = header.is_some_and(|h| i > h && i < end);
        if !inside || !seen.insert(normalize_name(&m[1])) {
            return true;
        }
    }
    false
}

/// Whether `line` is a `## Purpose` header (`/^##\s+Purpose\s*$/i`).
pub(super) fn is_purpose(line: &str) -> bool {
    PURPOSE.is_match(line)
}

/// Whether `line` opens a top-level section (`/^##\s+/`).
pub(super) fn is_top_level(line: &str) -> bool {
    TOP_LEVEL.is_match(line)
}

/// `collapseBlankRunsOutsideFences`: runs of empty lines made one, except in
/// fenced blocks (a line of spaces is not empty).
pub(super) fn collapse_blank_runs(content: &str) -> String {
    let lines: Vec<&str> = content.split('\n').collect();
    let mask = fence_mask(&lines);
    let mut kept = Vec::with_capacity(lines.len());
    let mut blank_run = 0;
    for (i, line) in lines.iter().enumerate() {
        if mask[i] || !line.is_empty() {
            blank_run = 0;
        } else {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        }
        kept.push(*line);
    }
    kept.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirement_headers_read_as_openspec_reads_them() {
        assert_eq!(header_name("### Requirement: Foo"), Some("Foo".to_owned()));
        assert_eq!(
            header_name("###requirement:Foo ###"),
            Some("Foo".to_owned())
        );
        assert_eq!(header_name("### REQUIREMENT:  C#  "), Some("C#".to_owned()));
        // Only spaces after the colon still match (`.+` takes one back).
        assert_eq!(header_name("### Requirement:   "), Some(String::new()));
        assert_eq!(header_name("### Requirement:"), None);
        // `/i` without `u` never maps the long s or the Kelvin sign to ASCII.
        assert_eq!(header_name("### Requirement\u{17F}: x"), None);
        assert_eq!(header_name("### Requirement: a\u{2028}b"), None);
        assert_eq!(
            header_name("### Requirement: a\u{2028}"),
            Some("a".to_owned())
        );
        assert_eq!(header_name("#### Requirement: x"), None);
    }

    #[test]
    fn fences_mask_their_lines_until_a_long_enough_closer() {
        let lines = ["a", "````", "```", "## x", "````", "b", "~~~ rust", "c"];
        assert_eq!(
            fence_mask(&lines),
            [false, true, true, true, true, false, true, true]
        );
    }

    #[test]
    fn a_delta_reads_all_four_operations() {
        let delta = "## ADDED Requirements\n### Requirement: A\nThe system SHALL a.\n\n## removed requirements\n- `### Requirement: B`\n## RENAMED Requirements\n- FROM: `### Requirement: C`\n- TO: `### Requirement: D`\n## MODIFIED Requirements\n### Requirement: E\nx\n";
        let plan = parse_delta(delta);
        assert_eq!(plan.added.len(), 1);
        assert_eq!(plan.added[0].raw, "### Requirement: A\nThe system SHALL a.");
        assert_eq!(plan.removed, ["B"]);
        assert_eq!(
            plan.renamed,
            [Rename {
                from: "C".into(),
                to: "D".into()
            }]
        );
        assert_eq!(plan.modified[0].name, "E");
        assert!(!plan.unpaired_renames);
        let unpaired = parse_delta("## RENAMED Requirements\n- TO: `### Requirement: D`\n");
        assert!(unpaired.unpaired_renames);
    }

    #[test]
    fn structure_issues_are_found() {
        assert!(!has_structure_issues(
            "# t\n## Requirements\n### Requirement: A\n"
        ));
        assert!(has_structure_issues(
            "### Requirement: A\n## Requirements\n"
        ));
        assert!(has_structure_issues(
            "## Requirements\n### Requirement: A\n### Requirement: A ##\n"
        ));
        assert!(has_structure_issues(
            "## Requirements\n## ADDED Requirements\n"
        ));
        assert!(!has_structure_issues(
            "## Requirements\n```\n### Requirement: A\n### Requirement: A\n```\n"
        ));
    }
}
