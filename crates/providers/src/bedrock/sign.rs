//! SigV4 request signing for access-key credentials, through the maintained
//! `aws-sigv4` crate (the AWS SDK's own signer, without the SDK).

use std::time::SystemTime;

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use pizza_llm::{Error, Result};

/// Long-lived or temporary (STS) access keys.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessKeys {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl std::fmt::Debug for AccessKeys {
    // Secrets must not reach logs through a `{:?}` of the config.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessKeys")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

const SERVICE: &str = "bedrock";

/// The headers (`authorization`, `x-amz-date`, maybe `x-amz-security-token`)
/// that sign `method url` with `body` at `time`. Only `host` and the
/// `x-amz-*` headers are signed, so headers the HTTP client adds later
/// cannot break the signature.
pub(super) fn sigv4_headers(
    keys: &AccessKeys,
    region: &str,
    method: &str,
    url: &str,
    body: &[u8],
    time: SystemTime,
) -> Result<Vec<(&'static str, String)>> {
    let identity = Credentials::new(
        &keys.access_key_id,
        &keys.secret_access_key,
        keys.session_token.clone(),
        None,
        "pizza-bot",
    )
    .into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(SERVICE)
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .map_err(|error| Error::invalid_input(format!("cannot sign the request: {error}")))?
        .into();
    let signable = SignableRequest::new(method, url, std::iter::empty(), SignableBody::Bytes(body))
        .map_err(|error| Error::invalid_input(format!("cannot sign the request: {error}")))?;
    let (instructions, _signature) = sign(signable, &params)
        .map_err(|error| Error::invalid_input(format!("cannot sign the request: {error}")))?
        .into_parts();
    let (headers, _params) = instructions.into_parts();
    Ok(headers
        .iter()
        .map(|header| (header.name(), header.value().to_owned()))
        .collect())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// AWS's published `get-vanilla` style inputs: a fixed clock gives a
    /// fixed, checkable signature.
    #[test]
    fn signs_with_date_scope_and_token() {
        let keys = AccessKeys {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: Some("session".into()),
        };
        let time = SystemTime::UNIX_EPOCH + Duration::from_secs(1_440_938_160);
        let headers = sigv4_headers(
            &keys,
            "us-east-1",
            "POST",
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream",
            b"{}",
            time,
        )
        .unwrap();
        let get = |name: &str| {
            headers
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.as_str())
        };
        assert_eq!(get("x-amz-date"), Some("20150830T123600Z"));
        assert_eq!(get("x-amz-security-token"), Some("session"));
        let authorization = get("authorization").unwrap();
        assert!(
            authorization.starts_with(
                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature="
            ),
            "{authorization}"
        );
        let signature = authorization.rsplit('=').next().unwrap();
        assert_eq!(signature.len(), 64);
        assert!(signature.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
