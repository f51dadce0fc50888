//! The request/stream plumbing every HTTP provider shares.

use std::sync::Arc;

use bytes::Bytes;
use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_llm::{CancellationToken, Error, EventStream, Result};

use crate::framing::{Decoder, Framing, decode_stream};
use crate::transport::Transport;

/// A POST with a JSON body and fixed headers, rebuilt for each retry.
#[derive(Debug, Clone)]
pub(crate) struct JsonPost {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Bytes,
}

impl JsonPost {
    pub(crate) fn new(url: String, body: &serde_json::Value) -> Result<Self> {
        let body = serde_json::to_vec(body)
            .map_err(|error| Error::general(format!("could not encode the request: {error}")))?;
        Ok(Self {
            url,
            headers: Vec::new(),
            body: body.into(),
        })
    }

    pub(crate) fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    fn build(&self, client: &reqwest::Client) -> reqwest::RequestBuilder {
        let mut request = client
            .post(&self.url)
            .header("content-type", "application/json")
            .body(self.body.clone());
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        request
    }
}

/// Sends `post` (with retries) and decodes the body as it streams.
pub(crate) fn stream_post(
    transport: Transport,
    post: JsonPost,
    model: String,
    framing: Framing,
    decoder: Box<dyn Decoder>,
    cancel: CancellationToken,
) -> BoxFuture<'static, Result<EventStream>> {
    async move {
        let post = Arc::new(post);
        let build = move |client: &reqwest::Client| post.build(client);
        let response = transport.send(&build, &model, &cancel).await?;
        let idle = Some(transport.config().idle_timeout);
        Ok(decode_stream(
            Transport::body(response),
            framing,
            decoder,
            cancel,
            idle,
        ))
    }
    .boxed()
}

/// `base` without a trailing slash, joined with `path`.
pub(crate) fn join(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}
