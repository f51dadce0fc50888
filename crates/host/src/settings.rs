//! `settings_get` / `settings_update`: preferences in the store's settings
//! table, one key per preference so a bad value only resets itself. The
//! settings live in the data root, so they are per device.

pub(crate) mod keys;

use crate::Host;
use crate::memory::MemoryService;
use crate::notify::Notifications;
use pizza_protocol::{
    AgentSettings, ApiError, DEFAULT_MAX_SUBAGENT_TOOL_CALLS, DEFAULT_MAX_TOOL_CALLS,
    MAX_TOOL_CALLS_LIMIT, PERSONA_MAX_CHARS, Settings, SettingsGetParams, SettingsPatch, Theme,
};
use pizza_store::Store;
use std::sync::{Arc, Mutex, PoisonError};

/// The preferences screen: the theme, the memory switch (its folder comes
/// from the memory service) and the notification kinds (read through the
/// notifications service, which obeys them).
#[derive(Debug)]
pub(crate) struct SettingsService {
    store: Store,
    memory: Arc<MemoryService>,
    notifications: Arc<Notifications>,
    /// The theme as stored, kept for windows made before their page has
    /// read the settings (see [`Host::theme`]).
    theme: Mutex<Theme>,
}

impl SettingsService {
    /// Reads the stored theme once; a store that cannot answer leaves the
    /// default, as `settings_get` would.
    pub(crate) async fn open(
        store: Store,
        memory: Arc<MemoryService>,
        notifications: Arc<Notifications>,
    ) -> Self {
        let theme = keys::THEME
            .read_or_default(&store)
            .await
            .unwrap_or_else(|error| {
                tracing::warn!(%error, "could not read the theme: the windows start in the system's");
                Theme::default()
            });
        Self {
            store,
            memory,
            notifications,
            theme: Mutex::new(theme),
        }
    }

    fn remember_theme(&self, theme: Theme) {
        *self.theme.lock().unwrap_or_else(PoisonError::into_inner) = theme;
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
        let persona = keys::AGENT_PERSONA
            .read(&self.store)
            .await
            .map_err(crate::HostError::from)?
            .unwrap_or_default();
        let max_tool_calls = keys::AGENT_MAX_TOOL_CALLS
            .read(&self.store)
            .await
            .map_err(crate::HostError::from)?
            .unwrap_or(DEFAULT_MAX_TOOL_CALLS);
        let max_subagent_tool_calls = keys::AGENT_MAX_SUBAGENT_TOOL_CALLS
            .read(&self.store)
            .await
            .map_err(crate::HostError::from)?
            .unwrap_or(DEFAULT_MAX_SUBAGENT_TOOL_CALLS);
        let mcp_tool_timeout_secs = keys::AGENT_MCP_TOOL_TIMEOUT_SECS
            .read(&self.store)
            .await
            .map_err(crate::HostError::from)?
            .unwrap_or(pizza_protocol::DEFAULT_MCP_TOOL_TIMEOUT_SECS);
        let eval_timeout_secs = eval_timeout_secs(&self.store).await?;
        self.remember_theme(theme);
        Ok(Settings {
            theme,
            memories_enabled: self.memory.memories_enabled().await?,
            notifications,
            agent: AgentSettings {
                persona,
                max_tool_calls,
                max_subagent_tool_calls,
                mcp_tool_timeout_secs,
                eval_timeout_secs,
            },
        })
    }

    /// The patch's agent fields, checked before anything is written.
    fn checked_agent(patch: &SettingsPatch) -> Result<(), ApiError> {
        if let Some(persona) = &patch.persona {
            let chars = persona.chars().count();
            if chars > PERSONA_MAX_CHARS {
                return Err(ApiError::invalid_input(format!(
                    "persona: {chars} characters; at most {PERSONA_MAX_CHARS} are kept"
                )));
            }
        }
        for (field, value) in [
            ("max_tool_calls", patch.max_tool_calls),
            ("max_subagent_tool_calls", patch.max_subagent_tool_calls),
        ] {
            if let Some(max) = value
                && max != -1
                && !(1..=MAX_TOOL_CALLS_LIMIT).contains(&max)
            {
                return Err(ApiError::invalid_input(format!(
                    "{field}: choose 1 to {MAX_TOOL_CALLS_LIMIT}, or -1 for no limit"
                )));
            }
        }
        for (field, value, max) in [
            (
                "mcp_tool_timeout_secs",
                patch.mcp_tool_timeout_secs,
                pizza_protocol::MCP_TOOL_TIMEOUT_MAX_SECS,
            ),
            (
                "eval_timeout_secs",
                patch.eval_timeout_secs,
                pizza_protocol::EVAL_TIMEOUT_MAX_SECS,
            ),
        ] {
            if let Some(secs) = value
                && !(1..=max).contains(&secs)
            {
                return Err(ApiError::invalid_input(format!(
                    "{field}: choose 1 to {max} seconds"
                )));
            }
        }
        Ok(())
    }

    async fn write_agent(&self, patch: &SettingsPatch) -> Result<(), ApiError> {
        if let Some(persona) = &patch.persona {
            let persona = persona.trim();
            if persona.is_empty() {
                keys::AGENT_PERSONA.delete(&self.store).await
            } else {
                keys::AGENT_PERSONA
                    .write(&self.store, &persona.to_owned())
                    .await
            }
            .map_err(crate::HostError::from)?;
        }
        for (key, value) in [
            (keys::AGENT_MAX_TOOL_CALLS, patch.max_tool_calls),
            (
                keys::AGENT_MAX_SUBAGENT_TOOL_CALLS,
                patch.max_subagent_tool_calls,
            ),
            (
                keys::AGENT_MCP_TOOL_TIMEOUT_SECS,
                patch.mcp_tool_timeout_secs,
            ),
            (keys::AGENT_EVAL_TIMEOUT_SECS, patch.eval_timeout_secs),
        ] {
            if let Some(max) = value {
                key.write(&self.store, &max)
                    .await
                    .map_err(crate::HostError::from)?;
            }
        }
        Ok(())
    }

    pub(crate) async fn settings_update(&self, patch: SettingsPatch) -> Result<Settings, ApiError> {
        Self::checked_agent(&patch)?;
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
        self.write_agent(&patch).await?;
        self.settings_get(SettingsGetParams {}).await
    }
}

/// Seconds one `eval` program may run, as set.
pub(crate) async fn eval_timeout_secs(store: &Store) -> crate::Result<i64> {
    Ok(keys::AGENT_EVAL_TIMEOUT_SECS
        .read(store)
        .await?
        .unwrap_or(pizza_protocol::DEFAULT_EVAL_TIMEOUT_SECS))
}

/// The settings commands: thin calls of the service.
impl Host {
    /// The theme as last stored (read at open, kept by every settings read
    /// and update), without a store round trip: a window being made starts
    /// in it before its page can ask.
    pub fn theme(&self) -> Theme {
        *self
            .inner
            .settings
            .theme
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub async fn settings_get(&self, params: SettingsGetParams) -> Result<Settings, ApiError> {
        self.inner.settings.settings_get(params).await
    }

    pub async fn settings_update(&self, patch: SettingsPatch) -> Result<Settings, ApiError> {
        let settings = self.inner.settings.settings_update(patch).await?;
        self.inner
            .mcp
            .policy()
            .set_timeout_secs(settings.agent.mcp_tool_timeout_secs);
        if let Some(eval) = &self.inner.eval {
            eval.set_timeout_secs(u64::try_from(settings.agent.eval_timeout_secs).unwrap_or(1));
        }
        Ok(settings)
    }
}

#[cfg(test)]
#[path = "settings/agent_tests.rs"]
mod agent_tests;
