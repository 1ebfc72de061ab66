//! The tasks wing: how a Tasks file's lines are read and normalized under a
//! [`TaskRule`] (docs/format.md §4). It stands on the ground floor only and
//! knows nothing of scopes, OpenSpec changes, approvals or the store: the
//! expansion (`crate::expand`) hashes a Tasks file through
//! [`normalize`](self::normalize_tasks_with)'s streaming normalizer, and the
//! upper wings read a change's Tasks file through [`read_tasks`].
//!
//! Where a rule goes: a new rule is a [`TaskRule`] variant, a normalizer
//! writing through the one output (`output.rs`), and its line reader in
//! `reader.rs`; the normalization rewrites exactly the done tasks the reader
//! finds, which the property tests check.
//!
//! ```
//! use ledger_core::tasks::{TaskRule, normalize_tasks_with, read_tasks};
//!
//! let text = b"- [x] 1.1 [core] Write it\n- [ ] 1.2 [core] Test it\n";
//! let tasks = read_tasks(text, TaskRule::TaskCheckboxV1);
//! assert_eq!(tasks.completed_ids(), ["1.1"]);
//! // Ticking a box changes no fingerprint: the normalized bytes are hashed.
//! assert_eq!(
//!     normalize_tasks_with(text, TaskRule::TaskCheckboxV1),
//!     normalize_tasks_with(b"- [ ] 1.1 [core] Write it\n- [ ] 1.2 [core] Test it\n", TaskRule::TaskCheckboxV1),
//! );
//! ```

pub(crate) mod normalize;
pub(crate) mod openspec;
pub(crate) mod output;
pub(crate) mod reader;
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) mod reference;
pub(crate) mod rule;

pub use normalize::{normalize_tasks, normalize_tasks_with};
pub use reader::{Task, Tasks, read_tasks, read_tasks_file, unseen_tasks};
pub use rule::TaskRule;
