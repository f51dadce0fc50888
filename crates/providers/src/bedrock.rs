//! Amazon Bedrock Converse / ConverseStream, with a Bedrock API key (bearer)
//! or access keys (SigV4).

mod decode;
mod profile;
mod request;
mod sign;

use std::time::SystemTime;

use futures::FutureExt;
use futures::future::BoxFuture;
use pizza_llm::{
    AttachmentLimits, CancellationToken, Error, EventStream, ModelClient, ModelDescriptor,
    ModelRequest, Result,
};
use serde_json::Value;

pub use decode::BedrockDecoder;
pub(crate) use profile::load_profile;
pub use profile::{AwsProfile, AwsProfileFiles};
pub use sign::AccessKeys;

use crate::Provider;
use crate::framing::Framing;
use crate::http::{JsonPost, join, stream_post};
use crate::transport::{Transport, TransportConfig};

pub const BEDROCK_DEFAULT_REGION: &str = "us-east-1";

/// How requests are authorized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BedrockAuth {
    /// A Bedrock API key, sent as `Authorization: Bearer`.
    ApiKey(String),
    /// IAM access keys; every request is SigV4-signed.
    AccessKeys(AccessKeys),
}

#[derive(Debug, Clone)]
pub struct BedrockConfig {
    pub auth: BedrockAuth,
    pub region: String,
    /// Runtime endpoint; `None` is `https://bedrock-runtime.{region}.amazonaws.com`.
    pub base_url: Option<String>,
    /// Control-plane endpoint for model listing; `None` is
    /// `https://bedrock.{region}.amazonaws.com`.
    pub control_base_url: Option<String>,
    pub transport: TransportConfig,
}

impl Default for BedrockConfig {
    fn default() -> Self {
        Self {
            auth: BedrockAuth::ApiKey(String::new()),
            region: BEDROCK_DEFAULT_REGION.into(),
            base_url: None,
            control_base_url: None,
            transport: TransportConfig::default(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct BedrockProvider {
    config: BedrockConfig,
    transport: Transport,
}

impl BedrockProvider {
    pub fn new(config: BedrockConfig) -> Result<Self> {
        if !is_region(&config.region) {
            return Err(Error::invalid_input(format!(
                "`{}` is not an AWS region",
                config.region
            )));
        }
        let transport = Transport::new(config.transport.clone())?;
        Ok(Self { config, transport })
    }

    fn runtime_url(&self) -> String {
        self.config.base_url.clone().unwrap_or_else(|| {
            format!(
                "https://bedrock-runtime.{}.amazonaws.com",
                self.config.region
            )
        })
    }

    fn control_url(&self) -> String {
        self.config
            .control_base_url
            .clone()
            .unwrap_or_else(|| format!("https://bedrock.{}.amazonaws.com", self.config.region))
    }

    /// The auth headers for one request. SigV4 signs the exact URL and body,
    /// so it runs last.
    fn auth_headers(
        &self,
        method: &str,
        url: &str,
        body: &[u8],
    ) -> Result<Vec<(&'static str, String)>> {
        match &self.config.auth {
            BedrockAuth::ApiKey(key) => Ok(vec![("authorization", format!("Bearer {key}"))]),
            BedrockAuth::AccessKeys(keys) => sign::sigv4_headers(
                keys,
                &self.config.region,
                method,
                url,
                body,
                SystemTime::now(),
            ),
        }
    }

    fn prepare(&self, request: &ModelRequest) -> Result<JsonPost> {
        let body = request::converse_body(request)?;
        let path = format!("model/{}/converse-stream", encode_model_id(&request.model));
        let mut post = JsonPost::new(join(&self.runtime_url(), &path), &body)?
            .header("accept", "application/vnd.amazon.eventstream");
        // Signed once per call: a signature stays valid for minutes, longer
        // than the retries of one call can take.
        for (name, value) in self.auth_headers("POST", &post.url, &post.body)? {
            post = post.header(name, value);
        }
        Ok(post)
    }
}

impl ModelClient for BedrockProvider {
    fn stream(
        &self,
        request: ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<EventStream>> {
        match self.prepare(&request) {
            Ok(post) => stream_post(
                self.transport.clone(),
                post,
                request.model.clone(),
                Framing::AwsEventStream,
                Box::new(BedrockDecoder::new(&request.model)),
                cancel,
            ),
            Err(error) => futures::future::ready(Err(error)).boxed(),
        }
    }
}

impl Provider for BedrockProvider {
    fn provider_id(&self) -> &str {
        "bedrock"
    }

    fn attachment_limits(&self) -> AttachmentLimits {
        // The Converse API's ImageBlock and DocumentBlock caps.
        AttachmentLimits {
            provider: "Bedrock".into(),
            documents: true,
            image_max_bytes: 3_932_160,
            document_max_bytes: 4_718_592,
        }
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelDescriptor>>> {
        async move {
            let url = join(
                &self.control_url(),
                "foundation-models?byOutputModality=TEXT",
            );
            let mut request = self.transport.client().get(&url);
            for (name, value) in self.auth_headers("GET", &url, b"")? {
                request = request.header(name, value);
            }
            let json = self.transport.get_json(request).await?;
            Ok(parse_foundation_models(&json))
        }
        .boxed()
    }
}

/// `{"modelSummaries": [...]}`, kept to models that stream text (the filter
/// in the query is a hint; the response is checked too).
pub(crate) fn parse_foundation_models(json: &Value) -> Vec<ModelDescriptor> {
    let Some(items) = json.get("modelSummaries").and_then(Value::as_array) else {
        return Vec::new();
    };
    let has = |item: &Value, key: &str, wanted: &str| {
        item.get(key)
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().any(|v| v.as_str() == Some(wanted)))
    };
    items
        .iter()
        .filter(|item| {
            item.get("responseStreamingSupported")
                .and_then(Value::as_bool)
                == Some(true)
        })
        .filter(|item| has(item, "outputModalities", "TEXT"))
        .filter(|item| {
            item.pointer("/modelLifecycle/status")
                .and_then(Value::as_str)
                != Some("LEGACY")
        })
        .filter_map(|item| {
            let id = item.get("modelId")?.as_str()?;
            let mut model = ModelDescriptor::bare(id);
            if let Some(name) = item.get("modelName").and_then(Value::as_str) {
                model.name = name.to_owned();
            }
            model.supports_vision = has(item, "inputModalities", "IMAGE");
            Some(model)
        })
        .collect()
}

/// Model ids hold `:` (versions) and inference-profile ARNs hold `/`; both
/// must be percent-encoded in the path segment.
fn encode_model_id(model: &str) -> String {
    let mut out = String::with_capacity(model.len());
    for byte in model.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `us-east-1`, `eu-central-2`, `us-gov-west-1`: it becomes part of a host
/// name, so anything else is refused.
pub(crate) fn is_region(region: &str) -> bool {
    !region.is_empty()
        && region.len() <= 32
        && region
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !region.starts_with('-')
        && !region.ends_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids_are_path_safe() {
        assert_eq!(
            encode_model_id("anthropic.claude-3-5-sonnet-20240620-v1:0"),
            "anthropic.claude-3-5-sonnet-20240620-v1%3A0"
        );
        assert_eq!(
            encode_model_id("arn:aws:bedrock:us-east-1:1:inference-profile/us.x"),
            "arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.x"
        );
    }

    #[test]
    fn regions_are_host_safe() {
        assert!(is_region("us-east-1"));
        assert!(is_region("us-gov-west-1"));
        assert!(!is_region("us-east-1.evil.com"));
        assert!(!is_region("US-EAST-1"));
        assert!(!is_region(""));
    }
}
