//! Reading a Tasks file into its tasks (docs/format.md §4.3): which lines are
//! tasks under a [`TaskRule`], whether each is done, its id and text.
//!
//! Under `task-checkbox-v1` the tasks are the canonical lines
//! (`- [ ] N.N [area] …` and `- [x] N.N [area] …`); under `openspec-checkbox`
//! every line OpenSpec 1.13's `parseTaskLines` returns, read the way OpenSpec
//! reads it. The lines the normalization of a rule rewrites are exactly the
//! done tasks this reader finds under that rule.

use std::path::Path;

use serde::Serialize;

use crate::bytes::Bytes;
use crate::error::Result;
use crate::js_space::is_js_space;
use crate::own_file::{DOCUMENT_LIMIT, read_file};
use crate::tasks::rule::TaskRule;

/// One task line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Task {
    /// The task's id, when its text starts with one: `1.1`, `2.10`, `3.2.1`,
    /// `1.2a` (OpenSpec's `TASK_ID`: numbers joined by dots, at least two,
    /// optional letters, then whitespace or the end).
    pub id: Option<String>,
    /// Whether the box holds `x` or `X`.
    pub done: bool,
    /// The 1-based line number (lines end at `\n`).
    pub line: usize,
    /// The text after the box, as OpenSpec's `description`: leading
    /// whitespace skipped, cut at the first `\r`, U+2028 or U+2029, trimmed;
    /// bytes that are not UTF-8 read as U+FFFD (one per maximal invalid
    /// subpart, as Node decodes), so that the text and its id are what
    /// OpenSpec sees. Exact whenever `text_bytes` is null.
    pub text: String,
    /// The exact bytes of `text` in the file, as base64, when they are not
    /// valid UTF-8; null when they are, for `text` is then exactly those
    /// bytes. `text` alone reads `caf\xe9` and `caf\xe8` as one string;
    /// with this field two task lines that differ in any byte never read the
    /// same.
    // In Rust, `Task::exact_text` gives the bytes in either case.
    pub text_bytes: Option<Bytes>,
}

impl Task {
    /// The exact bytes of the task's text in the file: `text_bytes` when
    /// there are any, else `text`, which is then exact. What a text output
    /// shows (escaped, `\351`), never the lossy `text`.
    ///
    /// ```
    /// use ledger_core::tasks::{read_tasks, TaskRule};
    /// let tasks = read_tasks(b"- [ ] 1.1 caf\xe9\n- [ ] 1.2 ok \n", TaskRule::OpenspecCheckbox);
    /// assert_eq!(tasks.tasks[0].text, "1.1 caf\u{fffd}");
    /// assert_eq!(tasks.tasks[0].exact_text(), b"1.1 caf\xe9");
    /// assert_eq!(tasks.tasks[1].text_bytes, None);
    /// assert_eq!(tasks.tasks[1].exact_text(), b"1.2 ok");
    /// ```
    pub fn exact_text(&self) -> &[u8] {
        match &self.text_bytes {
            Some(bytes) => &bytes.0,
            None => self.text.as_bytes(),
        }
    }
}

/// The tasks of one file under one rule, in document order.
///
/// ```
/// use ledger_core::tasks::{read_tasks, TaskRule};
/// let tasks = read_tasks(b"## 1. Core\n- [x] 1.1 Parse\n  - [ ] 1.1a Test\n", TaskRule::OpenspecCheckbox);
/// assert_eq!((tasks.done, tasks.total), (1, 2));
/// assert_eq!(tasks.completed_ids(), ["1.1"]);
/// assert_eq!(tasks.remaining_ids(), ["1.1a"]);
/// assert_eq!(tasks.tasks[1].line, 3);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Tasks {
    /// The rule the file was read under.
    pub rule: TaskRule,
    /// How many tasks there are.
    pub total: usize,
    /// How many are done.
    pub done: usize,
    /// Every task line.
    pub tasks: Vec<Task>,
}

impl Tasks {
    /// The ids of the done tasks, in document order (tasks without an id left out).
    pub fn completed_ids(&self) -> Vec<&str> {
        self.ids(true)
    }

    /// The ids of the tasks not done, in document order (tasks without an id left out).
    pub fn remaining_ids(&self) -> Vec<&str> {
        self.ids(false)
    }

    fn ids(&self, done: bool) -> Vec<&str> {
        self.tasks
            .iter()
            .filter(|t| t.done == done)
            .filter_map(|t| t.id.as_deref())
            .collect()
    }
}

/// Reads the tasks of `bytes` under `rule`.
pub fn read_tasks(bytes: &[u8], rule: TaskRule) -> Tasks {
    let tasks: Vec<Task> = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(n, line)| {
            let parsed = match rule {
                TaskRule::TaskCheckboxV1 => v1_line(line),
                TaskRule::OpenspecCheckbox => openspec_line(line),
            }?;
            let (text, span) = description(&parsed.rest, line.len());
            // In range: the span's ends are offsets `decode` found in `line`.
            let exact = &line[span];
            // Valid UTF-8 decodes to itself, so `text` is then the exact bytes.
            let text_bytes = std::str::from_utf8(exact)
                .is_err()
                .then(|| Bytes(exact.to_vec()));
            Some(Task {
                id: task_id(&text),
                done: parsed.done,
                line: n + 1,
                text,
                text_bytes,
            })
        })
        .collect();
    Tasks {
        rule,
        total: tasks.len(),
        done: tasks.iter().filter(|t| t.done).count(),
        tasks,
    }
}

/// Reads the Tasks file `path` under `rule`: a regular file, not through a
/// symlink, at most 16 MiB (`unreadable`, `special-file`, `too-large`).
pub fn read_tasks_file(path: &Path, rule: TaskRule) -> Result<Tasks> {
    let bytes = read_file(path, "tasks file", DOCUMENT_LIMIT)?;
    Ok(read_tasks(&bytes, rule))
}

/// The first other rule that reads task lines in `bytes` that `rule` does not,
/// with those lines' numbers; `None` when `rule` sees every line another does.
pub fn unseen_tasks(bytes: &[u8], rule: TaskRule) -> Option<(TaskRule, Vec<usize>)> {
    let seen: Vec<usize> = read_tasks(bytes, rule)
        .tasks
        .iter()
        .map(|t| t.line)
        .collect();
    TaskRule::ALL
        .into_iter()
        .filter(|&other| other != rule)
        .find_map(|other| {
            let unseen: Vec<usize> = read_tasks(bytes, other)
                .tasks
                .iter()
                .map(|t| t.line)
                .filter(|line| !seen.contains(line))
                .collect();
            (!unseen.is_empty()).then_some((other, unseen))
        })
}

/// A task line as a rule recognises it.
pub(crate) struct TaskLine {
    /// Whether the box holds `x`/`X`.
    pub(crate) done: bool,
    /// Byte offset of the `x`/`X` a rewrite turns into a space (done tasks);
    /// the normalization references use it.
    #[cfg_attr(not(any(test, feature = "fuzzing")), allow(dead_code))]
    pub(crate) token_at: Option<usize>,
    /// What follows the box, decoded, each character with the offset in the
    /// line of its first byte (so the description's exact bytes can be cut
    /// from the line).
    rest: Vec<(usize, char)>,
}

/// `line` (without its `\n`) as `task-checkbox-v1` reads it: `- [x] ` or
/// `- [ ] ` at the very start, then `[0-9]+ "." [0-9]+ " " "[" AREA "]"`,
/// AREA one or more bytes other than `]`, `\r`, `\n`.
pub(crate) fn v1_line(line: &[u8]) -> Option<TaskLine> {
    let done = match line.get(..6)? {
        b"- [x] " => true,
        b"- [ ] " => false,
        _ => return None,
    };
    let digits = |from: usize| {
        let n = line[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        (n > 0).then_some(from + n)
    };
    let major = digits(6)?;
    if line.get(major) != Some(&b'.') {
        return None;
    }
    let minor = digits(major + 1)?;
    if line.get(minor..minor + 2)? != b" [" {
        return None;
    }
    let area = line[minor + 2..]
        .iter()
        .take_while(|b| !matches!(b, b']' | b'\r' | b'\n'))
        .count();
    if area == 0 || line.get(minor + 2 + area) != Some(&b']') {
        return None;
    }
    Some(TaskLine {
        done,
        token_at: done.then_some(3),
        rest: decode(&line[5..])
            .into_iter()
            .map(|(at, c)| (at + 5, c))
            .collect(),
    })
}

/// `line` (without its `\n`) as OpenSpec 1.13's
/// `/^\s*(?:[-*+]|\d{1,9}[.)])\s*\[(?:\s*([^\]\s]?)\s*\](?![([])|\s+\])\s*(.*)/`
/// matches it, on the text Node decodes. The pattern is written out step by
/// step: each step below is the only way the regular expression can proceed
/// (whitespace is never a marker, bracket or token), so no backtracking is lost.
pub(crate) fn openspec_line(line: &[u8]) -> Option<TaskLine> {
    let chars = decode(line);
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let space_from = |mut i: usize| {
        while at(i).is_some_and(is_js_space) {
            i += 1;
        }
        i
    };
    let mut i = space_from(0);
    match at(i)? {
        '-' | '*' | '+' => i += 1,
        _ => {
            let n = (i..chars.len())
                .take_while(|&k| at(k).is_some_and(|c| c.is_ascii_digit()))
                .count();
            if !(1..=9).contains(&n) || !matches!(at(i + n), Some('.' | ')')) {
                return None;
            }
            i += n + 1;
        }
    }
    i = space_from(i);
    if at(i)? != '[' {
        return None;
    }
    let open = i + 1;
    let lead = space_from(open);
    // One UTF-16 code unit that is neither `]` nor whitespace (JavaScript's
    // `[^\]\s]` without the `u` flag): an astral character is two.
    let token = at(lead).filter(|&c| c != ']' && !is_js_space(c) && c.len_utf16() == 1);
    let close = space_from(lead + usize::from(token.is_some()));
    let continues_link = matches!(at(close + 1), Some('(' | '['));
    let end = if at(close) == Some(']') && !continues_link {
        close + 1
    } else if token.is_none() && lead > open && at(lead) == Some(']') {
        // `\s+\]`: a whitespace-only box, whatever follows it.
        lead + 1
    } else {
        return None;
    };
    let done = matches!(token, Some('x' | 'X'));
    Some(TaskLine {
        done,
        token_at: done.then(|| chars[lead].0),
        rest: chars[end..].to_vec(),
    })
}

/// `\s*(.*)` and `.trim()`: OpenSpec's description of what follows the box,
/// and the byte range in the line (of `line_len` bytes) it was decoded from.
/// A U+FFFD standing for an invalid subpart spans all of that subpart's bytes,
/// up to the next character's offset.
fn description(rest: &[(usize, char)], line_len: usize) -> (String, std::ops::Range<usize>) {
    let start = rest
        .iter()
        .position(|&(_, c)| !is_js_space(c))
        .unwrap_or(rest.len());
    let cut = rest[start..]
        .iter()
        .position(|&(_, c)| matches!(c, '\r' | '\u{2028}' | '\u{2029}'))
        .map_or(rest.len(), |n| start + n);
    let end = rest[start..cut]
        .iter()
        .rposition(|&(_, c)| !is_js_space(c))
        .map_or(start, |n| start + n + 1);
    let kept = &rest[start..end];
    let text: String = kept.iter().map(|&(_, c)| c).collect();
    let from = kept.first().map_or(0, |&(at, _)| at);
    let to = rest.get(end).map_or(line_len, |&(at, _)| at);
    let span = if kept.is_empty() { 0..0 } else { from..to };
    (text, span)
}

/// OpenSpec's `TASK_ID`, `^(\d+(?:\.\d+)+(?:[A-Za-z]+)?)(?=\s|$)`, on a
/// description. Greedy matching is exact here: every shorter match ends
/// before a digit, a dot or a letter, which the lookahead refuses.
fn task_id(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let run =
        |from: usize, f: fn(&u8) -> bool| from + bytes[from..].iter().take_while(|b| f(b)).count();
    let mut end = run(0, u8::is_ascii_digit);
    if end == 0 {
        return None;
    }
    let mut groups = 0;
    while bytes.get(end) == Some(&b'.') {
        let next = run(end + 1, u8::is_ascii_digit);
        if next == end + 1 {
            break;
        }
        end = next;
        groups += 1;
    }
    end = run(end, u8::is_ascii_alphabetic);
    let followed_ok = text[end..].chars().next().is_none_or(is_js_space);
    (groups > 0 && followed_ok).then(|| text[..end].to_owned())
}

/// The characters of `bytes` with their byte offsets, each maximal invalid
/// subpart one U+FFFD (as Node's UTF-8 decoding and `from_utf8_lossy` do).
fn decode(bytes: &[u8]) -> Vec<(usize, char)> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut offset = 0;
    for chunk in bytes.utf8_chunks() {
        out.extend(chunk.valid().char_indices().map(|(i, c)| (offset + i, c)));
        offset += chunk.valid().len();
        if !chunk.invalid().is_empty() {
            out.push((offset, char::REPLACEMENT_CHARACTER));
            offset += chunk.invalid().len();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::tasks::normalize::normalize_tasks_with;
    use proptest::prelude::*;

    fn one(line: &str, rule: TaskRule) -> Option<Task> {
        let mut tasks = read_tasks(line.as_bytes(), rule).tasks;
        assert!(tasks.len() <= 1);
        tasks.pop()
    }

    #[test]
    fn openspec_reads_what_openspec_counts() {
        // (line, done) for a task; None for a line OpenSpec does not count.
        let cases: &[(&str, Option<bool>)] = &[
            ("- [ ] 1.1 Create the thing", Some(false)),
            ("- [x] 1.1 Done", Some(true)),
            ("* [X] star", Some(true)),
            ("+ [x] plus", Some(true)),
            ("1. [x] ordered", Some(true)),
            ("123456789) [ ] nine digits", Some(false)),
            ("1234567890. [x] ten digits", None),
            ("\t  - [x] nested", Some(true)),
            ("\u{feff}- [x] bom", Some(true)),
            ("\u{a0}- [x] nbsp indent", Some(true)),
            ("-[x]no space", Some(true)),
            ("- [ x ] padded", Some(true)),
            ("- [] empty", Some(false)),
            ("- [~] other marker", Some(false)),
            ("- [\u{a0}] nbsp box", Some(false)),
            ("- [xx] two", None),
            ("- [😀] astral", None),
            ("- [x](link)", None),
            ("- [x][ref]", None),
            ("- [](link)", None),
            ("- [ ](link)", Some(false)),
            ("- item", None),
            ("> - [x] quote", None),
            ("Prose about [x] brackets.", None),
            ("- [x]\r", Some(true)),
        ];
        for (line, done) in cases {
            let got = one(line, TaskRule::OpenspecCheckbox).map(|t| t.done);
            assert_eq!(got, *done, "{line:?}");
        }
    }

    #[test]
    fn descriptions_and_ids_follow_openspec() {
        let task = one("- [x]  1.2 Bind it  \r", TaskRule::OpenspecCheckbox).unwrap();
        assert_eq!(task.text, "1.2 Bind it");
        assert_eq!(task.id.as_deref(), Some("1.2"));
        let id = |text: &str| task_id(text);
        assert_eq!(id("1.1"), Some("1.1".into()));
        assert_eq!(id("2.10 x"), Some("2.10".into()));
        assert_eq!(id("3.2.1\u{a0}x"), Some("3.2.1".into()));
        assert_eq!(id("1.2a b"), Some("1.2a".into()));
        for none in ["1 Do", "1. Do", "1.2. Do", "1.2ab3", "v1.2", "1.x", ""] {
            assert_eq!(id(none), None, "{none:?}");
        }
        let task = one("- [ ] a\u{2028}b", TaskRule::OpenspecCheckbox).unwrap();
        assert_eq!(task.text, "a");
    }

    #[test]
    fn v1_reads_canonical_lines_only() {
        let text = "- [x] 1.1 [core] Do it\n- [ ] 2.3 [py api] Bind\n- [x] 1.2 No area\n  - [x] 1.3 [core] indented\n- [X] 1.4 [core] upper\n";
        let tasks = read_tasks(text.as_bytes(), TaskRule::TaskCheckboxV1);
        assert_eq!((tasks.total, tasks.done), (2, 1));
        assert_eq!(tasks.completed_ids(), ["1.1"]);
        assert_eq!(tasks.remaining_ids(), ["2.3"]);
        assert_eq!(tasks.tasks[1].text, "2.3 [py api] Bind");
        assert_eq!(tasks.tasks[1].line, 2);
        let open = read_tasks(text.as_bytes(), TaskRule::OpenspecCheckbox);
        assert_eq!((open.total, open.done), (5, 4));
    }

    #[test]
    fn unseen_tasks_names_the_lines_only_the_other_rule_reads() {
        let text = b"- [ ] 1.1 [core] Canonical\n  - [x] 1.1.1 Nested\n* [ ] 1.2 Star\nprose\n";
        assert_eq!(
            unseen_tasks(text, TaskRule::TaskCheckboxV1),
            Some((TaskRule::OpenspecCheckbox, vec![2, 3]))
        );
        // Every canonical line is an OpenSpec task too.
        assert_eq!(unseen_tasks(text, TaskRule::OpenspecCheckbox), None);
        assert_eq!(
            unseen_tasks(b"- [x] 1.1 [a] b\n", TaskRule::TaskCheckboxV1),
            None
        );
        assert_eq!(unseen_tasks(b"", TaskRule::TaskCheckboxV1), None);
    }

    #[test]
    fn text_that_is_not_utf8_keeps_its_exact_bytes() {
        let file = b"- [ ] 1.1 caf\xe9\n- [ ] 1.2 caf\xe8 \r\n- [x] 1.3 caf\xc3\xa9\n- [ ]  \xff\xfe\tx \xf0\x9f\n";
        let tasks = read_tasks(file, TaskRule::OpenspecCheckbox).tasks;
        let exact: Vec<&[u8]> = tasks.iter().map(Task::exact_text).collect();
        assert_eq!(
            exact,
            [
                &b"1.1 caf\xe9"[..],
                b"1.2 caf\xe8",
                "1.3 caf\u{e9}".as_bytes(),
                b"\xff\xfe\tx \xf0\x9f",
            ]
        );
        // The text stays OpenSpec's, lossy: alone it would merge 1.1 and 1.2's words.
        assert_eq!(tasks[0].text, "1.1 caf\u{fffd}");
        assert_eq!(tasks[1].text, "1.2 caf\u{fffd}");
        assert_eq!(tasks[3].text, "\u{fffd}\u{fffd}\tx \u{fffd}");
        assert_eq!(tasks[0].id.as_deref(), Some("1.1"));
        // Valid UTF-8 needs no bytes: the text is exact.
        assert_eq!(tasks[2].text_bytes, None);
        let json = serde_json::to_value(&tasks).unwrap();
        assert_eq!(json[0]["text_bytes"], "MS4xIGNhZuk=");
        assert_eq!(json[2]["text_bytes"], serde_json::Value::Null);
        let v1 = read_tasks(b"- [ ] 1.1 [a\xff] b\xfe\n", TaskRule::TaskCheckboxV1).tasks;
        assert_eq!(v1[0].exact_text(), b"1.1 [a\xff] b\xfe");
        // What the description cuts off (after a `\r`) is no part of the text.
        let cut = read_tasks(b"- [ ] \tx \r\xff\n", TaskRule::OpenspecCheckbox).tasks;
        assert_eq!(
            (cut[0].text.as_str(), cut[0].text_bytes.as_ref()),
            ("x", None)
        );
        let blank = read_tasks(b"- [ ] \t \n", TaskRule::OpenspecCheckbox).tasks;
        assert_eq!(
            (blank[0].text.as_str(), blank[0].exact_text()),
            ("", &b""[..])
        );
    }

    fn lines() -> impl Strategy<Value = Vec<u8>> {
        let atoms = prop_oneof![
            Just(b"- [x] ".to_vec()),
            Just(b"- [ ] ".to_vec()),
            Just(b"1.2 [a]".to_vec()),
            Just(b"1) [X".to_vec()),
            Just(b" ] (".to_vec()),
            Just(b"\xc2\xa0".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\n".to_vec()),
            any::<u8>().prop_map(|b| vec![b]),
        ];
        prop::collection::vec(atoms, 0..30).prop_map(|v| v.concat())
    }

    proptest! {
        /// The reader and the normalization of a rule agree: a line changes
        /// exactly when it is a done task, and becomes the same task not done.
        #[test]
        fn the_rewritten_lines_are_the_done_tasks(input in lines()) {
            for rule in TaskRule::ALL {
                let before = read_tasks(&input, rule);
                let out = normalize_tasks_with(&input, rule);
                let changed: Vec<usize> = input
                    .split(|&b| b == b'\n')
                    .zip(out.split(|&b| b == b'\n'))
                    .enumerate()
                    .filter(|(_, (a, b))| a != b)
                    .map(|(n, _)| n + 1)
                    .collect();
                let done: Vec<usize> =
                    before.tasks.iter().filter(|t| t.done).map(|t| t.line).collect();
                prop_assert_eq!(&changed, &done, "{:?}", rule);
                let after = read_tasks(&out, rule);
                prop_assert_eq!(after.total, before.total);
                prop_assert_eq!(after.done, 0);
            }
        }

        /// A task's exact text is a run of its line's bytes, `text` is its
        /// lossy decoding, and `text_bytes` is there exactly when it is not
        /// UTF-8.
        #[test]
        fn the_exact_text_is_cut_from_the_line(input in lines()) {
            let lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
            for rule in TaskRule::ALL {
                for task in read_tasks(&input, rule).tasks {
                    let exact = task.exact_text();
                    let line = lines[task.line - 1];
                    prop_assert!(
                        exact.is_empty() || line.windows(exact.len()).any(|w| w == exact),
                        "{:?} not in {:?}", exact, line
                    );
                    prop_assert_eq!(String::from_utf8_lossy(exact), task.text.as_str());
                    prop_assert_eq!(task.text_bytes.is_some(), std::str::from_utf8(exact).is_err());
                }
            }
        }

        /// Any byte string after the box comes back exactly, when nothing in
        /// it ends OpenSpec's description (`\r`, U+2028, U+2029) and it is
        /// not trimmed (it starts and ends with a letter).
        #[test]
        fn any_task_text_round_trips_exactly(
            middle in prop::collection::vec(any::<u8>(), 0..40).prop_filter(
                "a byte that ends the description",
                |m| !m.iter().any(|&b| b == b'\n' || b == b'\r')
                    && !m.windows(3).any(|w| w == b"\xe2\x80\xa8" || w == b"\xe2\x80\xa9"),
            ),
        ) {
            let text = [&b"a"[..], &middle, b"z"].concat();
            for (rule, head) in [
                (TaskRule::OpenspecCheckbox, &b"- [ ] "[..]),
                (TaskRule::TaskCheckboxV1, b"- [x] 1.1 [area] "),
            ] {
                let line = [head, &text, b"\n"].concat();
                let tasks = read_tasks(&line, rule).tasks;
                prop_assert_eq!(tasks.len(), 1);
                let want = [&head[6..], &text].concat();
                prop_assert_eq!(tasks[0].exact_text(), &want[..]);
                let json = serde_json::to_value(&tasks[0]).unwrap();
                let back = match json["text_bytes"].as_str() {
                    Some(b64) => serde_json::from_value::<Bytes>(b64.into()).unwrap().0,
                    None => json["text"].as_str().unwrap().as_bytes().to_vec(),
                };
                prop_assert_eq!(back, want);
            }
        }
    }
}
