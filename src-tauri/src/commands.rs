//! One short adapter per protocol command, grouped by resource. Each one only
//! forwards to the host; behaviour lives in `pizza-host`.

mod app;
mod settings;

use crate::ipc::CommandRegistry;

pub(crate) fn register_all(registry: &mut CommandRegistry) {
    app::register(registry);
    settings::register(registry);
}
