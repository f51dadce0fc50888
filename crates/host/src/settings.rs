//! `settings_get` / `settings_update`: UI preferences in the store's settings
//! table, one key per preference so a bad value only resets itself. The
//! settings live in the data root, so they are per device.

use crate::Host;
use pizza_protocol::{ApiError, Settings, SettingsGetParams, SettingsPatch, Theme};

const THEME: &str = "ui.theme";

impl Host {
    pub async fn settings_get(&self, _params: SettingsGetParams) -> Result<Settings, ApiError> {
        let theme: Theme = self
            .store()
            .setting(THEME)
            .await
            .map_err(crate::HostError::from)?;
        let notifications = self
            .notification_prefs()
            .await
            .map_err(crate::HostError::from)?;
        Ok(Settings {
            theme,
            notifications,
        })
    }

    pub async fn settings_update(&self, patch: SettingsPatch) -> Result<Settings, ApiError> {
        if let Some(theme) = patch.theme {
            self.store()
                .set_setting(THEME, &theme)
                .await
                .map_err(crate::HostError::from)?;
        }
        for (key, value) in [
            (crate::notify::RUN_FINISHED_KEY, patch.notify_run_finished),
            (
                crate::notify::ACTION_REQUIRED_KEY,
                patch.notify_action_required,
            ),
        ] {
            if let Some(on) = value {
                self.store()
                    .set_setting(key, &on)
                    .await
                    .map_err(crate::HostError::from)?;
            }
        }
        self.settings_get(SettingsGetParams {}).await
    }
}
