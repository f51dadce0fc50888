//! The streaming answer as finished blocks plus a growing tail.
//!
//! Each frame's deltas are appended to the tail; whatever the tail completes
//! (up to a blank line outside a code fence) moves to the finished blocks,
//! which render once. Per frame, only the tail is scanned and re-rendered,
//! so the cost stays flat however long the answer gets.

use leptos::prelude::*;

#[derive(Debug, Clone, Copy)]
pub(crate) struct StreamedText {
    /// Finished blocks, in order; never change once pushed.
    pub(crate) blocks: RwSignal<Vec<String>>,
    /// The block still growing.
    pub(crate) tail: RwSignal<String>,
}

impl StreamedText {
    pub(crate) fn new() -> Self {
        Self {
            blocks: RwSignal::new(Vec::new()),
            tail: RwSignal::new(String::new()),
        }
    }

    /// Appends a frame's worth of text.
    pub(crate) fn push(self, text: &str) {
        let finished = self
            .tail
            .try_update(|tail| {
                tail.push_str(text);
                split_finished(tail)
            })
            .unwrap_or_default();
        if !finished.is_empty() {
            self.blocks.update(|blocks| blocks.extend(finished));
        }
    }

    pub(crate) fn clear(self) {
        self.blocks.set(Vec::new());
        self.tail.set(String::new());
    }

    /// Tracked: whether any text has streamed.
    pub(crate) fn is_empty(self) -> bool {
        self.blocks.with(Vec::is_empty) && self.tail.with(String::is_empty)
    }
}

/// Removes the blocks `tail` completes from its front and returns them. A
/// block ends after a blank line that is not inside a fenced code block; the
/// tail always starts outside a fence, so scanning it alone is enough.
pub(crate) fn split_finished(tail: &mut String) -> Vec<String> {
    let mut cuts = Vec::new();
    let mut in_fence = false;
    let mut offset = 0;
    let mut previous_blank = false;
    for line in tail.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        offset += line.len();
        let blank = line.trim().is_empty() && line.ends_with('\n');
        if blank && !in_fence && !previous_blank {
            cuts.push(offset);
        }
        previous_blank = blank;
    }
    let Some(&last) = cuts.last() else {
        return Vec::new();
    };
    let rest = tail.split_off(last);
    let done = std::mem::replace(tail, rest);
    let mut start = 0;
    cuts.into_iter()
        .map(|end| {
            let block = done[start..end].to_owned();
            start = end;
            block
        })
        .collect()
}

/// A whole text as independently rendered blocks (the finished blocks and
/// what remains), the way it streamed in.
pub(crate) fn blocks(text: &str) -> Vec<String> {
    let mut rest = text.to_owned();
    let mut blocks = split_finished(&mut rest);
    if !rest.is_empty() {
        blocks.push(rest);
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` in pieces of `step` bytes, as frames would.
    fn stream(text: &str, step: usize) -> (Vec<String>, String) {
        let mut blocks = Vec::new();
        let mut tail = String::new();
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(step) {
            tail.extend(piece);
            blocks.extend(split_finished(&mut tail));
        }
        (blocks, tail)
    }

    #[test]
    fn blocks_and_tail_cover_the_text_and_never_cut_a_fence() {
        let text = "one\n\ntwo\n\n```\ncode\n\nmore\n```\n\nthree";
        for step in [1, 2, 3, 7, text.len()] {
            let (blocks, tail) = stream(text, step);
            let joined: String = blocks
                .iter()
                .map(String::as_str)
                .chain([tail.as_str()])
                .collect();
            assert_eq!(joined, text, "step {step}");
            assert!(
                blocks.iter().all(|b| b.matches("```").count() % 2 == 0),
                "step {step}"
            );
            assert_eq!(tail, "three", "step {step}");
            assert_eq!(blocks.len(), 3, "step {step}: {blocks:?}");
        }
    }

    #[test]
    fn a_whole_text_splits_into_the_same_blocks() {
        let text = "one\n\ntwo\n\n```\ncode\n\nmore\n```\n\nthree";
        let (mut streamed, tail) = stream(text, 3);
        streamed.push(tail);
        assert_eq!(blocks(text), streamed);
        assert!(blocks("").is_empty());
    }

    #[test]
    fn an_open_fence_stays_in_the_tail() {
        let (blocks, tail) = stream("intro\n\n```\na\n\nb\n", 4);
        assert_eq!(blocks, vec!["intro\n\n".to_owned()]);
        assert_eq!(tail, "```\na\n\nb\n");
    }
}
