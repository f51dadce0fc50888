//! The host's message queues, as this window knows them. The host owns
//! them; the window hears the whole queue in `queue_changed`, reads it with
//! the thread, and learns of one message in `queue_add`'s answer. Those can
//! arrive in any order, so an answer asked for before the latest whole queue
//! arrived is older than it and is not applied.

use pizza_protocol::{QueuedMessage, ThreadId};
use std::collections::HashMap;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Queues {
    threads: HashMap<ThreadId, ThreadQueue>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ThreadQueue {
    /// How many whole queues the host has sent for the thread.
    version: u64,
    /// Oldest first.
    queued: Vec<QueuedMessage>,
}

impl Queues {
    /// The thread's queue, oldest first.
    pub(crate) fn of(&self, thread_id: &str) -> &[QueuedMessage] {
        self.threads
            .get(thread_id)
            .map_or(&[], |queue| queue.queued.as_slice())
    }

    /// Where the thread's queue is now: take it before asking the host, and
    /// give it back with the answer.
    pub(crate) fn version(&self, thread_id: &str) -> u64 {
        self.threads.get(thread_id).map_or(0, |queue| queue.version)
    }

    /// The whole queue from `queue_changed`: always the newest word.
    pub(crate) fn replace(&mut self, thread_id: ThreadId, queued: Vec<QueuedMessage>) {
        let queue = self.threads.entry(thread_id).or_default();
        queue.version += 1;
        queue.queued = queued;
    }

    /// The queue read with the thread (`thread_get`), asked for at `asked_at`.
    /// A thread read with nothing queued, and never heard of before, adds
    /// nothing: no entry is the same word (version 0, empty), and a window
    /// that opens many threads does not keep one for each.
    pub(crate) fn seed(&mut self, thread_id: ThreadId, asked_at: u64, queued: Vec<QueuedMessage>) {
        if queued.is_empty() && !self.threads.contains_key(&thread_id) {
            return;
        }
        let queue = self.threads.entry(thread_id).or_default();
        if queue.version == asked_at {
            queue.queued = queued;
        }
    }

    /// A message `queue_add` says it queued, asked for at `asked_at`.
    pub(crate) fn add(&mut self, thread_id: ThreadId, asked_at: u64, message: QueuedMessage) {
        let queue = self.threads.entry(thread_id).or_default();
        if queue.version == asked_at && !queue.queued.iter().any(|m| m.id == message.id) {
            queue.queued.push(message);
        }
    }

    /// A message `queue_remove` took out.
    pub(crate) fn remove(&mut self, thread_id: &str, queued_id: &str) {
        if let Some(queue) = self.threads.get_mut(thread_id) {
            queue.queued.retain(|m| m.id != queued_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str) -> QueuedMessage {
        QueuedMessage {
            id: id.into(),
            text: format!("text of {id}"),
            model: None,
            attachments: Vec::new(),
            created_at: 0,
        }
    }

    fn ids(queues: &Queues, thread_id: &str) -> Vec<String> {
        queues.of(thread_id).iter().map(|m| m.id.clone()).collect()
    }

    #[test]
    fn an_added_message_shows_until_the_host_sends_the_whole_queue() {
        let mut queues = Queues::default();
        let asked_at = queues.version("t");
        queues.add("t".into(), asked_at, message("q1"));
        assert_eq!(ids(&queues, "t"), ["q1"]);
        queues.replace("t".into(), vec![message("q1"), message("q2")]);
        assert_eq!(ids(&queues, "t"), ["q1", "q2"]);
        // The host took q1 to start a run.
        queues.replace("t".into(), vec![message("q2")]);
        assert_eq!(ids(&queues, "t"), ["q2"]);
    }

    #[test]
    fn an_answer_older_than_the_whole_queue_is_not_applied() {
        let mut queues = Queues::default();
        let asked_at = queues.version("t");
        // queue_changed: q1 queued, then already taken to start its run...
        queues.replace("t".into(), vec![message("q1")]);
        queues.replace("t".into(), Vec::new());
        // ...and only then queue_add's answer arrives.
        queues.add("t".into(), asked_at, message("q1"));
        assert_eq!(ids(&queues, "t"), Vec::<String>::new());
        // The same for a thread read in flight.
        queues.seed("t".into(), asked_at, vec![message("old")]);
        assert_eq!(ids(&queues, "t"), Vec::<String>::new());
    }

    #[test]
    fn a_thread_read_with_nothing_queued_keeps_no_entry() {
        let mut queues = Queues::default();
        queues.seed("t".into(), 0, Vec::new());
        assert_eq!(queues, Queues::default());
        // What is kept still counts: the whole queue emptied stays heard.
        queues.replace("t".into(), Vec::new());
        let heard = queues.version("t");
        queues.seed("t".into(), 0, vec![message("old")]);
        assert_eq!(heard, 1);
        assert_eq!(ids(&queues, "t"), Vec::<String>::new());
    }

    #[test]
    fn a_message_is_listed_once_whichever_word_comes_first() {
        let mut queues = Queues::default();
        let asked_at = queues.version("t");
        queues.seed("t".into(), asked_at, vec![message("q1")]);
        queues.add("t".into(), asked_at, message("q1"));
        assert_eq!(ids(&queues, "t"), ["q1"]);
    }

    #[test]
    fn removing_takes_only_that_message_of_that_thread() {
        let mut queues = Queues::default();
        queues.replace("t".into(), vec![message("q1"), message("q2")]);
        queues.replace("u".into(), vec![message("q1")]);
        queues.remove("t", "q1");
        assert_eq!(ids(&queues, "t"), ["q2"]);
        assert_eq!(ids(&queues, "u"), ["q1"]);
        queues.remove("nowhere", "q1");
    }
}
