//! Design materials (docs/approvals.md): the workspace files a Design document links.
//!
//! The Markdown is parsed with pulldown-cmark (so reference-style links,
//! images, and links inside emphasis are found, and code spans are not
//! mistaken for links). A destination is a material when it is a relative
//! reference: URLs (any scheme, or `//host`) and in-page anchors are not.

use pulldown_cmark::{Event, Parser, Tag};

use crate::error::{DisplayPath, Error, Result};
use crate::path::WorkspacePath;

/// The link and image destinations of a Markdown document, in document order,
/// duplicates removed.
pub(crate) fn link_destinations(markdown: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for event in Parser::new(markdown) {
        let dest = match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => dest_url,
            _ => continue,
        };
        if !out.iter().any(|d| d == dest.as_ref()) {
            out.push(dest.into_string());
        }
    }
    out
}

/// Resolves one destination found in `document` (a workspace path) to the
/// workspace path it names, or `None` when it is not a material (a URL or an
/// anchor).
pub(crate) fn resolve(document: &WorkspacePath, dest: &str) -> Result<Option<WorkspacePath>> {
    let ambiguous = |reason: &str| Error::AmbiguousMaterial {
        document: DisplayPath::from(document.as_str()),
        material: DisplayPath::from(dest),
        reason: reason.to_owned(),
    };
    if dest.is_empty() || dest.starts_with('#') || dest.starts_with("//") || has_scheme(dest) {
        return Ok(None);
    }
    if dest.starts_with('/') {
        return Err(ambiguous(
            "an absolute link may mean the host or the repository root; write it relative to the document",
        ));
    }
    let without_fragment = dest.split(['#', '?']).next().unwrap_or_default();
    let decoded = percent_encoding::percent_decode_str(without_fragment)
        .decode_utf8()
        .map_err(|_| ambiguous("its percent-encoding does not decode to UTF-8"))?;
    let mut segments: Vec<&str> = document
        .parents()
        .last()
        .map_or_else(Vec::new, |dir| dir.split('/').collect());
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return Err(Error::OutsideWorkspace {
                        path: DisplayPath::from(dest),
                        reason: "the link climbs above the workspace root",
                    });
                }
            }
            s => segments.push(s),
        }
    }
    if segments.is_empty() || decoded.ends_with('/') {
        return Err(ambiguous("it names a directory, not a file"));
    }
    WorkspacePath::new(segments.join("/")).map(Some)
}

/// `scheme:` as RFC 3986 defines it: a letter, then letters, digits, `+`, `-`, `.`.
fn has_scheme(dest: &str) -> bool {
    let Some((scheme, _)) = dest.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    const DESIGN: &str = r#"# Design

See [the flow](diagrams/flow.svg) and ![mock](./mocks/login%20page.png "Login").
Reference style: [arch][arch], and again [arch][arch].
`[not a link](code.md)` and

    [indented code](also-code.md)

External: [site](https://example.com/x.md), <https://auto.link>, [mail](mailto:a@b.c),
[anchor](#decisions), [proto](//cdn.example/x.js), [up](../shared/glossary.md#terms).

[arch]: docs/architecture.md
"#;

    #[test]
    fn finds_links_and_images_but_not_code() {
        let dests = link_destinations(DESIGN);
        assert_eq!(
            dests,
            [
                "diagrams/flow.svg",
                "./mocks/login%20page.png",
                "docs/architecture.md",
                "https://example.com/x.md",
                "https://auto.link",
                "mailto:a@b.c",
                "#decisions",
                "//cdn.example/x.js",
                "../shared/glossary.md#terms",
            ]
        );
    }

    #[test]
    fn resolves_relative_to_the_document() {
        let doc = WorkspacePath::new("openspec/changes/x/design.md").unwrap();
        let got: Vec<Option<String>> = link_destinations(DESIGN)
            .iter()
            .map(|d| resolve(&doc, d).unwrap().map(|p| p.as_str().to_owned()))
            .collect();
        let want = [
            Some("openspec/changes/x/diagrams/flow.svg"),
            Some("openspec/changes/x/mocks/login page.png"),
            Some("openspec/changes/x/docs/architecture.md"),
            None,
            None,
            None,
            None,
            None,
            Some("openspec/changes/shared/glossary.md"),
        ];
        assert_eq!(got, want.map(|w| w.map(str::to_owned)));
    }

    #[test]
    fn escaping_absolute_and_directory_links_are_refused() {
        let doc = WorkspacePath::new("design.md").unwrap();
        assert_eq!(
            resolve(&doc, "../etc/passwd").unwrap_err().code(),
            "outside-workspace"
        );
        assert_eq!(
            resolve(&doc, "/docs/a.md").unwrap_err().code(),
            "ambiguous-material"
        );
        assert_eq!(
            resolve(&doc, "docs/").unwrap_err().code(),
            "ambiguous-material"
        );
        assert_eq!(
            resolve(&doc, "%ff.md").unwrap_err().code(),
            "ambiguous-material"
        );
    }
}
