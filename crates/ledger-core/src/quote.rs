//! The one quoting of every path and value ledger prints (text output and error
//! messages), after Git's `quote_c_style` with `core.quotePath=false`:
//!
//! * text whose characters are all printable, without `"` or `\`, is shown as is;
//! * otherwise it is quoted: `\a \b \t \n \v \f \r \" \\`, and every byte of a
//!   control character, of a character that reorders or breaks lines on a
//!   terminal (bidi controls such as U+202E, U+2028, U+2029, zero-width
//!   characters, U+FEFF), and every byte that is not valid UTF-8, as three octal
//!   digits (`\033`, `\342\200\256`, `\377`). Other non-ASCII text is kept.
//!
//! So a name can neither move the cursor, forge a line, nor reorder what follows
//! it, and two different byte strings never print the same.
//!
//! ```
//! use ledger_core::quote::{escape, quote};
//! assert_eq!(quote("src/main.rs"), "src/main.rs");
//! assert_eq!(quote("tab\there"), "\"tab\\there\"");
//! assert_eq!(quote("evil\u{202e}txt.exe"), "\"evil\\342\\200\\256txt.exe\"");
//! assert_eq!(escape(b"caf\xe9 \x1b[2J"), "caf\\351 \\033[2J");
//! ```

use std::borrow::Cow;

/// `text` as ledger prints it in text output: as is when nothing needs
/// escaping, otherwise escaped ([`escape`]) between double quotes.
pub fn quote(text: &str) -> Cow<'_, str> {
    quote_bytes(text.as_bytes())
}

/// Raw `bytes` as [`quote`] prints text: as is when they are UTF-8 that needs
/// no escaping, otherwise escaped between double quotes, each byte that is
/// not UTF-8 as three octal digits. For a value kept as bytes (a task's text
/// with invalid UTF-8 in it), so that two different byte strings never print
/// the same, as a lossy `String` would.
///
/// ```
/// use ledger_core::quote::quote_bytes;
/// assert_eq!(quote_bytes(b"1.1 Add login"), "1.1 Add login");
/// assert_eq!(quote_bytes(b"1.1 caf\xe9"), "\"1.1 caf\\351\"");
/// assert_ne!(quote_bytes(b"\xff"), quote_bytes(b"\xfe"));
/// ```
pub fn quote_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if !needs_escaping(bytes) {
        // needs_escaping is false only for valid UTF-8.
        if let Ok(text) = std::str::from_utf8(bytes) {
            return Cow::Borrowed(text);
        }
    }
    Cow::Owned(format!("\"{}\"", escape(bytes)))
}

/// A message from another library (a parser's, gix's) as one line of an error: its
/// lines trimmed and joined with `; `, then escaped as [`escape`] escapes, so
/// that neither a line break nor a terminal control in it reaches the output.
pub(crate) fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    escape(lines.join("; ").as_bytes()).into_owned()
}

/// `bytes` with everything escaped that [`quote`] escapes, without the quotes
/// (error messages put a path between single quotes).
pub fn escape(bytes: &[u8]) -> Cow<'_, str> {
    if !needs_escaping(bytes) {
        // needs_escaping is false only for valid UTF-8.
        if let Ok(text) = std::str::from_utf8(bytes) {
            return Cow::Borrowed(text);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_char(&mut out, c);
        }
        for b in chunk.invalid() {
            push_octal(&mut out, *b);
        }
    }
    Cow::Owned(out)
}

/// Prose (a gate's output) made safe to print: bytes that are not UTF-8 and
/// unsafe characters other than tab and newline become octal escapes, while
/// quotes and backslashes, which cannot move the cursor, stay as they are.
pub(crate) fn sanitize_prose(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_unsafe(c) && c != '\t' && c != '\n' {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    push_octal(&mut out, b);
                }
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            push_octal(&mut out, *b);
        }
    }
    out
}

fn needs_escaping(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return true;
    };
    text.chars().any(|c| c == '"' || c == '\\' || is_unsafe(c))
}

/// Control characters, and the characters that reorder, hide or break text on
/// a terminal.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

fn push_char(out: &mut String, c: char) {
    let short = match c {
        '\u{7}' => "\\a",
        '\u{8}' => "\\b",
        '\t' => "\\t",
        '\n' => "\\n",
        '\u{b}' => "\\v",
        '\u{c}' => "\\f",
        '\r' => "\\r",
        '"' => "\\\"",
        '\\' => "\\\\",
        c if is_unsafe(c) => {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                push_octal(out, b);
            }
            return;
        }
        c => {
            out.push(c);
            return;
        }
    };
    out.push_str(short);
}

fn push_octal(out: &mut String, b: u8) {
    out.push('\\');
    for shift in [6, 3, 0] {
        out.push(char::from(b'0' + ((b >> shift) & 7)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dangerous_name_is_quoted_and_distinct() {
        let cases = [
            ("plain/ünïcødé.md", "plain/ünïcødé.md"),
            ("new\nline", "\"new\\nline\""),
            ("tab\t", "\"tab\\t\""),
            ("cr\r", "\"cr\\r\""),
            ("esc\u{1b}[31m", "\"esc\\033[31m\""),
            ("quote\"", "\"quote\\\"\""),
            ("back\\slash", "\"back\\\\slash\""),
            ("rlo\u{202e}", "\"rlo\\342\\200\\256\""),
            ("ls\u{2028}", "\"ls\\342\\200\\250\""),
            ("del\u{7f}", "\"del\\177\""),
            ("c1\u{85}", "\"c1\\302\\205\""),
        ];
        for (text, shown) in cases {
            assert_eq!(quote(text), shown, "{text:?}");
        }
        assert_eq!(escape(b"\xff\xfe"), "\\377\\376");
        assert_eq!(quote_bytes(b"caf\xe9"), "\"caf\\351\"");
        assert_eq!(quote_bytes("caf\u{e9}".as_bytes()), "caf\u{e9}");
        // U+FFFD itself is text, not an escape: it never reads as a bad byte.
        assert_ne!(quote_bytes("\u{fffd}".as_bytes()), quote_bytes(b"\xff"));
        assert_ne!(escape(b"\\377"), escape(b"\xff"));
    }
}
