//! The allowed-signers file of ssh-keygen(1) (ALLOWED SIGNERS), as
//! `ssh-keygen -Y verify` and git's `gpg.ssh.allowedSignersFile` read it.
//!
//! Each line is `principals [options] keytype base64 [comment]`; `#` starts a
//! comment line. Supported options: `namespaces="..."` (a list of names),
//! `valid-after="..."` and `valid-before="..."` (in UTC, with a trailing
//! `Z`), checked against the signing time. `cert-authority` lines are read
//! but grant nothing: ledger checks no certificates. Everything ledger would
//! read differently from OpenSSH is refused with `bad-allowed-signers`
//! naming the line, never guessed: an unknown option, a namespace pattern
//! (`*`, `?`, `!`), a local time (no `Z`, which would depend on the machine's
//! time zone).

use std::time::SystemTime;

use camino::{Utf8Path, Utf8PathBuf};
use ssh_key::public::KeyData;
use ssh_key::{Algorithm, HashAlg, PublicKey};

use crate::error::{DisplayPath, Error, Result};
use crate::own_file;

use super::{KEY_FILE_LIMIT, NAMESPACE};

/// The signers whose signatures are trusted: an allowed-signers file, read
/// whole when loaded.
#[derive(Debug, Clone)]
pub struct AllowedSigners {
    path: Utf8PathBuf,
    lines: Vec<Line>,
}

/// One line that names a key.
#[derive(Debug, Clone)]
struct Line {
    number: usize,
    principals: String,
    key: KeyData,
    options: Options,
}

/// The options of a line; absent options restrict nothing.
#[derive(Debug, Clone, Default)]
struct Options {
    cert_authority: bool,
    namespaces: Option<Vec<String>>,
    valid_after: Option<SystemTime>,
    valid_before: Option<SystemTime>,
}

impl AllowedSigners {
    /// Reads the allowed-signers file at `path` (without following a
    /// symlink, bounded). A line ledger cannot read as OpenSSH does is
    /// `bad-allowed-signers`, naming the file and the line.
    pub fn load(path: &Utf8Path) -> Result<AllowedSigners> {
        let bytes =
            own_file::read_file(path.as_std_path(), "allowed-signers file", KEY_FILE_LIMIT)?;
        let mut lines = Vec::new();
        for (index, raw) in bytes.split(|b| *b == b'\n').enumerate() {
            let number = index + 1;
            let bad = |reason: String| Error::BadAllowedSigners {
                path: DisplayPath::from(path.as_str()),
                line: number,
                reason,
            };
            let text = std::str::from_utf8(raw).map_err(|_| bad("it is not UTF-8".into()))?;
            let text = text.strip_suffix('\r').unwrap_or(text);
            if let Some(line) = parse_line(number, text).map_err(bad)? {
                lines.push(line);
            }
        }
        Ok(AllowedSigners {
            path: path.to_owned(),
            lines,
        })
    }

    /// The principals of the first line that allows `key` to sign in the
    /// namespace `git` at `signed_at`, or why none does.
    pub(super) fn principal_for(
        &self,
        key: &KeyData,
        signed_at: Option<SystemTime>,
    ) -> std::result::Result<&str, String> {
        let mut refusals = Vec::new();
        for line in self.lines.iter().filter(|l| l.key == *key) {
            match line.options.refusal(signed_at) {
                None => return Ok(&line.principals),
                Some(why) => refusals.push(format!("line {}: {why}", line.number)),
            }
        }
        if refusals.is_empty() {
            let fingerprint = PublicKey::from(key.clone()).fingerprint(HashAlg::Sha256);
            return Err(format!("{fingerprint} is not in {}", self.path));
        }
        Err(format!("{} ({})", self.path, refusals.join("; ")))
    }
}

impl Options {
    /// Why a line with these options does not allow a signature made at
    /// `signed_at`, or `None` when it does.
    fn refusal(&self, signed_at: Option<SystemTime>) -> Option<String> {
        if self.cert_authority {
            return Some("a cert-authority line, and ledger checks no certificates".into());
        }
        if let Some(names) = &self.namespaces
            && !names.iter().any(|n| n == NAMESPACE)
        {
            return Some(format!(
                "allowed for namespaces {names:?}, not {NAMESPACE:?}"
            ));
        }
        if self.valid_after.is_none() && self.valid_before.is_none() {
            return None;
        }
        // A validity window with no time to hold it against proves nothing.
        let Some(at) = signed_at else {
            return Some("valid for a time window, and the signing time is unknown".into());
        };
        let stamp = |t: SystemTime| humantime::format_rfc3339_seconds(t).to_string();
        if let Some(after) = self.valid_after
            && at < after
        {
            return Some(format!(
                "valid only after {}, signed {}",
                stamp(after),
                stamp(at)
            ));
        }
        if let Some(before) = self.valid_before
            && at > before
        {
            return Some(format!(
                "valid only before {}, signed {}",
                stamp(before),
                stamp(at)
            ));
        }
        None
    }
}

/// One line of the file: `None` for a blank or comment line.
fn parse_line(number: usize, text: &str) -> std::result::Result<Option<Line>, String> {
    let text = text.trim_start_matches([' ', '\t']);
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let (principals, rest) = split_field(text)?;
    let principals = unquote(principals);
    if principals.is_empty() {
        return Err("no principals".into());
    }
    let (first, after) = split_field(rest)?;
    if first.is_empty() {
        return Err("no key after the principals".into());
    }
    // As OpenSSH: the field after the principals is the key's type, or else
    // the options, and the key follows them.
    let (options, key_text) = if Algorithm::new(first).is_ok() {
        (Options::default(), rest)
    } else {
        (parse_options(first)?, after)
    };
    if key_text.is_empty() {
        return Err("no key after the options".into());
    }
    let key = PublicKey::from_openssh(key_text).map_err(|e| format!("not a public key ({e})"))?;
    Ok(Some(Line {
        number,
        principals: principals.to_owned(),
        key: key.key_data().clone(),
        options,
    }))
}

/// The field at the start of `text` (up to whitespace outside double
/// quotes), and the rest with its leading whitespace skipped.
fn split_field(text: &str) -> std::result::Result<(&str, &str), String> {
    let mut quoted = false;
    for (at, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ' ' | '\t' if !quoted => {
                let rest = text[at..].trim_start_matches([' ', '\t']);
                return Ok((&text[..at], rest));
            }
            _ => {}
        }
    }
    if quoted {
        return Err(format!("unterminated quote in {text:?}"));
    }
    Ok((text, ""))
}

/// A field without the double quotes around it (OpenSSH allows principals
/// quoted as a whole).
fn unquote(field: &str) -> &str {
    field
        .strip_prefix('"')
        .and_then(|f| f.strip_suffix('"'))
        .unwrap_or(field)
}

/// The comma-separated options of a line.
fn parse_options(field: &str) -> std::result::Result<Options, String> {
    let mut options = Options::default();
    for option in split_commas(field) {
        let (name, value) = match option.split_once('=') {
            Some((name, value)) => (name, Some(quoted_value(name, value)?)),
            None => (option, None),
        };
        let name = name.to_ascii_lowercase();
        match (name.as_str(), value) {
            ("cert-authority", None) if !options.cert_authority => options.cert_authority = true,
            ("namespaces", Some(v)) if options.namespaces.is_none() => {
                options.namespaces = Some(parse_namespaces(v)?)
            }
            ("valid-after", Some(v)) if options.valid_after.is_none() => {
                options.valid_after = Some(parse_time(&name, v)?)
            }
            ("valid-before", Some(v)) if options.valid_before.is_none() => {
                options.valid_before = Some(parse_time(&name, v)?)
            }
            ("cert-authority" | "namespaces" | "valid-after" | "valid-before", _) => {
                return Err(format!("option {option:?} is repeated or malformed"));
            }
            _ => return Err(format!("unsupported option {option:?}")),
        }
    }
    Ok(options)
}

/// `text` split at the commas outside double quotes.
fn split_commas(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (at, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The value of `name="value"`: OpenSSH requires the quotes.
fn quoted_value<'a>(name: &str, value: &'a str) -> std::result::Result<&'a str, String> {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .filter(|v| !v.contains('"'))
        .ok_or_else(|| format!("the value of {name} must be in double quotes"))
}

/// A `namespaces` list: plain names only.
fn parse_namespaces(value: &str) -> std::result::Result<Vec<String>, String> {
    let names: Vec<String> = value.split(',').map(str::to_owned).collect();
    if let Some(pattern) = names.iter().find(|n| n.contains(['*', '?', '!'])) {
        return Err(format!(
            "namespace pattern {pattern:?} is not supported: list the namespaces by name"
        ));
    }
    if names.iter().any(String::is_empty) {
        return Err(format!("empty name in namespaces {value:?}"));
    }
    Ok(names)
}

/// A `valid-after`/`valid-before` time: `YYYYMMDD`, `YYYYMMDDHHMM` or
/// `YYYYMMDDHHMMSS`, in UTC (`Z`).
fn parse_time(name: &str, value: &str) -> std::result::Result<SystemTime, String> {
    let Some(digits) = value.strip_suffix(['Z', 'z']) else {
        return Err(format!(
            "{name}={value:?} is a local time, which differs between machines: write it in UTC with a trailing Z"
        ));
    };
    let bad = || format!("{name}={value:?} is not YYYYMMDD[HHMM[SS]]Z");
    if !digits.bytes().all(|b| b.is_ascii_digit()) || ![8, 12, 14].contains(&digits.len()) {
        return Err(bad());
    }
    let part = |from: usize, to: usize| digits.get(from..to).unwrap_or("00");
    let rfc3339 = format!(
        "{}-{}-{}T{}:{}:{}Z",
        part(0, 4),
        part(4, 6),
        part(6, 8),
        part(8, 10),
        part(10, 12),
        part(12, 14)
    );
    humantime::parse_rfc3339(&rfc3339).map_err(|_| bad())
}
