//! What one call keeps while it runs: a call that evaluates many scopes
//! (`ledger check` of many changes, `status`, `gate check --all`) opens each
//! repository once, reads each index once, reads the digest cache once and
//! each record once, as one git command reads its configuration once. Each
//! module keeps its own value here, by type; nothing outlives the call.

use std::any::Any;
use std::cell::RefCell;

thread_local! {
    /// The values kept on this thread while [`opened_once`] runs, one per
    /// type; `None` outside.
    static KEPT: RefCell<Option<Vec<Box<dyn Any>>>> = const { RefCell::new(None) };
}

/// Runs `work` as one call: what the modules keep while it runs
/// ([`kept_for_the_call`]) is shared by everything it does on this thread and
/// dropped when it ends. Within a call already running, `work` shares it.
/// Nothing within `work` may change what a kept value relies on without the
/// value noticing (a repository's configuration; an index or a cache file is
/// kept with its status and read again when that changed).
pub(crate) fn opened_once<R>(work: impl FnOnce() -> R) -> R {
    /// Puts back what was there before, however `work` ends.
    struct Restore(Option<Vec<Box<dyn Any>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            KEPT.set(self.0.take());
        }
    }
    if KEPT.with_borrow(Option::is_some) {
        return work();
    }
    let _restore = Restore(KEPT.replace(Some(Vec::new())));
    work()
}

/// Runs `use_it` on the value of type `T` kept for the call [`opened_once`]
/// runs on this thread (`T::default()` the first time), and gives what it
/// returns; `None` outside a call. What is kept must stay true for the whole
/// call, or be checked before each use. `use_it` must not call this function.
pub(crate) fn kept_for_the_call<T: Default + 'static, R>(
    use_it: impl FnOnce(&mut T) -> R,
) -> Option<R> {
    KEPT.with_borrow_mut(|kept| {
        let kept = kept.as_mut()?;
        let at = match kept.iter().position(|value| value.is::<T>()) {
            Some(at) => at,
            None => {
                kept.push(Box::new(T::default()));
                kept.len() - 1
            }
        };
        kept[at].downcast_mut::<T>().map(use_it)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Count(u32);

    #[test]
    fn a_value_lives_for_one_call_and_nested_calls_share_it() {
        assert_eq!(
            kept_for_the_call(|c: &mut Count| c.0),
            None,
            "outside a call"
        );
        let seen = opened_once(|| {
            kept_for_the_call(|c: &mut Count| c.0 += 1);
            opened_once(|| kept_for_the_call(|c: &mut Count| c.0 += 1));
            kept_for_the_call(|c: &mut Count| c.0)
        });
        assert_eq!(seen, Some(2));
        let again = opened_once(|| kept_for_the_call(|c: &mut Count| c.0));
        assert_eq!(again, Some(0), "a new call starts afresh");
    }
}
