//! Every settings key the host reads or writes, with the type of its value:
//! one table, so a key is never spelled twice or read as another type than
//! it was written. Reads and writes go through [`Key`]; the strings are the
//! ones earlier versions wrote, so upgrading keeps every preference.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::marker::PhantomData;

use pizza_protocol::{ApprovalPolicy, Theme, WindowPlace};
use pizza_store as store;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::providers::StoredProvider;

/// A settings key whose value is a `T`.
#[derive(Debug)]
pub(crate) struct Key<T> {
    name: Cow<'static, str>,
    value: PhantomData<fn() -> T>,
}

impl<T> Key<T> {
    const fn fixed(name: &'static str) -> Self {
        Self {
            name: Cow::Borrowed(name),
            value: PhantomData,
        }
    }

    #[cfg(test)]
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}

impl<T: Serialize + DeserializeOwned> Key<T> {
    /// The stored value; `None` when missing or no longer a `T`.
    pub(crate) async fn read(&self, store: &store::Store) -> store::Result<Option<T>> {
        store.setting_opt(&self.name).await
    }

    /// The stored value, or `T::default()` when missing or no longer a `T`.
    pub(crate) async fn read_or_default(&self, store: &store::Store) -> store::Result<T>
    where
        T: Default,
    {
        store.setting(&self.name).await
    }

    pub(crate) async fn write(&self, store: &store::Store, value: &T) -> store::Result<()> {
        store.set_setting(&self.name, value).await
    }

    /// Removes the value; reading it afterwards gives `None`.
    pub(crate) async fn delete(&self, store: &store::Store) -> store::Result<()> {
        store.delete_setting(&self.name).await
    }
}

pub(crate) const THEME: Key<Theme> = Key::fixed("ui.theme");
/// Whether the agent sees `/memories/` (off unless the person turns it on).
pub(crate) const MEMORIES_ENABLED: Key<bool> = Key::fixed("memory.enabled");

/// Tool calls per run (`-1`: unlimited).
pub(crate) const AGENT_MAX_TOOL_CALLS: Key<i64> = Key::fixed("agent.max_tool_calls");
/// Tool calls per subagent invocation (`-1`: unlimited).
pub(crate) const AGENT_MAX_SUBAGENT_TOOL_CALLS: Key<i64> =
    Key::fixed("agent.max_subagent_tool_calls");
/// Seconds one MCP tool call may take.
pub(crate) const AGENT_MCP_TOOL_TIMEOUT_SECS: Key<i64> = Key::fixed("agent.mcp_tool_timeout_secs");
pub(crate) const AGENT_EVAL_TIMEOUT_SECS: Key<i64> = Key::fixed("agent.eval_timeout_secs");
/// Tools whose calls wait for the user's decision, as earlier versions
/// kept them: read as "ask" for each, and folded into
/// [`APPROVAL_POLICIES`] on the first change there.
pub(crate) const AGENT_REQUIRE_APPROVAL: Key<BTreeSet<String>> =
    Key::fixed("agent.require_approval");
/// The person's approval policy per tool name (Settings › Approvals and
/// "Always allow" on the card); a tool without one follows its default.
pub(crate) const APPROVAL_POLICIES: Key<BTreeMap<String, ApprovalPolicy>> =
    Key::fixed("approvals.policies");
/// The user's addendum to the system prompt.
pub(crate) const AGENT_PERSONA: Key<String> = Key::fixed("agent.persona");

/// The last activity cursor the notifier handled.
pub(crate) const NOTIFICATIONS_CURSOR: Key<i64> = Key::fixed("notifications.cursor");
pub(crate) const NOTIFY_RUN_FINISHED: Key<bool> = Key::fixed("notifications.run_finished");
pub(crate) const NOTIFY_ACTION_REQUIRED: Key<bool> = Key::fixed("notifications.action_required");

/// The user's explicit default model; absent means "Automatic".
pub(crate) const DEFAULT_MODEL: Key<String> = Key::fixed("models.default");
/// The remembered automatic pick, so it only moves when the catalog is
/// complete and no longer offers it.
pub(crate) const DEFAULT_MODEL_AUTO: Key<String> = Key::fixed("models.default_auto");
/// Context windows the user set, by `provider:model`.
pub(crate) const CONTEXT_OVERRIDES: Key<BTreeMap<String, u32>> =
    Key::fixed("models.context_overrides");

/// Where the main window was left (screen and thread): the next start
/// lands there.
pub(crate) const WINDOW_PLACE: Key<WindowPlace> = Key::fixed("window.place");

/// The quick-ask shortcut (`""`: turned off; absent: the default).
pub(crate) const QUICK_ASK_SHORTCUT: Key<String> = Key::fixed("desktop.quick_ask_shortcut");

/// Whether triggers fire on their own (off until the person turns it on).
pub(crate) const AUTOMATIONS_ENABLED: Key<bool> = Key::fixed("automations.enabled");
/// When automations were last turned on (ms): ticks before it are not
/// caught up at the next start.
pub(crate) const AUTOMATIONS_ENABLED_AT: Key<i64> = Key::fixed("automations.enabled_at");
/// The loopback port of the webhook listener; absent: the default.
pub(crate) const WEBHOOK_PORT: Key<u16> = Key::fixed("automations.webhook_port");

/// The ids of the person's OpenAI-compatible servers (`compatible:<slug>`);
/// each one's configuration is under [`provider`].
pub(crate) const COMPATIBLE_PROVIDERS: Key<BTreeSet<String>> =
    Key::fixed("providers.compatible_ids");

/// One provider's saved, non-secret configuration.
pub(crate) fn provider(provider_id: &str) -> Key<StoredProvider> {
    Key {
        name: Cow::Owned(format!("providers.{provider_id}")),
        value: PhantomData,
    }
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
