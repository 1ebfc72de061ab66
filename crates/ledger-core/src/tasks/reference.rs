//! The references of the Tasks normalizations (docs/format.md §4), written as
//! plainly as possible and independently of the streaming implementations:
//! the proptests and the fuzz targets check against them. Built only for
//! tests and the `fuzzing` feature.
//!
//! `task-checkbox-v1` is written out here byte by byte; `openspec-checkbox`
//! uses the task reader's line matcher (`tasks::openspec_line`, which works on
//! decoded characters, not on the byte states of the streaming transducer),
//! so the same check also holds the reader and the normalization together.

/// The `- [x] ` prefix of a candidate line and its rewrite (docs/format.md §4).
const CHECKED: &[u8] = b"- [x] ";
const UNCHECKED: &[u8] = b"- [ ] ";

/// Whether one line (without its `\n`) is a canonical checked task: `- [x] `
/// then `[0-9]+ "." [0-9]+ " " "[" AREA "]"`, AREA one or more bytes other than
/// `]`, `\r`, `\n`. Written as plainly as possible, index by index.
fn reference_is_canonical(line: &[u8]) -> bool {
    if !line.starts_with(CHECKED) {
        return false;
    }
    let mut i = CHECKED.len();
    let start = i;
    while i < line.len() && line[i].is_ascii_digit() {
        i += 1;
    }
    if i == start || i >= line.len() || line[i] != b'.' {
        return false;
    }
    i += 1;
    let start = i;
    while i < line.len() && line[i].is_ascii_digit() {
        i += 1;
    }
    if i == start || i + 1 >= line.len() || line[i] != b' ' || line[i + 1] != b'[' {
        return false;
    }
    i += 2;
    let start = i;
    while i < line.len() && !matches!(line[i], b']' | b'\r' | b'\n') {
        i += 1;
    }
    i > start && i < line.len() && line[i] == b']'
}

/// The whole-buffer reference: split on `\n`, rewrite each qualifying line.
pub(crate) fn reference_normalize(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    for (n, line) in input.split(|&b| b == b'\n').enumerate() {
        if n > 0 {
            out.push(b'\n');
        }
        if reference_is_canonical(line) {
            out.extend_from_slice(UNCHECKED);
            out.extend_from_slice(&line[CHECKED.len()..]);
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// The whole-buffer reference of `openspec-checkbox`: split on `\n`, and on
/// every line OpenSpec reads as a done task, turn the box's `x`/`X` into a space.
pub(crate) fn reference_openspec(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    for (n, line) in input.split(|&b| b == b'\n').enumerate() {
        if n > 0 {
            out.push(b'\n');
        }
        let start = out.len();
        out.extend_from_slice(line);
        if let Some(at) = crate::tasks::reader::openspec_line(line).and_then(|t| t.token_at) {
            out[start + at] = b' ';
        }
    }
    out
}
