//! The lifecycle wing: the end of a change (docs/lifecycle.md). A validation
//! PASS binds the whole change — every artifact's approval, every gate the
//! PASS names, the delivery and the expected spec sync — to one fingerprint
//! ([`record_validation`], [`check_validation`]); finalization checks, after
//! `openspec archive`, that what was archived and synced is exactly what was
//! validated ([`finalize_check`]). A resuming session reads all of it, with
//! the store's health, in one report ([`resume_check`], [`list_changes`]).
//!
//! It is the top wing: it uses approvals, gates, OpenSpec, records and the
//! expansion, and nothing uses it but the doors.

pub(crate) mod finalize;
pub(crate) mod resume;
pub(crate) mod validation;
pub(crate) mod work;
pub(crate) mod workspace_checks;

pub use finalize::{ArchiveMove, Finalization, MovedFile, finalize_check};
pub use resume::{
    ChangeResume, ChangeSummary, Resume, ResumeRequest, TaskCount, list_changes, resume_check,
};
pub use validation::{
    COMPLETION_EVIDENCE, COMPLETION_EVIDENCE_REASON, GatePrerequisites, GateStanding,
    PHASE_RECORD_REASON, PhaseRecordKind, PhaseRecordStanding, ValidationCheck, ValidationRequest,
    check_validation, check_validation_with, pass_scope, record_validation,
};
pub use work::{Note, NoteKind, Work, WorkKind};
pub use workspace_checks::DeclaredGateStanding;
