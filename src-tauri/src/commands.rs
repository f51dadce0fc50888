//! One short adapter per protocol command, grouped by resource. Each one only
//! forwards to the host; behaviour lives in `pizza-host`.

mod app;
mod approvals;
mod attachments;
mod composer;
mod desktop;
mod folders;
mod grants;
mod history;
mod import;
mod logs;
mod mcp;
mod memory;
mod notifications;
mod plugins;
mod providers;
mod runs;
mod settings;
mod skills;
mod threads;
mod triggers;

use crate::ipc::CommandRegistry;

pub(crate) fn register_all(registry: &mut CommandRegistry) {
    app::register(registry);
    logs::register(registry);
    settings::register(registry);
    approvals::register(registry);
    attachments::register(registry);
    composer::register(registry);
    threads::register(registry);
    history::register(registry);
    import::register(registry);
    folders::register(registry);
    grants::register(registry);
    memory::register(registry);
    providers::register(registry);
    runs::register(registry);
    desktop::register(registry);
    notifications::register(registry);
    triggers::register(registry);
    skills::register(registry);
    mcp::register(registry);
    plugins::register(registry);
}
