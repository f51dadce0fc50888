//! A channel's framing: every message carries the index it was sent with,
//! and the end marker how many messages came before. The page's outbox
//! hands them over in the order they were queued; two senders on one
//! channel could still queue them out of order, so they are put back in
//! order here.

use std::collections::BTreeMap;

/// One raw channel message, as the webview hands it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Incoming<T> {
    Message {
        index: u64,
        message: T,
    },
    /// The host dropped its end after `index` messages.
    End {
        index: u64,
    },
}

/// Puts a channel's messages back in the order they were sent.
#[derive(Debug)]
pub(crate) struct ChannelOrder<T> {
    next: u64,
    held: BTreeMap<u64, T>,
    end_at: Option<u64>,
}

impl<T> Default for ChannelOrder<T> {
    fn default() -> Self {
        Self {
            next: 0,
            held: BTreeMap::new(),
            end_at: None,
        }
    }
}

impl<T> ChannelOrder<T> {
    /// Takes one raw message; answers the messages now due, in send order.
    pub(crate) fn take(&mut self, incoming: Incoming<T>) -> Vec<T> {
        match incoming {
            Incoming::End { index } => {
                self.end_at = Some(index);
                Vec::new()
            }
            // A repeat or a message after the end would break the order.
            Incoming::Message { index, .. }
                if index < self.next || self.end_at.is_some_and(|end| index >= end) =>
            {
                Vec::new()
            }
            Incoming::Message { index, message } => {
                self.held.insert(index, message);
                let mut due = Vec::new();
                while let Some(message) = self.held.remove(&self.next) {
                    due.push(message);
                    self.next += 1;
                }
                due
            }
        }
    }

    /// Whether every message before the end marker has been handed out.
    pub(crate) fn is_over(&self) -> bool {
        self.end_at.is_some_and(|end| self.next >= end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(index: u64, text: &'static str) -> Incoming<&'static str> {
        Incoming::Message {
            index,
            message: text,
        }
    }

    #[test]
    fn messages_come_out_in_send_order() {
        let mut order = ChannelOrder::default();
        assert_eq!(order.take(message(1, "b")), Vec::<&str>::new());
        assert_eq!(order.take(message(2, "c")), Vec::<&str>::new());
        assert_eq!(order.take(message(0, "a")), ["a", "b", "c"]);
        assert_eq!(order.take(message(3, "d")), ["d"]);
        assert!(!order.is_over());
    }

    #[test]
    fn the_end_waits_for_the_messages_sent_before_it() {
        let mut order = ChannelOrder::default();
        assert_eq!(order.take(message(0, "a")), ["a"]);
        // The fetched message 1 is still on its way when the end arrives.
        assert_eq!(order.take(Incoming::End { index: 2 }), Vec::<&str>::new());
        assert!(!order.is_over());
        assert_eq!(order.take(message(1, "b")), ["b"]);
        assert!(order.is_over());
    }

    #[test]
    fn an_empty_stream_is_over_at_its_end() {
        let mut order = ChannelOrder::<&str>::default();
        order.take(Incoming::End { index: 0 });
        assert!(order.is_over());
    }

    #[test]
    fn repeats_and_messages_after_the_end_are_dropped() {
        let mut order = ChannelOrder::default();
        assert_eq!(order.take(message(0, "a")), ["a"]);
        assert_eq!(order.take(message(0, "a again")), Vec::<&str>::new());
        order.take(Incoming::End { index: 1 });
        assert_eq!(order.take(message(1, "late")), Vec::<&str>::new());
        assert!(order.is_over());
    }
}
