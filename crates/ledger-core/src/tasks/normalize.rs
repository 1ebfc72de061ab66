//! Task-checkbox normalization (docs/format.md §4.1, `task-checkbox-v1`), as a
//! streaming transducer, and the one entry point to either Tasks rule.
//!
//! A line that starts with `- [x] ` followed by `[0-9]+ "." [0-9]+ " " "[" AREA "]"`
//! (AREA: one or more bytes other than `]`, `\r`, `\n`) has its prefix rewritten to
//! `- [ ] `. Whether a line qualifies is only known when its closing `]` arrives,
//! possibly many chunks later, and the line may be arbitrarily long. Rather than
//! buffer the line, the matcher tells its [`Output`] "a candidate starts here" and
//! later "it matched" or "it did not": a hashing output forks its SHA-256 state
//! (the two possible outputs differ in a single byte, so both states are fed the
//! same bytes until the line decides); a buffering output patches one byte.
//! Either way memory stays constant and the result is independent of chunking.

use crate::tasks::openspec::OpenspecNormalizer;
pub(crate) use crate::tasks::output::{HashOutput, Output, VecOutput};
use crate::tasks::rule::TaskRule;

/// The six bytes a candidate line starts with.
const CHECKED: &[u8; 6] = b"- [x] ";
/// What they become when the line is a canonical task checkbox.
const UNCHECKED: &[u8; 6] = b"- [ ] ";

/// Where in a line the matcher stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Matched this many bytes of `- [x] ` from the start of the line.
    Prefix(u8),
    /// The line cannot be a candidate; copy until `\n`.
    Rest,
    /// After the prefix: in the first number (`seen` = at least one digit).
    Major { seen: bool },
    /// In the second number.
    Minor { seen: bool },
    /// Expecting `[` after the space.
    Open,
    /// Inside the area (`seen` = at least one byte).
    Area { seen: bool },
}

/// The streaming task-checkbox normalizer.
#[derive(Debug, Clone)]
pub(crate) struct Normalizer {
    state: State,
}

impl Default for Normalizer {
    fn default() -> Self {
        Normalizer {
            state: State::Prefix(0),
        }
    }
}

impl Normalizer {
    /// Feeds the next chunk of the file.
    pub(crate) fn update(&mut self, mut chunk: &[u8], out: &mut impl Output) {
        while !chunk.is_empty() {
            chunk = match self.state {
                State::Rest => self.copy_rest_of_line(chunk, out),
                State::Prefix(n) => self.match_prefix(n, chunk, out),
                _ => self.match_tail(chunk, out),
            };
        }
    }

    /// Ends the input: a pending candidate without its `]` is not a checkbox.
    pub(crate) fn finish(self, out: &mut impl Output) {
        match self.state {
            State::Prefix(n) => out.write(&CHECKED[..n as usize]),
            State::Rest => {}
            _ => out.decide(false),
        }
    }

    /// Copies up to and including the next `\n`, which starts a new line.
    fn copy_rest_of_line<'a>(&mut self, chunk: &'a [u8], out: &mut impl Output) -> &'a [u8] {
        match memchr::memchr(b'\n', chunk) {
            Some(i) => {
                out.write(&chunk[..=i]);
                self.state = State::Prefix(0);
                &chunk[i + 1..]
            }
            None => {
                out.write(chunk);
                &[]
            }
        }
    }

    /// Matches `- [x] ` at the start of a line, possibly across chunks. The
    /// matched bytes are held back (at most five) until the prefix completes or fails.
    fn match_prefix<'a>(&mut self, n: u8, chunk: &'a [u8], out: &mut impl Output) -> &'a [u8] {
        let mut matched = n as usize;
        let mut used = 0;
        while matched < CHECKED.len() && used < chunk.len() {
            if chunk[used] != CHECKED[matched] {
                out.write(&CHECKED[..matched]);
                // The failing byte is not consumed here: it may be the `\n` that
                // starts the next line, so `Rest` handles it.
                self.state = State::Rest;
                return &chunk[used..];
            }
            matched += 1;
            used += 1;
        }
        if matched == CHECKED.len() {
            out.begin_candidate(CHECKED, UNCHECKED);
            self.state = State::Major { seen: false };
        } else {
            self.state = State::Prefix(matched as u8);
        }
        &chunk[used..]
    }

    /// Runs the candidate grammar after the prefix until it decides or the chunk ends.
    fn match_tail<'a>(&mut self, chunk: &'a [u8], out: &mut impl Output) -> &'a [u8] {
        for (i, &b) in chunk.iter().enumerate() {
            let next = match (self.state, b) {
                (State::Major { .. }, b'0'..=b'9') => State::Major { seen: true },
                (State::Major { seen: true }, b'.') => State::Minor { seen: false },
                (State::Minor { .. }, b'0'..=b'9') => State::Minor { seen: true },
                (State::Minor { seen: true }, b' ') => State::Open,
                (State::Open, b'[') => State::Area { seen: false },
                (State::Area { seen: true }, b']') => {
                    out.write(&chunk[..=i]);
                    out.decide(true);
                    self.state = State::Rest;
                    return &chunk[i + 1..];
                }
                (State::Area { .. }, b) if b != b']' && b != b'\r' && b != b'\n' => {
                    State::Area { seen: true }
                }
                _ => {
                    // Not a canonical checkbox. The byte is left to `Rest`, which
                    // also handles a `\n` that ends the line here.
                    out.write(&chunk[..i]);
                    out.decide(false);
                    self.state = State::Rest;
                    return &chunk[i..];
                }
            };
            self.state = next;
        }
        out.write(chunk);
        &[]
    }
}

/// Applies the task-checkbox normalization to a whole buffer.
///
/// ```
/// let out = ledger_core::tasks::normalize_tasks(b"- [x] 1.1 [core] Do it\n- [x] done\n");
/// assert_eq!(out, b"- [ ] 1.1 [core] Do it\n- [x] done\n");
/// ```
pub fn normalize_tasks(input: &[u8]) -> Vec<u8> {
    normalize_tasks_with(input, TaskRule::TaskCheckboxV1)
}

/// Applies the Tasks normalization of `rule` to a whole buffer
/// (docs/format.md §4).
///
/// ```
/// use ledger_core::tasks::{normalize_tasks_with, TaskRule};
/// let out = normalize_tasks_with(b"  * [X] 1.1 Do it\n", TaskRule::OpenspecCheckbox);
/// assert_eq!(out, b"  * [ ] 1.1 Do it\n");
/// ```
pub fn normalize_tasks_with(input: &[u8], rule: TaskRule) -> Vec<u8> {
    let mut out = VecOutput::with_capacity(input.len());
    let mut normalizer = TasksNormalizer::new(rule);
    normalizer.update(input, &mut out);
    normalizer.finish(&mut out);
    out.into_bytes()
}

/// The streaming normalizer of either rule.
#[derive(Debug, Clone)]
pub(crate) enum TasksNormalizer {
    /// `task-checkbox-v1`.
    V1(Normalizer),
    /// `openspec-checkbox`.
    Openspec(OpenspecNormalizer),
}

impl TasksNormalizer {
    /// A normalizer of `rule` at the start of a file.
    pub(crate) fn new(rule: TaskRule) -> Self {
        match rule {
            TaskRule::TaskCheckboxV1 => TasksNormalizer::V1(Normalizer::default()),
            TaskRule::OpenspecCheckbox => TasksNormalizer::Openspec(OpenspecNormalizer::default()),
        }
    }

    /// Feeds the next chunk of the file.
    pub(crate) fn update(&mut self, chunk: &[u8], out: &mut impl Output) {
        match self {
            TasksNormalizer::V1(n) => n.update(chunk, out),
            TasksNormalizer::Openspec(n) => n.update(chunk, out),
        }
    }

    /// Ends the input, deciding a pending candidate.
    pub(crate) fn finish(self, out: &mut impl Output) {
        match self {
            TasksNormalizer::V1(n) => n.finish(out),
            TasksNormalizer::Openspec(n) => n.finish(out),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use proptest::prelude::*;
    use sha2::{Digest as _, Sha256};

    /// The naive whole-buffer reference the fuzz target uses too.
    fn reference(input: &[u8]) -> Vec<u8> {
        crate::tasks::reference::reference_normalize(input)
    }

    fn chunked_hash(input: &[u8], cuts: &[usize]) -> [u8; 32] {
        let mut out = HashOutput::default();
        let mut n = Normalizer::default();
        let mut start = 0;
        for &cut in cuts {
            let cut = cut.clamp(start, input.len());
            n.update(&input[start..cut], &mut out);
            start = cut;
        }
        n.update(&input[start..], &mut out);
        n.finish(&mut out);
        out.finalize()
    }

    /// Inputs rich in the bytes the grammar cares about, so that near-misses abound.
    fn task_like() -> impl Strategy<Value = Vec<u8>> {
        let atoms = prop_oneof![
            Just(b"- [x] ".to_vec()),
            Just(b"- [ ] ".to_vec()),
            Just(b"- [x".to_vec()),
            Just(b"1.2 [core] a".to_vec()),
            Just(b"12".to_vec()),
            Just(b".".to_vec()),
            Just(b" ".to_vec()),
            Just(b"[".to_vec()),
            Just(b"]".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"x".to_vec()),
            any::<u8>().prop_map(|b| vec![b]),
        ];
        prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn whole_buffer_matches_reference(input in task_like()) {
            prop_assert_eq!(normalize_tasks(&input), reference(&input));
        }

        #[test]
        fn every_chunking_gives_the_same_digest(
            input in task_like(),
            mut cuts in prop::collection::vec(0usize..200, 0..12),
        ) {
            cuts.sort_unstable();
            let expected: [u8; 32] = Sha256::digest(reference(&input)).into();
            prop_assert_eq!(chunked_hash(&input, &cuts), expected);
        }

        #[test]
        fn byte_at_a_time_equals_one_shot(input in task_like()) {
            let cuts: Vec<usize> = (0..input.len()).collect();
            prop_assert_eq!(chunked_hash(&input, &cuts), chunked_hash(&input, &[]));
        }
    }

    #[test]
    fn unterminated_candidate_at_eof_is_kept() {
        assert_eq!(normalize_tasks(b"- [x] 1.1 [co"), b"- [x] 1.1 [co");
        assert_eq!(normalize_tasks(b"- [x"), b"- [x");
        assert_eq!(normalize_tasks(b"- [x] 1.1 [a]"), b"- [ ] 1.1 [a]");
    }

    #[test]
    fn newline_inside_area_rejects() {
        assert_eq!(
            normalize_tasks(b"- [x] 1.1 [a\n]\n- [x] 2.2 [b]\n"),
            b"- [x] 1.1 [a\n]\n- [ ] 2.2 [b]\n"
        );
    }
}
