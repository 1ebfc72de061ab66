//! Exclusions (seed 000: "an explained boundary"): a path, a directory root
//! or a gitignore-style pattern removed from a scope's candidates, with the
//! reason a reviewer reads.
//!
//! A pattern is an exclusion whose text holds `*`, `?` or `[`: `*` and `?`
//! stay within one path segment, `**` spans any number, `[...]` is a class.
//! As in `.gitignore`, a pattern without a `/` (but a trailing one) matches a
//! name at any depth (`case-*.md`), one with a `/` is anchored at the
//! workspace (`g/case-*.md`, `/build`), and a pattern that matches a
//! directory removes everything below it. A pattern is recorded as written
//! (`pattern: true`) and applied again at every comparison.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::path::{WorkspacePath, is_within};

/// A path or directory root removed from the candidates, or a pattern, with
/// the reason a reviewer reads (the "explained boundary").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Exclusion {
    /// A workspace path or directory root (`.` is not allowed: that would
    /// exclude all), or a pattern when `pattern` is set.
    pub path: String,
    /// Why it is excluded.
    pub reason: String,
    /// Whether `path` is a gitignore-style pattern (module docs), not a path.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pattern: bool,
}

/// A test of whether a path (a workspace path, as bytes) is removed.
pub(crate) type Removes<'a> = Box<dyn Fn(&[u8]) -> bool + 'a>;

impl Exclusion {
    /// A test of whether this exclusion removes a path, its pattern compiled once.
    pub(crate) fn matcher(&self) -> Result<Removes<'_>> {
        match self.pattern {
            false => Ok(Box::new(move |path| is_within(path, &self.path))),
            true => {
                let set = Patterns::of(std::slice::from_ref(self))?;
                Ok(Box::new(move |path| set.remove(path)))
            }
        }
    }
}

/// Whether `text`, an exclusion as a caller wrote it, is a pattern.
pub(crate) fn is_pattern(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// `text` as a pattern is recorded: without a leading `./` or trailing `/`,
/// checked to compile and to stay inside the workspace.
pub(crate) fn normal_pattern(text: &str) -> Result<String> {
    let trimmed = text.trim_end_matches('/');
    let trimmed = trimmed.strip_prefix("./").unwrap_or(trimmed);
    let unanchored = trimmed.strip_prefix('/').unwrap_or(trimmed);
    if unanchored.is_empty() || unanchored.split('/').any(|s| s == "..") {
        return Err(bad_pattern(text, "it names no path inside the workspace"));
    }
    compile(trimmed).map_err(|why| bad_pattern(text, &why))?;
    Ok(trimmed.to_owned())
}

fn bad_pattern(text: &str, why: &str) -> Error {
    Error::InvalidArgument {
        message: format!(
            "the exclusion pattern {} is not valid: {why}",
            crate::error::DisplayPath::from(text)
        ),
    }
}

/// The glob a recorded pattern is matched as: anchored at the workspace when
/// it holds a `/`, at any depth otherwise.
fn glob_of(pattern: &str) -> String {
    match pattern.strip_prefix('/') {
        Some(anchored) => anchored.to_owned(),
        None if pattern.contains('/') => pattern.to_owned(),
        None => format!("**/{pattern}"),
    }
}

fn glob(pattern: &str) -> std::result::Result<globset::Glob, String> {
    GlobBuilder::new(&glob_of(pattern))
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| e.kind().to_string())
}

/// The glob set of one recorded pattern.
fn compile(pattern: &str) -> std::result::Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    builder.add(glob(pattern)?);
    builder.build().map_err(|e| e.to_string())
}

/// Whether `set` matches `path` or one of its parent directories.
fn matches(set: &GlobSet, path: &[u8]) -> bool {
    let Ok(path) = std::str::from_utf8(path) else {
        return false;
    };
    (path
        .match_indices('/')
        .any(|(at, _)| set.is_match(&path[..at])))
        || set.is_match(path)
}

/// The compiled patterns of a scope's exclusions. Derived from them, so any
/// two are equal (a scope read back from a record equals the one written).
#[derive(Debug, Clone, Default)]
pub(crate) struct Patterns(Option<GlobSet>);

impl PartialEq for Patterns {
    fn eq(&self, _: &Patterns) -> bool {
        true
    }
}

impl Eq for Patterns {}

impl Patterns {
    /// The patterns among `exclusions`, compiled once for every path a
    /// listing meets; a pattern that does not compile (a hand-edited record)
    /// is refused.
    pub(crate) fn of(exclusions: &[Exclusion]) -> Result<Patterns> {
        let mut builder = GlobSetBuilder::new();
        let mut any = false;
        for exclusion in exclusions.iter().filter(|e| e.pattern) {
            builder.add(glob(&exclusion.path).map_err(|why| bad_pattern(&exclusion.path, &why))?);
            any = true;
        }
        let set =
            (builder.build()).map_err(|e| bad_pattern("(the scope's patterns)", &e.to_string()))?;
        Ok(Patterns(any.then_some(set)))
    }

    /// Whether one of the patterns matches `path` or a directory above it.
    pub(crate) fn remove(&self, path: &[u8]) -> bool {
        self.0.as_ref().is_some_and(|set| matches(set, path))
    }
}

/// What one exclusion the caller declared removes from the scope now: the
/// candidates it holds (`ledger entries --excluded`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ExclusionMatch {
    /// The exclusion, as recorded.
    #[serde(flatten)]
    pub exclusion: Exclusion,
    /// The candidates it removes, ascending; empty when it removes none.
    pub paths: Vec<WorkspacePath>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn removes(pattern: &str, path: &str) -> bool {
        let exclusion = Exclusion {
            path: normal_pattern(pattern).unwrap(),
            reason: String::new(),
            pattern: true,
        };
        exclusion.matcher().unwrap()(path.as_bytes())
    }

    #[test]
    fn a_pattern_matches_as_gitignore_does() {
        // No slash: a name at any depth.
        assert!(removes("case-*.md", "case-1.md"));
        assert!(removes("case-*.md", "g/case-1.md"));
        assert!(removes("case-*.md", "a/b/case-x.md"));
        assert!(!removes("case-*.md", "g/case-1.txt"));
        // A slash anchors it at the workspace; `*` stays in one segment.
        assert!(removes("g/case-*.md", "g/case-1.md"));
        assert!(!removes("g/case-*.md", "x/g/case-1.md"));
        assert!(!removes("g/*.md", "g/sub/a.md"));
        assert!(removes("/build", "build/out.o"));
        assert!(!removes("/build", "src/build"));
        // `**` spans segments; a matched directory removes what is below it.
        assert!(removes("g/**/risks-*.md", "g/a/b/risks-2.md"));
        assert!(removes("g/**/risks-*.md", "g/risks-2.md"));
        assert!(removes("handoff-*", "notes/handoff-3/part.md"));
        assert!(removes("?.log", "a.log") && !removes("?.log", "ab.log"));
        assert!(removes("[ab].txt", "b.txt") && !removes("[ab].txt", "c.txt"));
    }

    #[test]
    fn a_pattern_is_recorded_in_one_form_and_refused_when_it_leaves_the_workspace() {
        assert_eq!(normal_pattern("./g/*.md/").unwrap(), "g/*.md");
        assert!(is_pattern("*.md") && is_pattern("a?") && is_pattern("[x]") && !is_pattern("a/b"));
        for bad in ["../*.md", "g/../../*", "/", "[", "*/**/["] {
            assert_eq!(
                normal_pattern(bad).unwrap_err().code(),
                "invalid-argument",
                "{bad}"
            );
        }
    }
}
