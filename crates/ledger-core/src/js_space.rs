//! JavaScript's `\s` (ECMAScript WhiteSpace and LineTerminator), which OpenSpec's
//! task pattern uses (docs/format.md §4.2): as characters, and as the UTF-8 byte
//! sequences a streaming matcher meets.
//!
//! Node reads a Tasks file with `fs.readFile(file, 'utf-8')`, which keeps a BOM
//! (U+FEFF, itself in `\s`) and replaces each maximal invalid subpart with
//! U+FFFD (not in `\s`). An ASCII byte therefore always stands for itself, and
//! a whitespace character is exactly one of the byte sequences below.

/// The ASCII bytes in `\s`: tab, line feed, vertical tab, form feed, carriage
/// return, space.
pub(crate) fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

/// The characters above U+007F in `\s`, as UTF-8: U+00A0, U+1680,
/// U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 and U+FEFF.
/// (U+0085 and U+180E are not: ECMAScript follows Unicode's current Zs.)
const WIDE: [&[u8]; 19] = [
    b"\xc2\xa0",
    b"\xe1\x9a\x80",
    b"\xe2\x80\x80",
    b"\xe2\x80\x81",
    b"\xe2\x80\x82",
    b"\xe2\x80\x83",
    b"\xe2\x80\x84",
    b"\xe2\x80\x85",
    b"\xe2\x80\x86",
    b"\xe2\x80\x87",
    b"\xe2\x80\x88",
    b"\xe2\x80\x89",
    b"\xe2\x80\x8a",
    b"\xe2\x80\xa8",
    b"\xe2\x80\xa9",
    b"\xe2\x80\xaf",
    b"\xe2\x81\x9f",
    b"\xe3\x80\x80",
    b"\xef\xbb\xbf",
];

/// Whether `c` is in JavaScript's `\s` (also the set `String.prototype.trim` removes).
pub(crate) fn is_js_space(c: char) -> bool {
    let mut buf = [0u8; 4];
    let bytes = c.encode_utf8(&mut buf).as_bytes();
    match bytes {
        [b] => is_ascii_space(*b),
        _ => WIDE.contains(&&*bytes),
    }
}

/// How far the bytes seen so far are into a wide whitespace character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wide {
    /// They are one whole whitespace character.
    Complete,
    /// They begin one; more bytes decide.
    Partial,
    /// They are not (the start of) a whitespace character.
    No,
}

/// Classifies `bytes` (1 to 3 bytes, the first ≥ 0x80) against the wide
/// whitespace sequences.
pub(crate) fn classify_wide(bytes: &[u8]) -> Wide {
    if WIDE.contains(&bytes) {
        Wide::Complete
    } else if WIDE.iter().any(|w| w.starts_with(bytes)) {
        Wide::Partial
    } else {
        Wide::No
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_is_ecmascripts() {
        // Node 20: `/\s/.test(String.fromCharCode(c))` for c in 0..=0xFFFF.
        let expected = [
            0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
            0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f,
            0x3000, 0xfeff,
        ];
        let found: Vec<u32> = (0..=0xffffu32)
            .filter_map(char::from_u32)
            .filter(|&c| is_js_space(c))
            .map(u32::from)
            .collect();
        assert_eq!(found, expected);
        assert!(!is_js_space('\u{85}') && !is_js_space('\u{180e}'));
    }

    #[test]
    fn wide_sequences_are_recognised_byte_by_byte() {
        assert_eq!(classify_wide(b"\xef"), Wide::Partial);
        assert_eq!(classify_wide(b"\xef\xbb"), Wide::Partial);
        assert_eq!(classify_wide(b"\xef\xbb\xbf"), Wide::Complete);
        assert_eq!(classify_wide(b"\xc2\xa0"), Wide::Complete);
        assert_eq!(classify_wide(b"\xc2\x85"), Wide::No);
        assert_eq!(classify_wide(b"\xe2\x80\x8b"), Wide::No);
        assert_eq!(classify_wide(b"\xf0"), Wide::No);
    }
}
