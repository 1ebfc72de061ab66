//! A gate's kept output read back from the store (`ledger gate show`,
//! `gate run --replay`): the bytes its latest (or a given) evidence names.

use crate::error::{Error, Result};
use crate::gate::evidence::{Evidence, latest_evidence};
use crate::gate::output::KeptOutput;
use crate::records::store::{RecordId, Store};

/// A gate's kept output, read from the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateOutput {
    /// The evidence record describing it.
    pub record: RecordId,
    /// What the evidence says of it.
    pub kept: KeptOutput,
    /// The kept bytes, exactly as the command wrote them.
    pub bytes: Vec<u8>,
}

impl GateOutput {
    /// The bytes kept from the start of the output: all of them when it was
    /// not truncated.
    pub fn head(&self) -> &[u8] {
        let cut = self
            .kept
            .truncated
            .map_or(self.bytes.len() as u64, |t| t.head_bytes);
        &self.bytes[..usize::try_from(cut)
            .unwrap_or(usize::MAX)
            .min(self.bytes.len())]
    }

    /// What follows the head: when the output was truncated, the line that
    /// says which bytes and lines were dropped, then the bytes kept from the
    /// end (empty when it was not truncated).
    pub fn tail(&self) -> &[u8] {
        &self.bytes[self.head().len()..]
    }
}

/// The kept output of `evidence` (recorded as `record`): `invalid-argument`
/// when the evidence was written before ledger kept output, otherwise as
/// [`KeptOutput::read`].
pub fn evidence_output(store: &Store, record: RecordId, evidence: &Evidence) -> Result<GateOutput> {
    let kept = evidence.output.clone().ok_or_else(|| Error::InvalidArgument {
        message: format!(
            "evidence record {record} of gate \"{}\" was written before ledger kept a run's output; its result: {}",
            crate::quote::escape(evidence.spec.name().as_bytes()),
            evidence.result.replace('\n', "\\n")
        ),
    })?;
    let bytes = kept.read(store)?;
    Ok(GateOutput {
        record,
        kept,
        bytes,
    })
}

/// The kept output of the latest evidence of `gate`, `None` when it never
/// ran; see [`evidence_output`].
pub fn gate_output(store: &Store, gate: &str) -> Result<Option<GateOutput>> {
    match latest_evidence(store, gate)? {
        None => Ok(None),
        Some((record, evidence)) => evidence_output(store, record, &evidence).map(Some),
    }
}
