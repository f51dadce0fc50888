use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::McpServerList, _, _>(|host, p| async move {
        host.mcp_server_list(p).await
    });
    registry.register::<cmd::McpServerSave, _, _>(|host, p| async move {
        host.mcp_server_save(p).await
    });
    registry.register::<cmd::McpServerDelete, _, _>(|host, p| async move {
        host.mcp_server_delete(p).await
    });
    registry.register::<cmd::McpServerSetEnabled, _, _>(|host, p| async move {
        host.mcp_server_set_enabled(p).await
    });
    registry.register::<cmd::McpServerReconnect, _, _>(|host, p| async move {
        host.mcp_server_reconnect(p).await
    });
    registry.register::<cmd::McpToolReview, _, _>(|host, p| async move {
        host.mcp_tool_review(p).await
    });
    registry.register::<cmd::McpSkillDraft, _, _>(|host, p| async move {
        host.mcp_skill_draft(p).await
    });
    registry.register::<cmd::McpImportPreview, _, _>(|host, p| async move {
        host.mcp_import_preview(p).await
    });
    registry.register::<cmd::McpImport, _, _>(|host, p| async move { host.mcp_import(p).await });
    registry.register::<cmd::McpImportChoose, _, _>(|host, p| async move {
        host.mcp_import_choose(p).await
    });
}
