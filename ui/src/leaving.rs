//! Memos for views that come and go while what they read stays: a row of
//! the thread list reads the inbox's signals, a skill's, server's or
//! schedule's card its page's list, all of which live as long as the
//! window.
//!
//! Leptos's reactive graph (reactive_graph 0.2) takes a subscriber off a
//! signal's list only when that subscriber runs again. A memo dropped with
//! its row stays on the list of every signal it read, and the list keeps
//! its allocation alive. A row is made again whenever what it shows changes
//! (its title, preview, unread mark), about twice a run, and each time its
//! memos stayed behind, with the lists growing to hold them, for the
//! window's life: with the rows' memos left behind, the UI's live heap grew
//! ~2.8 KB a run once the list was full, ~1 KB with them leaving (the
//! desktop benchmark's soak, counted allocation by allocation). A memo made
//! here leaves what it read as its owner is cleaned up, just before the
//! owner drops it.

use leptos::prelude::*;
use leptos::reactive::graph::{Subscriber, ToAnySubscriber};

/// [`Memo::new`], taken off the lists of what it read when the current
/// owner (a row, a card) is cleaned up. Only for a memo its owner drops
/// then.
pub(crate) fn memo<T>(fun: impl Fn(Option<&T>) -> T + Send + Sync + 'static) -> Memo<T>
where
    T: PartialEq + Send + Sync + 'static,
{
    let memo = ArcMemo::new(fun);
    let leaving = memo.clone();
    on_cleanup(move || leaving.clear_sources(&leaving.to_any_subscriber()));
    Memo::from(memo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use leptos::reactive::owner::Owner;

    /// How many weak references hold the memo's allocation: the memo's
    /// own, this probe's, and each list it is on.
    fn holders(memo: &ArcMemo<bool>) -> usize {
        memo.to_any_subscriber().1.weak_count()
    }

    #[test]
    fn a_memo_leaves_the_signals_it_read_with_its_owner() {
        let root = Owner::new();
        root.set();
        let selected = RwSignal::new(1_u32);
        // A memo that stays, reading the same signal.
        let stays = Memo::new(move |_| selected.get() * 10);
        assert_eq!(stays.get(), 10);

        let row = root.child();
        let (leaves, plain) = row.with(|| {
            let leaves = memo(move |_| selected.get() == 1);
            let plain = Memo::new(move |_| selected.get() == 1);
            assert!(leaves.get() && plain.get());
            (ArcMemo::from(leaves), ArcMemo::from(plain))
        });
        let listed = holders(&plain);
        assert_eq!(holders(&leaves), listed);
        row.cleanup();
        // Ours left the signal's list; a plain memo stays on it.
        assert_eq!(holders(&leaves), listed - 1);
        assert_eq!(holders(&plain), listed);

        // The signal still tells the memos that stay.
        selected.set(2);
        assert_eq!(stays.get(), 20);
    }
}
