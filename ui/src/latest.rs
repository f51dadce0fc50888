//! Answers that can overtake each other: the host serves commands
//! concurrently, so a list asked for before a filter changed can arrive after
//! the one asked for after it. Each answer is taken only if nothing newer was
//! asked since.

use leptos::prelude::*;

/// Numbers the requests for one thing (a list, a preview, search results).
#[derive(Clone, Copy)]
pub(crate) struct Latest(StoredValue<u64>);

/// One request: [`Ticket::is_newest`] says whether its answer still counts.
#[derive(Clone, Copy)]
pub(crate) struct Ticket {
    asked: StoredValue<u64>,
    number: u64,
}

impl Latest {
    pub(crate) fn new() -> Self {
        Self(StoredValue::new(0))
    }

    /// A new request: every one asked before it is now stale.
    pub(crate) fn ask(self) -> Ticket {
        let number = self.0.try_get_value().unwrap_or(0).wrapping_add(1);
        self.0.set_value(number);
        Ticket {
            asked: self.0,
            number,
        }
    }

    /// A request that adds to the newest one (its next page): stale as soon
    /// as anything else is asked.
    pub(crate) fn join(self) -> Ticket {
        Ticket {
            asked: self.0,
            number: self.0.try_get_value().unwrap_or(0),
        }
    }
}

impl Ticket {
    /// Nothing was asked since this; `false` too once whatever asked is gone.
    pub(crate) fn is_newest(self) -> bool {
        self.asked.try_get_value() == Some(self.number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_request_counts() {
        let latest = Latest::new();
        let first = latest.ask();
        assert!(first.is_newest());
        let page = latest.join();
        assert!(
            page.is_newest() && first.is_newest(),
            "a next page supersedes nothing"
        );
        let second = latest.ask();
        assert!(!first.is_newest() && !page.is_newest());
        assert!(second.is_newest());
    }

    #[test]
    fn a_request_whose_asker_is_gone_is_stale() {
        let latest = Latest::new();
        let ticket = latest.ask();
        latest.0.dispose();
        assert!(!ticket.is_newest());
        assert!(!latest.ask().is_newest());
    }
}
