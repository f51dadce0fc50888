//! The files waiting to go with the next message, as chips: uploading,
//! ready or refused. Pure state, so the rules (one chip per stored file, at
//! most [`ATTACHMENTS_PER_MESSAGE_MAX`], cleared only by a send the host
//! took) are tested without a window.

use pizza_protocol::{ATTACHMENTS_PER_MESSAGE_MAX, AttachmentView, ThreadId};
use std::collections::HashMap;

/// Where a chip's file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChipState {
    /// Being read or stored by the host.
    Uploading,
    /// Stored: its id goes with the next message.
    Ready(AttachmentView),
    /// Not stored, and why (a sentence from the host or the window).
    Refused(String),
}

/// One chip of the composer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chip {
    /// Names the chip while its upload is in flight (ids come later).
    pub(crate) key: u64,
    pub(crate) name: String,
    pub(crate) state: ChipState,
}

impl Chip {
    /// `uploading`, `ready` or `refused`: the chip's `data-state`.
    pub(crate) fn state_name(&self) -> &'static str {
        match self.state {
            ChipState::Uploading => "uploading",
            ChipState::Ready(_) => "ready",
            ChipState::Refused(_) => "refused",
        }
    }

    fn ready_id(&self) -> Option<&str> {
        match &self.state {
            ChipState::Ready(view) => Some(&view.id),
            _ => None,
        }
    }

    fn counts(&self) -> bool {
        !matches!(self.state, ChipState::Refused(_))
    }
}

/// The chips of one composer, in the order the files came.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Chips {
    list: Vec<Chip>,
    next_key: u64,
}

/// Why a file beyond the limit is not attached.
pub(crate) fn too_many_message() -> String {
    format!("At most {ATTACHMENTS_PER_MESSAGE_MAX} files go with one message; send these first.")
}

impl Chips {
    pub(crate) fn list(&self) -> &[Chip] {
        &self.list
    }

    /// The stored files' ids, in order: what the next message carries.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.list
            .iter()
            .filter_map(|c| c.ready_id().map(str::to_owned))
            .collect()
    }

    /// Whether a file is still on its way (sending waits for it).
    pub(crate) fn uploading(&self) -> bool {
        self.list
            .iter()
            .any(|c| matches!(c.state, ChipState::Uploading))
    }

    fn push(&mut self, name: String, state: ChipState) -> u64 {
        let key = self.next_key;
        self.next_key += 1;
        self.list.push(Chip { key, name, state });
        key
    }

    fn full(&self) -> bool {
        self.list.iter().filter(|c| c.counts()).count() >= ATTACHMENTS_PER_MESSAGE_MAX
    }

    /// Shows `name` uploading and returns its key; a file past the limit
    /// gets a refused chip instead and `None` (nothing to upload).
    pub(crate) fn start(&mut self, name: String) -> Option<u64> {
        if self.full() {
            self.push(name, ChipState::Refused(too_many_message()));
            return None;
        }
        Some(self.push(name, ChipState::Uploading))
    }

    /// A file that was not (or will not be) stored, with the reason.
    pub(crate) fn refuse(&mut self, name: String, message: String) {
        self.push(name, ChipState::Refused(message));
    }

    /// The upload of chip `key` ended. Returns the id of a stored file that
    /// no chip shows (its chip was dismissed meanwhile), for the host to
    /// drop. A file already attached keeps its first chip only.
    pub(crate) fn finish(
        &mut self,
        key: u64,
        result: Result<AttachmentView, String>,
    ) -> Option<String> {
        let Some(index) = self.list.iter().position(|c| c.key == key) else {
            return match result {
                Ok(view) if !self.holds(&view.id) => Some(view.id),
                _ => None,
            };
        };
        match result {
            Ok(view) if self.holds(&view.id) => {
                self.list.remove(index);
            }
            Ok(view) => {
                let chip = &mut self.list[index];
                chip.name.clone_from(&view.name);
                chip.state = ChipState::Ready(view);
            }
            Err(message) => self.list[index].state = ChipState::Refused(message),
        }
        None
    }

    /// A file the host stored at once (the picker's). Returns its id when
    /// it is past the limit, for the host to drop; a file already attached
    /// adds nothing.
    pub(crate) fn add_ready(&mut self, view: AttachmentView) -> Option<String> {
        if self.holds(&view.id) {
            return None;
        }
        if self.full() {
            self.push(view.name, ChipState::Refused(too_many_message()));
            return Some(view.id);
        }
        self.push(view.name.clone(), ChipState::Ready(view));
        None
    }

    /// Takes chip `key` away; returns the id of its stored file, for the
    /// host to drop (an upload in flight is dropped when it ends).
    pub(crate) fn remove(&mut self, key: u64) -> Option<String> {
        let index = self.list.iter().position(|c| c.key == key)?;
        let chip = self.list.remove(index);
        chip.ready_id().map(str::to_owned)
    }

    /// The message carrying `ids` was taken by the host: their chips go, and
    /// so do the refusals that were about it. Files attached meanwhile stay.
    pub(crate) fn sent(&mut self, ids: &[String]) {
        self.list.retain(|c| match &c.state {
            ChipState::Ready(view) => !ids.contains(&view.id),
            ChipState::Refused(_) => false,
            ChipState::Uploading => true,
        });
    }

    fn holds(&self, id: &str) -> bool {
        self.list.iter().any(|c| c.ready_id() == Some(id))
    }
}

/// What a file icon says: the name's extension, short and upper-case
/// (`PDF`, `CSV`), or `FILE`.
pub(crate) fn extension_badge(name: &str) -> String {
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.is_empty() && ext.len() <= 4 => {
            ext.to_ascii_uppercase()
        }
        _ => "FILE".to_owned(),
    }
}

/// Every composer's chips, by thread (`None`: a message that starts a new
/// thread, as quick-ask's). Kept like drafts: switching threads leaves each
/// thread's files with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AttachmentDrafts {
    threads: HashMap<Option<ThreadId>, Chips>,
}

impl AttachmentDrafts {
    pub(crate) fn of(&self, thread_id: &Option<ThreadId>) -> Option<&Chips> {
        self.threads.get(thread_id)
    }

    pub(crate) fn of_mut(&mut self, thread_id: &Option<ThreadId>) -> &mut Chips {
        self.threads.entry(thread_id.clone()).or_default()
    }

    /// A message from the thread was taken: the chips it carried go. A
    /// thread that never had a file keeps no entry (every send passes here).
    pub(crate) fn sent(&mut self, thread_id: &Option<ThreadId>, ids: &[String]) {
        if let Some(chips) = self.threads.get_mut(thread_id) {
            chips.sent(ids);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::AttachmentKind;
    use pretty_assertions::assert_eq;

    fn view(id: &str) -> AttachmentView {
        AttachmentView {
            id: id.into(),
            name: format!("{id}.png"),
            mime: "image/png".into(),
            size: 10,
            kind: AttachmentKind::Image,
            thumbnail: Some(format!("attachment://localhost/{id}")),
        }
    }

    fn states(chips: &Chips) -> Vec<(String, &'static str)> {
        chips
            .list()
            .iter()
            .map(|c| (c.name.clone(), c.state_name()))
            .collect()
    }

    #[test]
    fn an_upload_shows_uploading_then_ready_under_the_stored_name() {
        let mut chips = Chips::default();
        let key = chips.start("shot".into()).unwrap();
        assert!(chips.uploading());
        assert_eq!(chips.finish(key, Ok(view("a"))), None);
        assert!(!chips.uploading());
        assert_eq!(states(&chips), [("a.png".to_owned(), "ready")]);
        assert_eq!(chips.ids(), ["a"]);
    }

    #[test]
    fn a_refused_upload_keeps_its_chip_with_the_sentence() {
        let mut chips = Chips::default();
        let key = chips.start("song.mp3".into()).unwrap();
        chips.finish(key, Err("Not a type a model can read.".into()));
        assert_eq!(
            chips.list()[0].state,
            ChipState::Refused("Not a type a model can read.".into())
        );
        assert_eq!(chips.ids(), Vec::<String>::new());
    }

    #[test]
    fn the_same_file_twice_shows_one_chip() {
        let mut chips = Chips::default();
        let first = chips.start("a.png".into()).unwrap();
        let second = chips.start("a.png".into()).unwrap();
        chips.finish(first, Ok(view("a")));
        // The same stored file: the host's dedupe, not a second upload.
        assert_eq!(chips.finish(second, Ok(view("a"))), None);
        assert_eq!(chips.add_ready(view("a")), None);
        assert_eq!(states(&chips), [("a.png".to_owned(), "ready")]);
        assert_eq!(chips.ids(), ["a"]);
    }

    #[test]
    fn files_past_the_limit_are_refused_on_their_chip() {
        let mut chips = Chips::default();
        for n in 0..ATTACHMENTS_PER_MESSAGE_MAX {
            chips.add_ready(view(&format!("f{n}")));
        }
        assert_eq!(chips.start("one more".into()), None);
        // The picker already stored it: the host is to drop it again.
        assert_eq!(chips.add_ready(view("extra")), Some("extra".to_owned()));
        assert_eq!(chips.ids().len(), ATTACHMENTS_PER_MESSAGE_MAX);
        let refused: Vec<_> = chips.list()[ATTACHMENTS_PER_MESSAGE_MAX..].to_vec();
        assert_eq!(refused.len(), 2);
        assert!(
            refused
                .iter()
                .all(|c| c.state == ChipState::Refused(too_many_message()))
        );
        // Refusals take no place: dismissing one frees nothing, removing a file does.
        chips.remove(refused[0].key);
        assert_eq!(chips.start("still too many".into()), None);
        let first = chips.list()[0].key;
        assert_eq!(chips.remove(first), Some("f0".to_owned()));
        assert!(chips.start("fits now".into()).is_some());
    }

    #[test]
    fn an_upload_whose_chip_was_dismissed_is_dropped_when_it_lands() {
        let mut chips = Chips::default();
        let key = chips.start("a.png".into()).unwrap();
        assert_eq!(chips.remove(key), None);
        assert_eq!(chips.finish(key, Ok(view("a"))), Some("a".to_owned()));
        assert_eq!(chips.finish(key, Err("refused".into())), None);
        assert!(chips.list().is_empty());
    }

    #[test]
    fn a_send_clears_what_it_carried_and_keeps_what_came_since() {
        let mut chips = Chips::default();
        chips.add_ready(view("a"));
        chips.refuse("song.mp3".into(), "No.".into());
        let sent = chips.ids();
        // Attached while the send was in flight.
        chips.add_ready(view("b"));
        let uploading = chips.start("c.png".into()).unwrap();
        chips.sent(&sent);
        assert_eq!(
            states(&chips),
            [
                ("b.png".to_owned(), "ready"),
                ("c.png".to_owned(), "uploading")
            ]
        );
        chips.finish(uploading, Ok(view("c")));
        assert_eq!(chips.ids(), ["b", "c"]);
    }

    #[test]
    fn file_icons_say_the_extension() {
        assert_eq!(extension_badge("report.pdf"), "PDF");
        assert_eq!(extension_badge("data.Csv"), "CSV");
        assert_eq!(extension_badge("Makefile"), "FILE");
        assert_eq!(extension_badge(".env"), "FILE");
        assert_eq!(extension_badge("a.verylongext"), "FILE");
    }

    #[test]
    fn each_thread_keeps_its_own_chips() {
        let mut drafts = AttachmentDrafts::default();
        drafts.of_mut(&Some("t1".into())).add_ready(view("a"));
        drafts.of_mut(&None).add_ready(view("b"));
        assert_eq!(
            drafts.of(&Some("t1".into())).map(Chips::ids),
            Some(vec!["a".into()])
        );
        assert_eq!(drafts.of(&None).map(Chips::ids), Some(vec!["b".into()]));
        assert_eq!(drafts.of(&Some("t2".into())), None);
        // Sending from a thread with no files keeps no entry for it.
        drafts.sent(&Some("t3".into()), &[]);
        assert_eq!(drafts.of(&Some("t3".into())), None);
        drafts.sent(&Some("t1".into()), &["a".into()]);
        assert_eq!(
            drafts.of(&Some("t1".into())).map(Chips::ids),
            Some(Vec::new())
        );
    }
}
