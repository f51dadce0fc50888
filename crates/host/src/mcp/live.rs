//! From configured servers to live ones: placeholders expanded with the
//! app's environment, the plugin's folder and the keychain — only for the
//! connection; the file keeps its references.

use std::sync::Arc;

use pizza_mcp::{Expander, LiveServer, ServerConfig, expand_transport};

use crate::secrets::SecretStore;

/// Expands every server; one whose placeholder cannot be expanded is live
/// with its problem (it shows as `error`, the others are unaffected).
/// Blocking: the keychain is read here.
pub(crate) fn live_servers(
    configured: &[ServerConfig],
    secrets: &Arc<dyn SecretStore>,
) -> Vec<LiveServer> {
    let env = |name: &str| std::env::var(name).ok();
    let secret = |name: &str| match secrets.get(name) {
        Ok(value) => value,
        Err(error) => {
            tracing::warn!(%error, secret = name, "cannot read an MCP secret from the keychain");
            None
        }
    };
    configured
        .iter()
        .map(|server| {
            let plugin_root = server.plugin.as_ref().map(|p| p.root.as_path());
            let expander = Expander {
                env: &env,
                secrets: &secret,
                plugin_root,
            };
            match expand_transport(&server.transport, &expander) {
                Ok(transport) => LiveServer {
                    id: server.id.clone(),
                    transport,
                    enabled: server.enabled,
                    problem: None,
                },
                Err(problem) => LiveServer {
                    id: server.id.clone(),
                    transport: server.transport.clone(),
                    enabled: server.enabled,
                    problem: Some(problem),
                },
            }
        })
        .collect()
}
