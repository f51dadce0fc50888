//! OpenAI Chat Completions, for OpenAI and any compatible server.

mod decode;
mod request;

pub use decode::ChatDecoder;
pub(crate) use request::{ChatOptions, chat_body, image_url, tool_choice};
