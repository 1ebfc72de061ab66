//! Task rules (docs/format.md §4): which lines of a Tasks file are task
//! checkboxes, so that ticking one is progress rather than a content change.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};

/// How a Tasks file's checked boxes are normalized before hashing.
///
/// ```
/// use ledger_core::tasks::TaskRule;
/// let rule: TaskRule = "openspec-checkbox".parse().unwrap();
/// assert_eq!(rule, TaskRule::OpenspecCheckbox);
/// assert_eq!(TaskRule::default().as_str(), "task-checkbox-v1");
/// assert_eq!("nope".parse::<TaskRule>().unwrap_err().code(), "invalid-argument");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum TaskRule {
    /// `task-checkbox-v1` (docs/format.md §4.1): a line starting with
    /// `- [x] N.N [area]` gets `- [ ] `; the default, the seed's format.
    #[default]
    TaskCheckboxV1,
    /// `openspec-checkbox` (docs/format.md §4.2): on every line OpenSpec
    /// 1.13's task counter reads as a task, an `x`/`X` in the box becomes a space.
    OpenspecCheckbox,
}

impl TaskRule {
    /// Every rule, the default first.
    pub const ALL: [TaskRule; 2] = [TaskRule::TaskCheckboxV1, TaskRule::OpenspecCheckbox];

    /// The rule's name, as records, flags and the bindings spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskRule::TaskCheckboxV1 => "task-checkbox-v1",
            TaskRule::OpenspecCheckbox => "openspec-checkbox",
        }
    }

    /// Whether this is the default rule, which a scope does not spell out.
    pub fn is_default(self) -> bool {
        self == TaskRule::default()
    }
}

impl fmt::Display for TaskRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TaskRule {
    type Err = Error;

    /// Parses a rule name; another name is `invalid-argument`, naming the known ones.
    fn from_str(name: &str) -> Result<Self> {
        TaskRule::ALL
            .into_iter()
            .find(|rule| rule.as_str() == name)
            .ok_or_else(|| Error::InvalidArgument {
                message: format!(
                    "unknown task rule '{}'; the rules are {}",
                    crate::quote::escape(name.as_bytes()),
                    TaskRule::ALL.map(TaskRule::as_str).join(", ")
                ),
            })
    }
}

impl Serialize for TaskRule {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for TaskRule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_round_trip_through_text_and_json() {
        for rule in TaskRule::ALL {
            assert_eq!(rule.as_str().parse::<TaskRule>().unwrap(), rule);
            let json = serde_json::to_string(&rule).unwrap();
            assert_eq!(json, format!("\"{rule}\""));
            assert_eq!(serde_json::from_str::<TaskRule>(&json).unwrap(), rule);
        }
        let err = "Openspec-Checkbox".parse::<TaskRule>().unwrap_err();
        assert!(err.to_string().contains("openspec-checkbox"), "{err}");
        assert!(serde_json::from_str::<TaskRule>("\"v2\"").is_err());
    }
}
