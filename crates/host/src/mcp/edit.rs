//! Changing the configuration: the form's save (secret values to the
//! keychain, references in the file), delete, the switch, reconnect and
//! imports. Bad input is `INVALID_INPUT` naming the field, and nothing is
//! written; a server an enabled skill needs is `RESOURCE_IN_USE`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use pizza_mcp::{
    ConfigError, SecretKind, ServerConfig, ServerTransport, claude_desktop_config_path, entry_json,
    import_candidates, parse_entry, secret_name, secret_reference, secret_reference_name, summary,
    validate_server_id,
};
use pizza_protocol::{
    ApiError, ErrorCode, McpEntryValue, McpImportCandidate, McpImportPreview, McpImportSource,
    McpServerEntry, McpServerSaveParams, McpServerView, McpTransportKind,
};

use super::McpService;
use super::views::transport_kind;

/// A configuration refusal as the window shows it.
pub(crate) fn config_error(err: ConfigError) -> ApiError {
    match err {
        ConfigError::Invalid { .. } => ApiError::invalid_input(err.to_string()),
        other => ApiError::general("Could not read or write the MCP configuration.")
            .with_details(other.to_string()),
    }
}

fn in_use(id: &str, skills: &[String]) -> ApiError {
    ApiError::new(
        ErrorCode::ResourceInUse,
        format!(
            "The skills {} use MCP server {id}; switch them off first.",
            skills.join(", ")
        ),
    )
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    crate::error::off_thread("The MCP configuration could not be changed.", work).await
}

impl McpService {
    fn refuse_plugin_server(&self, id: &str) -> Result<(), ApiError> {
        match self.config_of(id).and_then(|c| c.plugin) {
            Some(plugin) => Err(ApiError::invalid_input(format!(
                "id: {id} comes from the plugin {}; change it through the plugin",
                plugin.name
            ))),
            None => Ok(()),
        }
    }

    /// The form's values: new ones (secret ones into the keychain), kept
    /// ones from the server as configured now.
    fn values(
        &self,
        id: &str,
        kind: SecretKind,
        given: &[McpEntryValue],
        current: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, ApiError> {
        let field = match kind {
            SecretKind::Env => "env",
            SecretKind::Header => "headers",
        };
        let mut out = BTreeMap::new();
        for value in given {
            let name = value.name.trim();
            if name.is_empty() {
                return Err(ApiError::invalid_input(format!("{field}: a name is empty")));
            }
            let kept = match &value.value {
                Some(text) if value.secret => {
                    let key = secret_name(id, kind, name);
                    self.secrets.set(&key, text).map_err(ApiError::from)?;
                    secret_reference(&key)
                }
                Some(text) => text.clone(),
                None => current.get(name).cloned().ok_or_else(|| {
                    ApiError::invalid_input(format!("{field} {name}: enter a value"))
                })?,
            };
            out.insert(name.to_owned(), kept);
        }
        Ok(out)
    }

    pub(crate) async fn save(
        &self,
        params: McpServerSaveParams,
    ) -> Result<McpServerView, ApiError> {
        let id = params.id.trim().to_owned();
        validate_server_id(&id).map_err(|m| ApiError::invalid_input(format!("id: {m}")))?;
        let previous = params
            .previous_id
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty() && *p != id)
            .map(str::to_owned);
        self.refuse_plugin_server(&id)?;
        if let Some(previous) = &previous {
            self.refuse_plugin_server(previous)?;
            let users = self.skills.skills_using(previous);
            if !users.is_empty() {
                return Err(in_use(previous, &users));
            }
        }
        let current = self.config_of(previous.as_deref().unwrap_or(&id));
        let transport = self.transport_from(&id, &params.entry, current.as_ref())?;
        let entry = entry_json(&transport, params.entry.enabled);
        parse_entry(&id, &entry, None).map_err(config_error)?;
        let file = Arc::clone(&self.file);
        let (saved, renamed) = (id.clone(), previous.clone());
        blocking(move || file.upsert(&saved, entry, renamed.as_deref()))
            .await?
            .map_err(config_error)?;
        self.reload().await;
        self.view(&id)
    }

    fn transport_from(
        &self,
        id: &str,
        entry: &McpServerEntry,
        current: Option<&ServerConfig>,
    ) -> Result<ServerTransport, ApiError> {
        let empty = BTreeMap::new();
        let (current_env, current_headers) = match current.map(|c| &c.transport) {
            Some(ServerTransport::Stdio { env, .. }) => (env, &empty),
            Some(ServerTransport::Http { headers, .. } | ServerTransport::Sse { headers, .. }) => {
                (&empty, headers)
            }
            None => (&empty, &empty),
        };
        match entry.transport {
            McpTransportKind::Stdio => {
                let command = entry.command.trim();
                if command.is_empty() {
                    return Err(ApiError::invalid_input("command: is required"));
                }
                Ok(ServerTransport::Stdio {
                    command: command.to_owned(),
                    args: entry
                        .args
                        .iter()
                        .filter(|a| !a.is_empty())
                        .cloned()
                        .collect(),
                    env: self.values(id, SecretKind::Env, &entry.env, current_env)?,
                    cwd: entry.cwd.clone().filter(|c| !c.trim().is_empty()),
                })
            }
            McpTransportKind::Http | McpTransportKind::Sse => {
                let url = entry.url.trim();
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(ApiError::invalid_input(
                        "url: must start with http:// or https://",
                    ));
                }
                let headers =
                    self.values(id, SecretKind::Header, &entry.headers, current_headers)?;
                let url = url.to_owned();
                Ok(if entry.transport == McpTransportKind::Http {
                    ServerTransport::Http { url, headers }
                } else {
                    ServerTransport::Sse { url, headers }
                })
            }
        }
    }

    pub(crate) async fn delete(&self, id: &str) -> Result<(), ApiError> {
        self.refuse_plugin_server(id)?;
        let config = self
            .config_of(id)
            .ok_or_else(|| ApiError::not_found(format!("There is no MCP server named {id}.")))?;
        let users = self.skills.skills_using(id);
        if !users.is_empty() {
            return Err(in_use(id, &users));
        }
        let file = Arc::clone(&self.file);
        let doomed = id.to_owned();
        blocking(move || file.remove(&doomed))
            .await?
            .map_err(config_error)?;
        self.forget_secrets(&config);
        if let Err(error) = self.store.clear_mcp_tool_reviews(id).await {
            tracing::warn!(%error, server = id, "could not forget a deleted server's reviews");
        }
        self.reload().await;
        Ok(())
    }

    /// Best effort: a deleted server's keychain entries go with it.
    fn forget_secrets(&self, config: &ServerConfig) {
        let values = match &config.transport {
            ServerTransport::Stdio { env, .. } => env,
            ServerTransport::Http { headers, .. } | ServerTransport::Sse { headers, .. } => headers,
        };
        for value in values.values() {
            if let Some(name) = secret_reference_name(value)
                && let Err(error) = self.secrets.delete(name)
            {
                tracing::warn!(%error, "could not delete an MCP secret from the keychain");
            }
        }
    }

    pub(crate) async fn set_enabled(
        &self,
        id: &str,
        enabled: bool,
    ) -> Result<McpServerView, ApiError> {
        self.refuse_plugin_server(id)?;
        if self.config_of(id).is_none() {
            return Err(ApiError::not_found(format!(
                "There is no MCP server named {id}."
            )));
        }
        if !enabled {
            let users = self.skills.skills_using(id);
            if !users.is_empty() {
                return Err(in_use(id, &users));
            }
        }
        let file = Arc::clone(&self.file);
        let target = id.to_owned();
        blocking(move || file.set_enabled(&target, enabled))
            .await?
            .map_err(config_error)?;
        self.reload().await;
        self.view(id)
    }

    /// Connects again now; the configuration is re-read first (a secret or
    /// variable may have been set meanwhile).
    pub(crate) async fn reconnect(&self, id: &str) -> Result<McpServerView, ApiError> {
        if self.config_of(id).is_none() {
            return Err(ApiError::not_found(format!(
                "There is no MCP server named {id}."
            )));
        }
        self.reload().await;
        self.pool
            .reconnect(id)
            .map_err(|e| ApiError::not_found(e.to_string()))?;
        self.view(id)
    }

    async fn read_source(source: &McpImportSource) -> Result<(String, String), ApiError> {
        let (label, path) = match (&source.path, &source.json, source.claude_desktop) {
            (_, Some(json), _) if !json.trim().is_empty() => {
                return Ok(("pasted JSON".to_owned(), json.clone()));
            }
            (Some(path), _, _) if !path.trim().is_empty() => {
                (path.clone(), PathBuf::from(path.trim()))
            }
            (_, _, true) => {
                let path = claude_desktop_config_path().ok_or_else(|| {
                    ApiError::not_found(
                        "Claude Desktop's configuration has no usual place on this system.",
                    )
                })?;
                (path.display().to_string(), path)
            }
            _ => return Err(ApiError::invalid_input("path: choose a file or paste JSON")),
        };
        let reading = path.clone();
        let text = blocking(move || std::fs::read_to_string(&reading))
            .await?
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => {
                    ApiError::not_found(format!("There is no file at {}.", path.display()))
                }
                _ => ApiError::invalid_input(format!("path: cannot read {}: {e}", path.display())),
            })?;
        Ok((label, text))
    }

    pub(crate) async fn import_preview(
        &self,
        source: &McpImportSource,
    ) -> Result<McpImportPreview, ApiError> {
        let (label, text) = Self::read_source(source).await?;
        let candidates = import_candidates(&text, source.id.as_deref()).map_err(config_error)?;
        // What is live, and what the file says now (it may not be read yet).
        let mut configured: Vec<String> = self.all().into_iter().map(|s| s.id).collect();
        let file = Arc::clone(&self.file);
        if let Ok(Ok(on_disk)) = tokio::task::spawn_blocking(move || file.read()).await {
            configured.extend(on_disk.servers.into_iter().map(|s| s.id));
        }
        Ok(McpImportPreview {
            source: label,
            candidates: candidates
                .iter()
                .map(|c| McpImportCandidate {
                    id: c.id.clone(),
                    transport: transport_kind(&c.config.transport),
                    summary: summary(&c.config.transport),
                    clash: configured.contains(&c.id),
                })
                .collect(),
        })
    }

    pub(crate) async fn import(
        &self,
        source: &McpImportSource,
        ids: &[String],
    ) -> Result<(), ApiError> {
        if ids.is_empty() {
            return Err(ApiError::invalid_input("ids: choose at least one server"));
        }
        let (_, text) = Self::read_source(source).await?;
        let candidates = import_candidates(&text, source.id.as_deref()).map_err(config_error)?;
        let mut chosen = Vec::new();
        for id in ids {
            let candidate = candidates.iter().find(|c| &c.id == id).ok_or_else(|| {
                ApiError::invalid_input(format!("ids: {id} is not in what was read"))
            })?;
            self.refuse_plugin_server(id)?;
            chosen.push((candidate.id.clone(), candidate.entry.clone()));
        }
        let file = Arc::clone(&self.file);
        blocking(move || file.upsert_many(chosen))
            .await?
            .map_err(config_error)?;
        self.reload().await;
        Ok(())
    }
}
