//! Command dispatch: one typed adapter per protocol command, looked up by name.
//!
//! Every command goes through [`CommandRegistry::dispatch`], so unknown names
//! and malformed params come back to the UI as an `INVALID_INPUT` [`ApiError`]
//! rather than a Tauri string error.
//!
//! A streaming command (`thread_subscribe`) also gets the invoke's channel
//! (the [`STREAM_CHANNEL_ARG`] argument), typed by the command's event: its
//! messages go to the calling page's outbox (see outbox.rs), which the page
//! fetches with `outbox_take`.
//!
//! Each call is checked against the calling webview's scope
//! ([`WindowScope`]): a command its window never needs is `PERMISSION_DENIED`
//! before any params are read.

use crate::outbox::{Outbox, Outboxes};
use pizza_host::Host;
use pizza_protocol::{
    ApiError, Command, ErrorCode, OUTBOX_WAIT_SECS, STREAM_CHANNEL_ARG, STREAM_CHANNEL_PREFIX,
    StreamingCommand, WindowScope, cmd,
};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tauri::Manager;
use tauri::ipc::Channel;

type Reply = Pin<Box<dyn Future<Output = Result<Value, ApiError>> + Send>>;
/// Who made a call: the webview's label, its page's outbox and, when the
/// invoke had one, the page's id of its channel (the streaming adapter
/// makes it a channel of the command's event type).
pub(crate) struct Call {
    pub(crate) window: String,
    pub(crate) outbox: Option<Arc<Outbox>>,
    pub(crate) channel: Option<u32>,
}

type Handler = Arc<dyn Fn(Host, Value, Call) -> Reply + Send + Sync>;

/// What the commands run against: the host, or the reason it could not open.
#[derive(Debug, Clone)]
pub(crate) enum HostSlot {
    Ready(Host),
    /// Startup failed; every command answers this error so the window can
    /// explain what happened instead of showing a broken app.
    Failed(ApiError),
}

#[derive(Clone, Default)]
pub struct CommandRegistry {
    handlers: HashMap<&'static str, Handler>,
    /// The commands registered with a channel.
    streaming: BTreeSet<&'static str>,
}

impl std::fmt::Debug for CommandRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandRegistry")
            .field("commands", &self.names())
            .finish()
    }
}

impl CommandRegistry {
    /// Every command the app serves.
    pub fn new() -> Self {
        let mut registry = Self::default();
        crate::commands::register_all(&mut registry);
        registry
    }

    /// Registers the adapter for `C`. Registering a command twice is a bug.
    pub(crate) fn register<C, F, Fut>(&mut self, handler: F)
    where
        C: Command,
        F: Fn(Host, C::Params) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<C::Response, ApiError>> + Send + 'static,
    {
        self.register_from_window::<C, _, _>(move |host, _window, params| handler(host, params));
    }

    /// Registers the adapter for `C` that needs to know the calling window
    /// (its label), e.g. to bind what it opens to that window.
    pub(crate) fn register_from_window<C, F, Fut>(&mut self, handler: F)
    where
        C: Command,
        F: Fn(Host, String, C::Params) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<C::Response, ApiError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let erased: Handler = Arc::new(move |host, raw, call: Call| {
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let params = parse_params::<C>(raw)?;
                let response = handler(host, call.window, params).await?;
                serde_json::to_value(response).map_err(|e| {
                    ApiError::general(format!("Could not encode the answer to {}.", C::NAME))
                        .with_details(e.to_string())
                })
            })
        });
        let previous = self.handlers.insert(C::NAME, erased);
        debug_assert!(previous.is_none(), "{} registered twice", C::NAME);
    }

    /// Registers the adapter for a command that streams its events over the
    /// invoke's channel; a call without one is `INVALID_INPUT`. The adapter
    /// gets the calling window's label too.
    pub(crate) fn register_streaming<C, F, Fut>(&mut self, handler: F)
    where
        C: StreamingCommand,
        F: Fn(Host, String, C::Params, Channel<C::Event>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<C::Response, ApiError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let erased: Handler = Arc::new(move |host, raw, call: Call| {
            let handler = Arc::clone(&handler);
            Box::pin(async move {
                let (Some(outbox), Some(id)) = (call.outbox, call.channel) else {
                    return Err(ApiError::invalid_input(format!(
                        "{} needs a channel in “{STREAM_CHANNEL_ARG}”.",
                        C::NAME
                    )));
                };
                let params = parse_params::<C>(raw)?;
                let response = handler(host, call.window, params, outbox.channel(id)).await?;
                serde_json::to_value(response).map_err(|e| {
                    ApiError::general(format!("Could not encode the answer to {}.", C::NAME))
                        .with_details(e.to_string())
                })
            })
        });
        let previous = self.handlers.insert(C::NAME, erased);
        debug_assert!(previous.is_none(), "{} registered twice", C::NAME);
        self.streaming.insert(C::NAME);
    }

    /// Registers `outbox_take`: what the calling page's outbox holds, waited
    /// for up to [`OUTBOX_WAIT_SECS`].
    pub(crate) fn register_outbox(&mut self) {
        let erased: Handler = Arc::new(|_host, raw, call: Call| {
            Box::pin(async move {
                parse_params::<cmd::OutboxTake>(raw)?;
                let outbox = call.outbox.ok_or_else(|| {
                    ApiError::general("This window has no outbox: it is not one of the app's.")
                })?;
                let messages = outbox.take(Duration::from_secs(OUTBOX_WAIT_SECS)).await;
                serde_json::to_value(messages).map_err(|e| {
                    ApiError::general("Could not encode the window's messages.")
                        .with_details(e.to_string())
                })
            })
        });
        let previous = self.handlers.insert(cmd::OutboxTake::NAME, erased);
        debug_assert!(previous.is_none(), "outbox_take registered twice");
    }

    pub fn names(&self) -> BTreeSet<&'static str> {
        self.handlers.keys().copied().collect()
    }

    /// The commands that take a channel.
    pub fn streaming_names(&self) -> BTreeSet<&'static str> {
        self.streaming.clone()
    }

    /// A call from the main window without a channel (the app always goes
    /// through `dispatch_with`).
    #[cfg(test)]
    pub(crate) async fn dispatch(
        &self,
        slot: &HostSlot,
        name: &str,
        raw: Value,
    ) -> Result<Value, ApiError> {
        self.dispatch_with(
            slot,
            name,
            raw,
            Call {
                window: WindowScope::Main.label().to_owned(),
                outbox: None,
                channel: None,
            },
        )
        .await
    }

    /// Answers `call`: unknown commands are `INVALID_INPUT`, a command
    /// outside the calling window's scope `PERMISSION_DENIED`.
    pub(crate) async fn dispatch_with(
        &self,
        slot: &HostSlot,
        name: &str,
        raw: Value,
        call: Call,
    ) -> Result<Value, ApiError> {
        let Some(handler) = self.handlers.get(name) else {
            return Err(ApiError::invalid_input(format!(
                "Unknown command “{name}”."
            )));
        };
        if !WindowScope::for_label(&call.window).is_some_and(|scope| scope.allows(name)) {
            tracing::warn!(window = %call.window, command = name, "command outside the window's scope refused");
            return Err(ApiError::new(
                ErrorCode::PermissionDenied,
                format!("This window cannot use {name}; do it from the main window."),
            ));
        }
        match slot {
            HostSlot::Ready(host) => handler(host.clone(), raw, call).await,
            HostSlot::Failed(error) => Err(error.clone()),
        }
    }
}

fn parse_params<C: Command>(raw: Value) -> Result<C::Params, ApiError> {
    // Tauri sends `{}` for a call without arguments; treat null the same way.
    let raw = if raw.is_null() {
        Value::Object(Default::default())
    } else {
        raw
    };
    serde_json::from_value(raw).map_err(|e| {
        ApiError::invalid_input(format!("The request for {} is malformed.", C::NAME))
            .with_details(e.to_string())
    })
}

/// The Tauri invoke handler: decodes the call and answers through the registry.
pub(crate) fn invoke_handler<R: tauri::Runtime>(
    registry: CommandRegistry,
    slot: HostSlot,
) -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
    let registry = Arc::new(registry);
    move |invoke| {
        let name = invoke.message.command().to_owned();
        let raw = match invoke.message.payload() {
            tauri::ipc::InvokeBody::Json(value) => Ok(value.clone()),
            tauri::ipc::InvokeBody::Raw(_) => Err(ApiError::invalid_input(format!(
                "The request for {name} must be JSON."
            ))),
        };
        let webview = invoke.message.webview();
        let (raw, channel) = match raw {
            Ok(raw) => match take_channel(raw) {
                Ok((raw, channel)) => (Ok(raw), channel),
                Err(error) => (Err(error), None),
            },
            Err(error) => (Err(error), None),
        };
        let outbox = webview
            .try_state::<Outboxes>()
            .map(|outboxes| outboxes.get(webview.label()));
        let call = Call {
            window: webview.label().to_owned(),
            outbox,
            channel,
        };
        let registry = Arc::clone(&registry);
        let slot = slot.clone();
        invoke.resolver.respond_async(async move {
            let result = match raw {
                Ok(raw) => registry.dispatch_with(&slot, &name, raw, call).await,
                Err(error) => Err(error),
            };
            result.map_err(|error| {
                tracing::debug!(command = %name, code = %error.code, "command failed");
                tauri::ipc::InvokeError::from(error)
            })
        });
        true
    }
}

/// Takes the channel argument out of the params (so they stay exactly the
/// declared type): the page's id for it.
fn take_channel(mut raw: Value) -> Result<(Value, Option<u32>), ApiError> {
    let Some(value) = raw
        .as_object_mut()
        .and_then(|o| o.remove(STREAM_CHANNEL_ARG))
    else {
        return Ok((raw, None));
    };
    let id = value
        .as_str()
        .and_then(|text| text.strip_prefix(STREAM_CHANNEL_PREFIX))
        .and_then(|id| id.parse::<u32>().ok())
        .ok_or_else(|| {
            ApiError::invalid_input(format!("“{STREAM_CHANNEL_ARG}” is not a channel."))
                .with_details(format!("{value} is not {STREAM_CHANNEL_PREFIX}<id>"))
        })?;
    Ok((raw, Some(id)))
}

#[cfg(test)]
#[path = "ipc_scope_tests.rs"]
mod scope_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::{COMMANDS, ErrorCode, STREAMING_COMMANDS};
    use pizza_test_support::data_root::TempDataRoot;

    #[test]
    fn registered_commands_are_exactly_the_declared_ones() {
        let declared: BTreeSet<&str> = COMMANDS.iter().copied().collect();
        assert_eq!(CommandRegistry::new().names(), declared);
    }

    #[test]
    fn commands_registered_with_a_channel_are_exactly_the_streaming_ones() {
        let declared: BTreeSet<&str> = STREAMING_COMMANDS.iter().copied().collect();
        assert_eq!(CommandRegistry::new().streaming_names(), declared);
    }

    fn main_with(outbox: &Arc<Outbox>, channel: u32) -> Call {
        Call {
            window: WindowScope::Main.label().to_owned(),
            outbox: Some(Arc::clone(outbox)),
            channel: Some(channel),
        }
    }

    async fn ready_slot(root: &TempDataRoot) -> HostSlot {
        let data_root = pizza_host::DataRoot::prepare(root.path()).unwrap();
        HostSlot::Ready(
            Host::open(data_root, pizza_host::HostOptions::default())
                .await
                .unwrap(),
        )
    }

    #[tokio::test]
    async fn unknown_commands_and_malformed_params_are_invalid_input() {
        let root = TempDataRoot::new().unwrap();
        let slot = ready_slot(&root).await;
        let registry = CommandRegistry::new();

        let unknown = registry
            .dispatch(&slot, "thread_explode", Value::Null)
            .await
            .unwrap_err();
        assert_eq!(unknown.code, ErrorCode::InvalidInput);

        let malformed = registry
            .dispatch(
                &slot,
                "settings_update",
                serde_json::json!({"theme": "neon"}),
            )
            .await
            .unwrap_err();
        assert_eq!(malformed.code, ErrorCode::InvalidInput);
        let not_an_object = registry
            .dispatch(&slot, "settings_update", serde_json::json!([1, 2]))
            .await
            .unwrap_err();
        assert_eq!(not_an_object.code, ErrorCode::InvalidInput);

        // Nothing was written by the refused update.
        let settings = registry
            .dispatch(&slot, "settings_get", Value::Null)
            .await
            .unwrap();
        assert_eq!(settings["theme"], "system");
    }

    #[tokio::test]
    async fn commands_round_trip_through_json() {
        let root = TempDataRoot::new().unwrap();
        let slot = ready_slot(&root).await;
        let registry = CommandRegistry::new();
        let updated = registry
            .dispatch(
                &slot,
                "settings_update",
                serde_json::json!({"theme": "dark"}),
            )
            .await
            .unwrap();
        assert_eq!(updated["theme"], "dark");
        let info = registry
            .dispatch(&slot, "app_info", serde_json::json!({}))
            .await
            .unwrap();
        assert_eq!(info["name"], "Pizza Bot");
    }

    #[tokio::test]
    async fn thread_subscribe_needs_a_channel_and_then_acknowledges() {
        let root = TempDataRoot::new().unwrap();
        let slot = ready_slot(&root).await;
        let registry = CommandRegistry::new();
        let thread = registry
            .dispatch(&slot, "thread_create", serde_json::json!({}))
            .await
            .unwrap();
        let params = serde_json::json!({"thread_id": thread["id"]});
        let refused = registry
            .dispatch(&slot, "thread_subscribe", params.clone())
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidInput);
        let outbox = Arc::new(Outbox::default());
        let ack = registry
            .dispatch_with(&slot, "thread_subscribe", params, main_with(&outbox, 5))
            .await
            .unwrap();
        assert!(ack["subscription_id"].as_str().is_some());
        assert!(ack["live_run_id"].is_null());
    }

    #[test]
    fn a_channel_argument_is_taken_out_of_the_params() {
        let (params, id) =
            take_channel(serde_json::json!({"thread_id": "t1", "on_event": "__CHANNEL__:77"}))
                .unwrap();
        assert_eq!(params, serde_json::json!({"thread_id": "t1"}));
        assert_eq!(id, Some(77));
        let (_, none) = take_channel(serde_json::json!({"thread_id": "t1"})).unwrap();
        assert_eq!(none, None);
        for bad in [
            serde_json::json!("77"),
            serde_json::json!(77),
            serde_json::json!("__CHANNEL__:x"),
        ] {
            let error = take_channel(serde_json::json!({ "on_event": bad })).unwrap_err();
            assert_eq!(error.code, ErrorCode::InvalidInput);
        }
    }

    #[tokio::test]
    async fn outbox_take_answers_the_calling_pages_messages() {
        let root = TempDataRoot::new().unwrap();
        let slot = ready_slot(&root).await;
        let registry = CommandRegistry::new();
        let outbox = Arc::new(Outbox::default());
        outbox.push(pizza_protocol::PageMessage::App {
            event: pizza_protocol::AppEvent::SkillsChanged,
        });
        let answer = registry
            .dispatch_with(
                &slot,
                "outbox_take",
                serde_json::json!({}),
                main_with(&outbox, 0),
            )
            .await
            .unwrap();
        assert_eq!(
            answer,
            serde_json::json!([{"kind": "app", "event": {"type": "skills_changed"}}])
        );
        let homeless = registry
            .dispatch(&slot, "outbox_take", serde_json::json!({}))
            .await
            .unwrap_err();
        assert_eq!(homeless.code, ErrorCode::General);
    }

    #[tokio::test]
    async fn a_failed_startup_answers_every_command_with_its_reason() {
        let slot = HostSlot::Failed(ApiError::general("The data folder /x cannot be used."));
        let error = CommandRegistry::new()
            .dispatch(&slot, "app_info", Value::Null)
            .await
            .unwrap_err();
        assert_eq!(error.message, "The data folder /x cannot be used.");
    }
}
