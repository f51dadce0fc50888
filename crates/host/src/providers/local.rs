//! Model servers on this machine — Ollama, a llama.cpp server, LM Studio —
//! offered in Settings › Providers with one-click Add. Only looked for when
//! that screen asks (never while the app starts), each with a short timeout.

use super::ProviderService;
use super::state::OLLAMA;
use pizza_protocol::{
    ApiError, COMPATIBLE_PREFIX, LocalServer, LocalServerKind, LocalServerList,
    ProviderDiscoverParams,
};
use pizza_providers::{LocalListing, OLLAMA_BASE_URL, probe_local};
use std::time::Duration;

/// `ollama=127.0.0.1:PORT,llamacpp=...,lmstudio=...` replaces the address of
/// the kinds it names (`off` for none); `off` alone looks for nothing. For
/// tests that cannot own the real ports.
pub const LOCAL_PROBES_ENV: &str = "PIZZA_LOCAL_PROBES";
/// A server on this machine answers in milliseconds; an absent one refuses
/// the connection at once. Anything slower is not worth offering.
const PROBE_TIMEOUT: Duration = Duration::from_millis(300);

/// Where to look for one kind of local server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalProbe {
    pub kind: LocalServerKind,
    /// `host:port`.
    pub address: String,
}

const KINDS: [(LocalServerKind, &str, &str); 3] = [
    (LocalServerKind::Ollama, "ollama", "127.0.0.1:11434"),
    (LocalServerKind::LlamaCpp, "llamacpp", "127.0.0.1:8080"),
    (LocalServerKind::LmStudio, "lmstudio", "127.0.0.1:1234"),
];

impl LocalProbe {
    /// Each kind at its usual port.
    pub fn defaults() -> Vec<Self> {
        KINDS
            .iter()
            .map(|(kind, _, address)| Self {
                kind: *kind,
                address: (*address).to_owned(),
            })
            .collect()
    }

    /// The defaults, changed by [`LOCAL_PROBES_ENV`] when it is set.
    pub fn from_env() -> Vec<Self> {
        match std::env::var(LOCAL_PROBES_ENV) {
            Ok(spec) => Self::parse(&spec).unwrap_or_else(|error| {
                tracing::warn!(%error, "{LOCAL_PROBES_ENV} ignored");
                Self::defaults()
            }),
            Err(_) => Self::defaults(),
        }
    }

    /// The defaults with `spec`'s changes (see [`LOCAL_PROBES_ENV`]).
    pub fn parse(spec: &str) -> Result<Vec<Self>, String> {
        let spec = spec.trim();
        if spec == "off" {
            return Ok(Vec::new());
        }
        let mut probes: Vec<Option<Self>> = Self::defaults().into_iter().map(Some).collect();
        for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (name, address) = entry
                .split_once('=')
                .ok_or_else(|| format!("`{entry}` is not kind=host:port"))?;
            let slot = KINDS
                .iter()
                .position(|(_, key, _)| *key == name.trim())
                .ok_or_else(|| format!("`{name}` is not ollama, llamacpp or lmstudio"))?;
            let address = address.trim();
            probes[slot] = match address {
                "off" => None,
                _ if address.rsplit_once(':').is_some_and(|(host, port)| {
                    !host.is_empty() && port.parse::<u16>().is_ok()
                }) =>
                {
                    Some(Self {
                        kind: KINDS[slot].0,
                        address: address.to_owned(),
                    })
                }
                _ => return Err(format!("`{address}` is not host:port")),
            };
        }
        Ok(probes.into_iter().flatten().collect())
    }

    /// What adding the server configures: Ollama's own API root, or the
    /// OpenAI-compatible `/v1`.
    pub(crate) fn base_url(&self) -> String {
        match self.kind {
            LocalServerKind::Ollama => format!("http://{}", self.address),
            _ => format!("http://{}/v1", self.address),
        }
    }
}

/// How a kind of local server is called in the window.
pub(crate) fn kind_name(kind: LocalServerKind) -> &'static str {
    match kind {
        LocalServerKind::Ollama => "Ollama",
        LocalServerKind::LlamaCpp => "llama.cpp server",
        LocalServerKind::LmStudio => "LM Studio",
    }
}

fn same_url(a: &str, b: &str) -> bool {
    a.trim().trim_end_matches('/') == b.trim().trim_end_matches('/')
}

impl ProviderService {
    /// Probes every local address at once; lists the servers that answered
    /// in their own wire format, each with the provider already at its URL.
    pub(crate) async fn provider_discover(
        &self,
        _params: ProviderDiscoverParams,
    ) -> Result<LocalServerList, ApiError> {
        self.providers_loaded().await;
        let probes = self.local_probes.iter().map(|probe| async move {
            let listing = match probe.kind {
                LocalServerKind::Ollama => LocalListing::OllamaTags,
                _ => LocalListing::OpenAiModels,
            };
            let base_url = probe.base_url();
            match probe_local(&base_url, listing, PROBE_TIMEOUT).await {
                Ok(models) => Some((probe.kind, base_url, models)),
                Err(error) => {
                    tracing::debug!(address = %probe.address, code = error.code(), "no local server");
                    None
                }
            }
        });
        let found = futures::future::join_all(probes).await;
        let memory = self.memory();
        let servers = found
            .into_iter()
            .flatten()
            .map(|(kind, base_url, models)| {
                let provider_id = memory
                    .configs
                    .iter()
                    .filter(|(id, _)| id.as_str() == OLLAMA || id.starts_with(COMPATIBLE_PREFIX))
                    .find(|(id, stored)| {
                        let configured = stored.values.get("base_url").map_or_else(
                            || (id.as_str() == OLLAMA).then_some(OLLAMA_BASE_URL),
                            |url| Some(url.as_str()),
                        );
                        configured.is_some_and(|url| same_url(url, &base_url))
                    })
                    .map(|(id, _)| id.clone());
                LocalServer {
                    kind,
                    name: kind_name(kind).to_owned(),
                    base_url,
                    models,
                    provider_id,
                }
            })
            .collect();
        Ok(LocalServerList { servers })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn probe(kind: LocalServerKind, address: &str) -> LocalProbe {
        LocalProbe {
            kind,
            address: address.into(),
        }
    }

    #[test]
    fn the_env_spec_changes_the_kinds_it_names() {
        assert_eq!(LocalProbe::parse("").unwrap(), LocalProbe::defaults());
        assert_eq!(
            LocalProbe::parse("ollama=127.0.0.1:4000, lmstudio=off").unwrap(),
            [
                probe(LocalServerKind::Ollama, "127.0.0.1:4000"),
                probe(LocalServerKind::LlamaCpp, "127.0.0.1:8080"),
            ]
        );
        assert_eq!(LocalProbe::parse("off").unwrap(), []);
        for bad in [
            "ollama",
            "vllm=127.0.0.1:1",
            "ollama=127.0.0.1",
            "ollama=:80",
        ] {
            assert!(LocalProbe::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            probe(LocalServerKind::LmStudio, "127.0.0.1:1234").base_url(),
            "http://127.0.0.1:1234/v1"
        );
        assert_eq!(
            probe(LocalServerKind::Ollama, "127.0.0.1:11434").base_url(),
            OLLAMA_BASE_URL
        );
    }
}
