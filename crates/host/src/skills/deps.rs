//! What a skill needs of MCP: the servers its refs name, each of which must
//! exist and be switched on before the skill can be switched on.

use pizza_extensions::CatalogEntry;
use pizza_protocol::ApiError;

use super::SkillService;

impl SkillService {
    /// Switching a skill on needs every MCP server it names to exist and be on.
    pub(super) fn check_dependencies(&self, entry: &CatalogEntry) -> Result<(), ApiError> {
        let Ok(bundle) = &entry.bundle else {
            return Ok(());
        };
        let surface = self.surface();
        let missing: Vec<String> = servers_of(bundle)
            .into_iter()
            .filter_map(|server| match surface.resolver.server(&server) {
                None => Some(format!("{server} (not configured)")),
                Some(facts) if !facts.enabled => Some(format!("{server} (switched off)")),
                Some(_) => None,
            })
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(ApiError::new(
            pizza_protocol::ErrorCode::DependencyDisabled,
            format!(
                "{} needs MCP servers that are missing or switched off: {}.",
                entry.name,
                missing.join(", ")
            ),
        ))
    }
}

/// The MCP servers a skill's refs name, each once.
pub(super) fn servers_of(bundle: &pizza_extensions::SkillBundle) -> Vec<String> {
    let manifest = &bundle.manifest;
    let mut servers: Vec<String> = Vec::new();
    let refs = manifest
        .tools
        .iter()
        .chain(manifest.interrupt_on.iter().map(|rule| &rule.tool));
    for tool in refs {
        if let Some(server) = tool.mcp_server()
            && !servers.iter().any(|s| s == server)
        {
            servers.push(server.to_owned());
        }
    }
    servers
}
