//! OpenAI Responses API.
//!
//! Reasoning replay: a reasoning item is kept as `ContentPart::Reasoning`
//! with its summary as `text`, its item id in `signature` and its
//! `encrypted_content` in `encrypted` (requests use `store: false`, so the
//! item must be sent back whole).

mod decode;
mod request;

pub use decode::ResponsesDecoder;
pub(crate) use request::responses_body;
