use crate::ipc::CommandRegistry;
use pizza_protocol::cmd;

pub(super) fn register(registry: &mut CommandRegistry) {
    registry.register::<cmd::SkillList, _, _>(|host, p| async move { host.skill_list(p).await });
    registry.register::<cmd::SkillGet, _, _>(|host, p| async move { host.skill_get(p).await });
    registry.register::<cmd::SkillSave, _, _>(|host, p| async move { host.skill_save(p).await });
    registry
        .register::<cmd::SkillDelete, _, _>(|host, p| async move { host.skill_delete(p).await });
    registry.register::<cmd::SkillSetEnabled, _, _>(|host, p| async move {
        host.skill_set_enabled(p).await
    });
    registry
        .register::<cmd::SkillImport, _, _>(|host, p| async move { host.skill_import(p).await });
    registry.register::<cmd::SkillImportChoose, _, _>(|host, p| async move {
        host.skill_import_choose(p).await
    });
}
