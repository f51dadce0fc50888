//! The `mcp_*` commands.

use pizza_protocol::{
    ApiError, McpImportParams, McpImportPreview, McpImportPreviewParams, McpServerIdParams,
    McpServerList, McpServerListParams, McpServerSaveParams, McpServerSetEnabledParams,
    McpServerView, McpSkillDraft, McpToolReviewParams, SkillImportChooseParams,
};

use crate::Host;
use crate::desktop::OpenDialog;

impl Host {
    fn mcp(&self) -> &std::sync::Arc<super::McpService> {
        &self.inner.mcp
    }

    pub async fn mcp_server_list(
        &self,
        _params: McpServerListParams,
    ) -> Result<McpServerList, ApiError> {
        Ok(self.mcp().list())
    }

    pub async fn mcp_server_save(
        &self,
        params: McpServerSaveParams,
    ) -> Result<McpServerView, ApiError> {
        self.mcp().save(params).await
    }

    pub async fn mcp_server_delete(&self, params: McpServerIdParams) -> Result<(), ApiError> {
        self.mcp().delete(params.id.trim()).await
    }

    pub async fn mcp_server_set_enabled(
        &self,
        params: McpServerSetEnabledParams,
    ) -> Result<McpServerView, ApiError> {
        self.mcp()
            .set_enabled(params.id.trim(), params.enabled)
            .await
    }

    pub async fn mcp_server_reconnect(
        &self,
        params: McpServerIdParams,
    ) -> Result<McpServerView, ApiError> {
        self.mcp().reconnect(params.id.trim()).await
    }

    pub async fn mcp_tool_review(
        &self,
        params: McpToolReviewParams,
    ) -> Result<McpServerView, ApiError> {
        self.mcp()
            .review(params.id.trim(), params.tool.as_deref())
            .await
    }

    pub async fn mcp_skill_draft(
        &self,
        params: McpServerIdParams,
    ) -> Result<McpSkillDraft, ApiError> {
        let taken: Vec<String> = self
            .inner
            .skills
            .skill_list()
            .skills
            .into_iter()
            .map(|s| s.name)
            .collect();
        self.mcp().skill_draft(params.id.trim(), &taken)
    }

    pub async fn mcp_import_preview(
        &self,
        params: McpImportPreviewParams,
    ) -> Result<McpImportPreview, ApiError> {
        self.mcp().import_preview(&params).await
    }

    pub async fn mcp_import(&self, params: McpImportParams) -> Result<McpServerList, ApiError> {
        self.mcp().import(&params.source, &params.ids).await?;
        Ok(self.mcp().list())
    }

    /// Shows the native open dialog for an MCP configuration file.
    pub async fn mcp_import_choose(
        &self,
        _params: SkillImportChooseParams,
    ) -> Result<Option<String>, ApiError> {
        let dialog = OpenDialog {
            title: "Import MCP servers".to_owned(),
            filter_name: "MCP configuration".to_owned(),
            extension: "json".to_owned(),
        };
        let chosen = self.inner.desktop.choose_open_file(dialog).await?;
        Ok(chosen.map(|path| path.display().to_string()))
    }

    /// Reads the MCP configuration and starts connecting in the background;
    /// a hand edit of `.mcp.json` is followed from now on. Returns at once.
    pub async fn start_mcp(&self) -> Result<(), ApiError> {
        let timeout = self
            .settings_get(pizza_protocol::SettingsGetParams {})
            .await?
            .agent
            .mcp_tool_timeout_secs;
        self.mcp().policy().set_timeout_secs(timeout);
        self.mcp().start();
        Ok(())
    }

    /// Kills every MCP server's processes now (the app is exiting).
    pub fn kill_mcp_servers(&self) {
        self.mcp().pool().kill_all();
    }
}
