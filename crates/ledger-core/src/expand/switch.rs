//! A process-wide setting that is on or off: what a call last chose, else what
//! an environment variable says (read at each use), else a default. The digest
//! cache is such a setting.

use std::ffi::OsStr;
use std::sync::atomic::{AtomicU8, Ordering};

/// One setting (see the module documentation).
pub(crate) struct Switch {
    /// Unset (0: the environment decides), on (1) or off (2).
    chosen: AtomicU8,
    /// The environment variable that decides while no call chose.
    env: &'static str,
    /// What the setting is when the variable is set to anything but empty or
    /// `0`; unset, it is the opposite.
    when_set: bool,
}

impl Switch {
    /// A setting that `env` decides until [`Switch::set`] is called: `when_set`
    /// when it is set to anything but empty or `0`, the opposite otherwise.
    pub(crate) const fn new(env: &'static str, when_set: bool) -> Switch {
        Switch {
            chosen: AtomicU8::new(0),
            env,
            when_set,
        }
    }

    /// Chooses the setting for every later use in this process.
    pub(crate) fn set(&self, on: bool) {
        self.chosen.store(if on { 1 } else { 2 }, Ordering::Relaxed);
    }

    /// Whether the setting is on now.
    pub(crate) fn on(&self) -> bool {
        match self.chosen.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => is_set(std::env::var_os(self.env).as_deref()) == self.when_set,
        }
    }
}

/// Whether an environment variable's value counts as set: anything but
/// absent, empty or `0`.
fn is_set(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variable_counts_as_set_unless_absent_empty_or_zero() {
        assert!(!is_set(None));
        assert!(!is_set(Some(OsStr::new(""))));
        assert!(!is_set(Some(OsStr::new("0"))));
        assert!(is_set(Some(OsStr::new("1"))));
        assert!(is_set(Some(OsStr::new("yes"))));
    }

    #[test]
    fn a_call_overrides_the_environment() {
        let switch = Switch::new("LEDGER_TEST_SWITCH_NEVER_SET", true);
        assert!(!switch.on());
        switch.set(true);
        assert!(switch.on());
        switch.set(false);
        assert!(!switch.on());
    }
}
