//! The `openspec-checkbox` normalization (docs/format.md §4.2), as a streaming
//! transducer.
//!
//! A line (bytes up to `\n`) is a checked OpenSpec task when it matches what
//! OpenSpec 1.13's `TASK_LINE_PATTERN` accepts with an `x`/`X` token:
//! `^\s*(?:[-*+]|\d{1,9}[.)])\s*\[\s*[xX]\s*\](?![([])`, `\s` being
//! JavaScript's (`js_space`). That `x` becomes a space; nothing else changes.
//!
//! Whether an `x` is rewritten is known only once its `]` and the character
//! after it arrived, and the whitespace between them may be arbitrarily long.
//! As in `task-checkbox-v1`, the transducer tells its [`Output`] that a
//! candidate byte starts and later decides it, so memory stays constant and
//! the result does not depend on how the file is cut into chunks.

use crate::js_space::{Wide, classify_wide, is_ascii_space};
use crate::tasks::output::Output;

/// What a checked box's token becomes.
const SPACE: &[u8] = b" ";

/// Where in a line the matcher stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// `^\s*`, before the list marker.
    Indent,
    /// In an ordered marker's digits (this many so far, at most nine).
    Digits(u8),
    /// `\s*` after the marker, before `[`.
    BeforeBox,
    /// `\s*` after `[`, before the token.
    BoxLead,
    /// The token was `x`/`X` (a pending candidate); `\s*` before `]`.
    Marked,
    /// The candidate's `]` arrived; the next character decides (`(` or `[`
    /// would continue a Markdown link, which OpenSpec does not count).
    Closed,
    /// The line is not a checked task: copy to its end.
    Rest,
}

/// One step of the matcher on one byte.
enum Step {
    /// The byte belongs to the pattern so far.
    Consume,
    /// The byte is the token of a candidate.
    Candidate,
    /// The line is no candidate (the byte is left to [`State::Rest`]).
    Reject,
    /// The pending candidate is decided (the byte is left to [`State::Rest`]).
    Decide(bool),
}

/// The streaming `openspec-checkbox` normalizer.
#[derive(Debug, Clone)]
pub(crate) struct OpenspecNormalizer {
    state: State,
    /// The bytes of a wide whitespace character begun but not complete.
    wide: [u8; 3],
    wide_len: u8,
}

impl Default for OpenspecNormalizer {
    fn default() -> Self {
        OpenspecNormalizer {
            state: State::Indent,
            wide: [0; 3],
            wide_len: 0,
        }
    }
}

impl OpenspecNormalizer {
    /// Feeds the next chunk of the file.
    pub(crate) fn update(&mut self, chunk: &[u8], out: &mut impl Output) {
        // `chunk[written..]` is not yet written: consecutive bytes go out in one call.
        let mut written = 0;
        let mut i = 0;
        while i < chunk.len() {
            if self.state == State::Rest {
                match memchr::memchr(b'\n', &chunk[i..]) {
                    Some(n) => {
                        i += n + 1;
                        self.state = State::Indent;
                        continue;
                    }
                    None => break,
                }
            }
            match self.step(chunk[i]) {
                Step::Consume => i += 1,
                Step::Reject => {}
                Step::Candidate => {
                    out.write(&chunk[written..i]);
                    out.begin_candidate(&chunk[i..=i], SPACE);
                    i += 1;
                    written = i;
                }
                Step::Decide(rewrite) => {
                    out.write(&chunk[written..i]);
                    written = i;
                    out.decide(rewrite);
                }
            }
        }
        out.write(&chunk[written..]);
    }

    /// Ends the input. A `]` at the very end passes the "not followed by `(`
    /// or `[`" test; a candidate still missing its `]` fails.
    pub(crate) fn finish(mut self, out: &mut impl Output) {
        if let Step::Decide(rewrite) = self.end_line() {
            out.decide(rewrite);
        }
    }

    /// Advances on `b`; a byte that is not consumed is left to [`State::Rest`].
    fn step(&mut self, b: u8) -> Step {
        if self.wide_len > 0 {
            return self.step_wide(b);
        }
        match (self.state, b) {
            (_, b'\n') => self.end_line(),
            (State::Indent | State::BeforeBox | State::BoxLead | State::Marked, b)
                if is_ascii_space(b) =>
            {
                Step::Consume
            }
            (State::Indent | State::BeforeBox | State::BoxLead | State::Marked, 0x80..=0xff)
                if classify_wide(&[b]) == Wide::Partial =>
            {
                self.wide = [b, 0, 0];
                self.wide_len = 1;
                Step::Consume
            }
            (State::Indent, b'-' | b'*' | b'+') => self.go(State::BeforeBox),
            (State::Indent, b'0'..=b'9') => self.go(State::Digits(1)),
            (State::Digits(n), b'0'..=b'9') if n < 9 => self.go(State::Digits(n + 1)),
            (State::Digits(_), b'.' | b')') => self.go(State::BeforeBox),
            (State::BeforeBox, b'[') => self.go(State::BoxLead),
            (State::BoxLead, b'x' | b'X') => {
                self.state = State::Marked;
                Step::Candidate
            }
            (State::Marked, b']') => self.go(State::Closed),
            (State::Closed, b'(' | b'[') => {
                self.state = State::Rest;
                Step::Decide(false)
            }
            _ => self.end_line(),
        }
    }

    /// Continues a wide whitespace character with `b`.
    fn step_wide(&mut self, b: u8) -> Step {
        let len = usize::from(self.wide_len);
        self.wide[len] = b;
        match classify_wide(&self.wide[..=len]) {
            Wide::Partial => {
                self.wide_len += 1;
                Step::Consume
            }
            Wide::Complete => {
                self.wide_len = 0;
                Step::Consume
            }
            // The bytes so far decode to a character that is not whitespace
            // (nor ASCII): the pattern fails at it. `b` itself is left to
            // `Rest` (it may be the `\n` that ends the line).
            Wide::No => {
                self.wide_len = 0;
                self.end_line()
            }
        }
    }

    fn go(&mut self, state: State) -> Step {
        self.state = state;
        Step::Consume
    }

    /// The line goes no further as a candidate: a closed candidate is a task
    /// (the end of the line or any other character follows its `]`), a
    /// pending one is not.
    fn end_line(&mut self) -> Step {
        let was = std::mem::replace(&mut self.state, State::Rest);
        self.wide_len = 0;
        match was {
            State::Closed => Step::Decide(true),
            State::Marked => Step::Decide(false),
            _ => Step::Reject,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::tasks::TaskRule;
    use crate::tasks::normalize::{HashOutput, normalize_tasks_with};
    use crate::tasks::reference::reference_openspec;
    use proptest::prelude::*;
    use sha2::{Digest as _, Sha256};

    fn normalize(input: &[u8]) -> Vec<u8> {
        normalize_tasks_with(input, TaskRule::OpenspecCheckbox)
    }

    fn chunked_hash(input: &[u8], cuts: &[usize]) -> [u8; 32] {
        let mut out = HashOutput::default();
        let mut n = OpenspecNormalizer::default();
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

    /// Inputs rich in what the pattern cares about: markers, boxes, every
    /// kind of whitespace (and broken halves of wide ones), link brackets.
    fn task_like() -> impl Strategy<Value = Vec<u8>> {
        let atoms = prop_oneof![
            Just(b"- [x] ".to_vec()),
            Just(b"* [X]".to_vec()),
            Just(b"+ [ ]".to_vec()),
            Just(b"12. [x]".to_vec()),
            Just(b"123456789) [x]".to_vec()),
            Just(b"1234567890. [x]".to_vec()),
            Just(b"-[x](".to_vec()),
            Just(b"[ x ]".to_vec()),
            Just(b"[x".to_vec()),
            Just(b"1.1 Do it".to_vec()),
            Just(b"-".to_vec()),
            Just(b"1".to_vec()),
            Just(b".".to_vec()),
            Just(b")".to_vec()),
            Just(b"[".to_vec()),
            Just(b"]".to_vec()),
            Just(b"(".to_vec()),
            Just(b"x".to_vec()),
            Just(b"X".to_vec()),
            Just(b" ".to_vec()),
            Just(b"\t".to_vec()),
            Just(b"\x0b\x0c".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\xef\xbb\xbf".to_vec()),
            Just(b"\xc2\xa0".to_vec()),
            Just(b"\xe2\x80\x83".to_vec()),
            Just(b"\xe2\x80\xa8".to_vec()),
            Just(b"\xe3\x80\x80".to_vec()),
            Just(b"\xe2\x80".to_vec()),
            Just(b"\xc2".to_vec()),
            Just(b"\xc2\x85".to_vec()),
            Just("é😀".as_bytes().to_vec()),
            any::<u8>().prop_map(|b| vec![b]),
        ];
        prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn whole_buffer_matches_reference(input in task_like()) {
            prop_assert_eq!(normalize(&input), reference_openspec(&input));
        }

        #[test]
        fn arbitrary_bytes_match_reference(input in prop::collection::vec(any::<u8>(), 0..200)) {
            prop_assert_eq!(normalize(&input), reference_openspec(&input));
        }

        #[test]
        fn every_chunking_gives_the_same_digest(
            input in task_like(),
            mut cuts in prop::collection::vec(0usize..300, 0..16),
        ) {
            cuts.sort_unstable();
            let expected: [u8; 32] = Sha256::digest(reference_openspec(&input)).into();
            prop_assert_eq!(chunked_hash(&input, &cuts), expected);
        }

        #[test]
        fn byte_at_a_time_equals_one_shot(input in task_like()) {
            let cuts: Vec<usize> = (0..input.len()).collect();
            prop_assert_eq!(chunked_hash(&input, &cuts), chunked_hash(&input, &[]));
        }

        #[test]
        fn only_box_tokens_change_and_it_is_idempotent(input in task_like()) {
            let out = normalize(&input);
            prop_assert_eq!(out.len(), input.len());
            for (a, b) in input.iter().zip(&out) {
                prop_assert!(a == b || (matches!(a, b'x' | b'X') && *b == b' '));
            }
            prop_assert_eq!(normalize(&out), out.clone());
        }
    }

    #[test]
    fn openspec_lines() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"- [x] 1.1 Do it\n", b"- [ ] 1.1 Do it\n"),
            (b"  * [X] nested\r\n", b"  * [ ] nested\r\n"),
            (b"1) [x]\n12. [ x ] a", b"1) [ ]\n12. [   ] a"),
            (b"-[x]done", b"-[ ]done"),
            (b"\xef\xbb\xbf- [x] bom", b"\xef\xbb\xbf- [ ] bom"),
            (b"- [x](link) - [x][ref]\n", b"- [x](link) - [x][ref]\n"),
            (b"- [x] a\n- [x", b"- [ ] a\n- [x"),
            (b"- [x]", b"- [ ]"),
            (b"- [xx] two\n", b"- [xx] two\n"),
            (
                b"1234567890. [x] ten digits\n",
                b"1234567890. [x] ten digits\n",
            ),
            (
                b"\xe2\x80- [x] broken space\n",
                b"\xe2\x80- [x] broken space\n",
            ),
            (
                b"\xe2\x80\x83- [x]\xe2\x80\x83\n",
                b"\xe2\x80\x83- [ ]\xe2\x80\x83\n",
            ),
            (b"> - [x] quoted\n", b"> - [x] quoted\n"),
        ];
        for (input, output) in cases {
            assert_eq!(
                normalize(input),
                *output,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn a_long_gap_before_the_bracket_is_streamed() {
        let mut input = b"- [x".to_vec();
        input.extend(std::iter::repeat_n(b' ', 1 << 20));
        input.extend_from_slice(b"]\n");
        let expected: [u8; 32] = Sha256::digest(reference_openspec(&input)).into();
        let cuts: Vec<usize> = (0..input.len()).step_by(4093).collect();
        assert_eq!(chunked_hash(&input, &cuts), expected);
        assert_eq!(normalize(&input)[3], b' ');
    }
}
