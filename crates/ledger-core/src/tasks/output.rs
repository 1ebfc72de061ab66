//! Where a Tasks normalizer writes: a hashing output that forks its SHA-256
//! state while a candidate line is pending, or a byte vector patched in place.
//! Both normalizers (task-checkbox-v1, openspec-checkbox) write through it.

use sha2::{Digest as _, Sha256};

/// Where a normalizer writes its output.
pub(crate) trait Output {
    /// Appends bytes that are final (or, during a candidate, common to both outcomes).
    fn write(&mut self, bytes: &[u8]);
    /// A candidate starts: `kept` (written if the line does not qualify) or
    /// `rewritten` (same length, if it does) is the output's to write, in
    /// whichever form the pending decision will pick.
    fn begin_candidate(&mut self, kept: &[u8], rewritten: &'static [u8]);
    /// The pending candidate was (`true`) or was not rewritten.
    fn decide(&mut self, rewrite: bool);
}

/// An [`Output`] that hashes, forking the SHA-256 state while a candidate is pending.
#[derive(Default, Clone)]
pub(crate) struct HashOutput {
    /// The state for "not rewritten" (and for everything outside candidates).
    hasher: Sha256,
    /// During a candidate: the state for "rewritten".
    rewritten: Option<Sha256>,
}

impl HashOutput {
    /// The digest of everything written, once the normalizer has finished.
    pub(crate) fn finalize(self) -> [u8; 32] {
        debug_assert!(self.rewritten.is_none(), "finish() decides every candidate");
        self.hasher.finalize().into()
    }
}

impl Output for HashOutput {
    fn write(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        if let Some(alt) = &mut self.rewritten {
            alt.update(bytes);
        }
    }

    fn begin_candidate(&mut self, kept: &[u8], rewritten: &'static [u8]) {
        let mut alt = self.hasher.clone();
        alt.update(rewritten);
        self.hasher.update(kept);
        self.rewritten = Some(alt);
    }

    fn decide(&mut self, rewrite: bool) {
        if let Some(alt) = self.rewritten.take()
            && rewrite
        {
            self.hasher = alt;
        }
    }
}

/// An [`Output`] into a byte vector: the candidate's bytes are patched in place.
#[derive(Default)]
pub(crate) struct VecOutput {
    bytes: Vec<u8>,
    /// Where the pending candidate's bytes start, and what they become if rewritten.
    pending: Option<(usize, &'static [u8])>,
}

impl VecOutput {
    /// An output with room for `capacity` bytes.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        VecOutput {
            bytes: Vec::with_capacity(capacity),
            pending: None,
        }
    }

    /// Everything written, once the normalizer has finished.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

impl Output for VecOutput {
    fn write(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    fn begin_candidate(&mut self, kept: &[u8], rewritten: &'static [u8]) {
        self.pending = Some((self.bytes.len(), rewritten));
        self.bytes.extend_from_slice(kept);
    }

    fn decide(&mut self, rewrite: bool) {
        if let Some((at, rewritten)) = self.pending.take()
            && rewrite
        {
            self.bytes[at..at + rewritten.len()].copy_from_slice(rewritten);
        }
    }
}
