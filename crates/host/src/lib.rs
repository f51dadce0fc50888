#![doc = include_str!("../README.md")]

mod data_root;
mod error;
mod settings;

pub use data_root::{DATA_VERSION, DataRoot};
pub use error::{HostError, Result};

use pizza_protocol::{
    ApiError, AppInfo, AppInfoParams, BuildProfile, PROTOCOL_VERSION, Settings, SettingsGetParams,
    SettingsPatch,
};
use settings::SettingsFile;
use std::sync::Arc;

/// The application without a window: cheap to clone, one per process.
#[derive(Debug, Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    data_root: DataRoot,
    settings: SettingsFile,
}

impl Host {
    /// Opens (creating if needed) the data root and everything kept in it.
    pub async fn open(data_root: DataRoot) -> Result<Self> {
        let settings = SettingsFile::open(data_root.path().join("settings.json")).await?;
        tracing::info!(data_root = %data_root.path().display(), "host opened");
        Ok(Self {
            inner: Arc::new(Inner {
                data_root,
                settings,
            }),
        })
    }

    pub fn data_root(&self) -> &DataRoot {
        &self.inner.data_root
    }

    pub async fn app_info(&self, _params: AppInfoParams) -> Result<AppInfo, ApiError> {
        Ok(AppInfo {
            name: "Pizza Bot".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            data_root: self.inner.data_root.path().display().to_string(),
            protocol_version: PROTOCOL_VERSION,
            build_profile: if cfg!(debug_assertions) {
                BuildProfile::Debug
            } else {
                BuildProfile::Release
            },
        })
    }

    pub async fn settings_get(&self, _params: SettingsGetParams) -> Result<Settings, ApiError> {
        Ok(self.inner.settings.get().await)
    }

    pub async fn settings_update(&self, patch: SettingsPatch) -> Result<Settings, ApiError> {
        Ok(self.inner.settings.update(patch).await?)
    }
}

#[cfg(test)]
mod tests;
