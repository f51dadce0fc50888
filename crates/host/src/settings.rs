//! `settings_get` / `settings_update`: preferences in the store's settings
//! table, one key per preference so a bad value only resets itself. The
//! settings live in the data root, so they are per device.

pub(crate) mod keys;

use crate::Host;
use crate::memory::MemoryService;
use crate::notify::Notifications;
use pizza_protocol::{ApiError, Settings, SettingsGetParams, SettingsPatch};
use pizza_store::Store;
use std::sync::Arc;

/// The preferences screen: the theme, the memory switch (its folder comes
/// from the memory service) and the notification kinds (read through the
/// notifications service, which obeys them).
#[derive(Debug)]
pub(crate) struct SettingsService {
    store: Store,
    memory: Arc<MemoryService>,
    notifications: Arc<Notifications>,
}

impl SettingsService {
    pub(crate) fn new(
        store: Store,
        memory: Arc<MemoryService>,
        notifications: Arc<Notifications>,
    ) -> Self {
        Self {
            store,
            memory,
            notifications,
        }
    }

    pub(crate) async fn settings_get(
        &self,
        _params: SettingsGetParams,
    ) -> Result<Settings, ApiError> {
        let theme = keys::THEME
            .read_or_default(&self.store)
            .await
            .map_err(crate::HostError::from)?;
        let notifications = self
            .notifications
            .prefs()
            .await
            .map_err(crate::HostError::from)?;
        Ok(Settings {
            theme,
            memories_enabled: self.memory.memories_enabled().await?,
            notifications,
        })
    }

    pub(crate) async fn settings_update(&self, patch: SettingsPatch) -> Result<Settings, ApiError> {
        if let Some(enabled) = patch.memories_enabled {
            if enabled {
                // The folder exists (private) before the agent is told about it.
                let dir = self.memory.memories_dir();
                tokio::task::spawn_blocking(move || crate::memory::ensure_memories_dir(&dir))
                    .await
                    .map_err(|e| ApiError::general("Could not create the memories folder.").with_details(e.to_string()))?
                    .map_err(|e| {
                        ApiError::general(format!(
                            "Could not create the memories folder {}. Check that the data folder is writable.",
                            self.memory.memories_dir().display()
                        ))
                        .with_details(e.to_string())
                    })?;
            }
            keys::MEMORIES_ENABLED
                .write(&self.store, &enabled)
                .await
                .map_err(crate::HostError::from)?;
        }
        if let Some(theme) = patch.theme {
            keys::THEME
                .write(&self.store, &theme)
                .await
                .map_err(crate::HostError::from)?;
        }
        for (key, value) in [
            (keys::NOTIFY_RUN_FINISHED, patch.notify_run_finished),
            (keys::NOTIFY_ACTION_REQUIRED, patch.notify_action_required),
        ] {
            if let Some(on) = value {
                key.write(&self.store, &on)
                    .await
                    .map_err(crate::HostError::from)?;
            }
        }
        self.settings_get(SettingsGetParams {}).await
    }
}

/// The settings commands: thin calls of the service.
impl Host {
    pub async fn settings_get(&self, params: SettingsGetParams) -> Result<Settings, ApiError> {
        self.inner.settings.settings_get(params).await
    }

    pub async fn settings_update(&self, patch: SettingsPatch) -> Result<Settings, ApiError> {
        self.inner.settings.settings_update(patch).await
    }
}
