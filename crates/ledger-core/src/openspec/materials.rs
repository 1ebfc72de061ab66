//! Design materials (docs/approvals.md): the workspace files a Design document links.
//!
//! The Markdown is parsed with pulldown-cmark (so reference-style links,
//! images, and links inside emphasis are found, and code spans are not
//! mistaken for links). The raw HTML it holds (inline tags and HTML blocks)
//! is read with html5gum, a WHATWG tokenizer: every attribute whose value is
//! a URL (`<img src>`, `<a href>`, `srcset`, …) is a destination too, so a
//! file shown through HTML is never left out of the set. A destination is a
//! material when it is a relative reference: URLs (any scheme, or `//host`)
//! and in-page anchors are not.

use html5gum::{DefaultEmitter, Token, Tokenizer};
use pulldown_cmark::{Event, Parser, Tag};

use crate::error::{DisplayPath, Error, Result};
use crate::path::WorkspacePath;

/// Attributes holding one URL, on any element (HTML's index of attributes
/// whose value is a URL, SVG's `href`/`xlink:href`; `data` is `<object>`'s).
const URL_ATTRIBUTES: [&str; 11] = [
    "href",
    "src",
    "poster",
    "data",
    "action",
    "formaction",
    "cite",
    "longdesc",
    "background",
    "manifest",
    "xlink:href",
];

/// The link and image destinations of a Markdown document, in document order,
/// duplicates removed: those of its Markdown links and images, then, in
/// place, those of its raw HTML's URL attributes. An HTML `<base href>`
/// (which would change what every relative link names) is `ambiguous-material`
/// in `document`.
pub(crate) fn link_destinations(document: &WorkspacePath, markdown: &str) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |dest: String| {
        if !out.contains(&dest) {
            out.push(dest);
        }
    };
    // Consecutive HTML events are one fragment: a block's lines, or a tag
    // that pulldown-cmark passes in pieces, are tokenized together.
    let mut html = String::new();
    for event in Parser::new(markdown) {
        match event {
            Event::Html(text) | Event::InlineHtml(text) => {
                html.push_str(&text);
                continue;
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                html_destinations(document, &std::mem::take(&mut html), &mut push)?;
                push(dest_url.into_string());
            }
            _ => html_destinations(document, &std::mem::take(&mut html), &mut push)?,
        }
    }
    html_destinations(document, &html, &mut push)?;
    Ok(out)
}

/// The URL attribute values of the start tags of an HTML fragment, as a
/// browser decodes them (character references resolved, surrounding ASCII
/// whitespace trimmed). Script and style contents are text, not tags.
fn html_destinations(
    document: &WorkspacePath,
    html: &str,
    push: &mut impl FnMut(String),
) -> Result<()> {
    if html.is_empty() {
        return Ok(());
    }
    let mut emitter = DefaultEmitter::default();
    emitter.naively_switch_states(true);
    for token in Tokenizer::new_with_emitter(html, emitter).flatten() {
        let Token::StartTag(tag) = token else {
            continue;
        };
        let name = String::from_utf8_lossy(&tag.name).to_ascii_lowercase();
        for (attribute, value) in &tag.attributes {
            let attribute = String::from_utf8_lossy(attribute).to_ascii_lowercase();
            let value = String::from_utf8_lossy(value);
            let value = value.trim_matches(|c: char| c.is_ascii_whitespace());
            if name == "base" && attribute == "href" {
                return Err(Error::AmbiguousMaterial {
                    document: DisplayPath::from(document.as_str()),
                    material: DisplayPath::from(value),
                    reason: "an HTML <base href> changes what every relative link names; remove it"
                        .to_owned(),
                });
            }
            match attribute.as_str() {
                "data" if name != "object" => {}
                a if URL_ATTRIBUTES.contains(&a) => push(value.to_owned()),
                "srcset" | "imagesrcset" => srcset_urls(value).into_iter().for_each(&mut *push),
                "ping" => value
                    .split_ascii_whitespace()
                    .map(str::to_owned)
                    .for_each(&mut *push),
                _ => {}
            }
        }
    }
    Ok(())
}

/// The URLs of a `srcset` (HTML's "parse a srcset attribute"): candidates
/// separated by commas, each a URL (trailing commas not part of it), then
/// descriptors up to the next comma outside parentheses.
fn srcset_urls(value: &str) -> Vec<String> {
    let mut urls = Vec::new();
    let mut rest = value;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        if rest.is_empty() {
            return urls;
        }
        let end = rest
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let (url, after) = rest.split_at(end);
        let trimmed = url.trim_end_matches(',');
        urls.push(trimmed.to_owned());
        rest = if trimmed.len() < url.len() {
            after
        } else {
            // Skip the descriptors: up to a comma outside parentheses.
            let mut depth = 0usize;
            let cut = after
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => depth = depth.saturating_sub(1),
                        ',' if depth == 0 => return true,
                        _ => {}
                    }
                    false
                })
                .map_or(after.len(), |(i, _)| i);
            &after[cut..]
        };
    }
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

    fn doc() -> WorkspacePath {
        WorkspacePath::new("openspec/changes/x/design.md").unwrap()
    }

    #[test]
    fn finds_links_and_images_but_not_code() {
        let dests = link_destinations(&doc(), DESIGN).unwrap();
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
        let got: Vec<Option<String>> = link_destinations(&doc, DESIGN)
            .unwrap()
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
    fn inline_html_and_html_blocks_give_their_url_attributes() {
        let design = r#"# Design

An inline <img src="mocks/a.png" alt="a"> and <a href='docs/b.md'>b</a>, a
tag over two lines <img
  src=mocks/c.png>, character references <img src="mocks/d&amp;e.png">.

<picture>
  <source srcset="mocks/f.webp 1x, mocks/g,2.webp 2x" media="(min-width: 1px)">
  <IMG SRC=" mocks/h.png " data="not-an-object.bin">
</picture>

<object data="diagrams/i.svg"></object>
<video poster="mocks/j.png" src="https://example.com/v.mp4"></video>
<!-- <img src="commented.png"> -->
<script>let x = '<img src="in-script.png">';</script>

`<img src="code.png">` and

    <img src="indented-code.png">
"#;
        let dests = link_destinations(&doc(), design).unwrap();
        assert_eq!(
            dests,
            [
                "mocks/a.png",
                "docs/b.md",
                "mocks/c.png",
                "mocks/d&e.png",
                "mocks/f.webp",
                "mocks/g,2.webp",
                "mocks/h.png",
                "diagrams/i.svg",
                "mocks/j.png",
                "https://example.com/v.mp4",
            ]
        );
    }

    #[test]
    fn srcset_candidates_follow_the_html_rules() {
        assert_eq!(srcset_urls("a.png"), ["a.png"]);
        assert_eq!(
            srcset_urls(" a.png 1x ,b.png 2x,, c.png"),
            ["a.png", "b.png", "c.png"]
        );
        assert_eq!(srcset_urls("a.png, b.png"), ["a.png", "b.png"]);
        assert_eq!(srcset_urls("a.png (x, y) 1x, b.png"), ["a.png", "b.png"]);
        assert!(srcset_urls(" , ").is_empty());
    }

    #[test]
    fn an_html_base_is_refused() {
        let err =
            link_destinations(&doc(), "<base href=\"https://x/\">\n\n![a](a.png)\n").unwrap_err();
        assert_eq!(err.code(), "ambiguous-material");
        assert!(err.to_string().contains("<base href>"), "{err}");
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
