//! Command dispatch: one typed adapter per protocol command, looked up by name.
//!
//! Every command goes through [`CommandRegistry::dispatch`], so unknown names
//! and malformed params come back to the UI as an `INVALID_INPUT` [`ApiError`]
//! rather than a Tauri string error.
//!
//! A streaming command (`thread_subscribe`) also gets the invoke's channel
//! (the [`STREAM_CHANNEL_ARG`] argument), typed by the command's event.
//!
//! Each call is checked against the calling webview's scope
//! ([`WindowScope`]): a command its window never needs is `PERMISSION_DENIED`
//! before any params are read.

use pizza_host::Host;
use pizza_protocol::{
    ApiError, Command, ErrorCode, STREAM_CHANNEL_ARG, StreamingCommand, WindowScope,
};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tauri::ipc::Channel;

type Reply = Pin<Box<dyn Future<Output = Result<Value, ApiError>> + Send>>;
/// Who made a call: the webview's label and, when the invoke had one, its
/// channel (still untyped: the streaming adapter gives it its event type).
pub(crate) struct Call {
    pub(crate) window: String,
    pub(crate) channel: Option<Channel>,
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
                let channel = call.channel.ok_or_else(|| {
                    ApiError::invalid_input(format!(
                        "{} needs a channel in “{STREAM_CHANNEL_ARG}”.",
                        C::NAME
                    ))
                })?;
                let params = parse_params::<C>(raw)?;
                let response = handler(host, call.window, params, typed(channel)).await?;
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
            Ok(raw) => match take_channel(raw, &webview) {
                Ok((raw, channel)) => (Ok(raw), channel),
                Err(error) => (Err(error), None),
            },
            Err(error) => (Err(error), None),
        };
        let call = Call {
            window: webview.label().to_owned(),
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
/// declared type) and wires it to the calling webview, as Tauri's own
/// `Channel` command argument does. Which events it carries is up to the
/// command: see [`typed`].
fn take_channel<R: tauri::Runtime>(
    mut raw: Value,
    webview: &tauri::Webview<R>,
) -> Result<(Value, Option<Channel>), ApiError> {
    let Some(value) = raw
        .as_object_mut()
        .and_then(|o| o.remove(STREAM_CHANNEL_ARG))
    else {
        return Ok((raw, None));
    };
    let id: tauri::ipc::JavaScriptChannelId = serde_json::from_value(value).map_err(|e| {
        ApiError::invalid_input(format!("“{STREAM_CHANNEL_ARG}” is not a channel."))
            .with_details(e.to_string())
    })?;
    Ok((raw, Some(id.channel_on(webview.clone()))))
}

/// The invoke's channel as one that only takes `E`: each event is encoded
/// the way `Channel<E>::send` encodes it, then passed on. Dropping the typed
/// channel drops the invoke's, which tells the window the stream ended.
fn typed<E: serde::Serialize>(channel: Channel) -> Channel<E> {
    Channel::new(move |body| channel.send(body))
}

#[cfg(test)]
#[path = "ipc_scope_tests.rs"]
mod scope_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_protocol::{COMMANDS, ErrorCode, RunEventFrame, STREAMING_COMMANDS};
    use pizza_test_support::data_root::TempDataRoot;
    use std::sync::Mutex;

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

    fn main_with(channel: Channel) -> Call {
        Call {
            window: WindowScope::Main.label().to_owned(),
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
        let channel = Channel::new(|_body| Ok(()));
        let ack = registry
            .dispatch_with(&slot, "thread_subscribe", params, main_with(channel))
            .await
            .unwrap();
        assert!(ack["subscription_id"].as_str().is_some());
        assert!(ack["live_run_id"].is_null());
    }

    #[test]
    fn a_typed_channel_sends_its_events_as_their_json() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let raw = {
            let sent = Arc::clone(&sent);
            Channel::new(move |body| {
                if let tauri::ipc::InvokeResponseBody::Json(json) = body {
                    sent.lock().unwrap().push(json);
                }
                Ok(())
            })
        };
        let frame = RunEventFrame {
            seq: 7,
            run_id: "r1".into(),
            thread_id: "t1".into(),
            namespace: Vec::new(),
            event: pizza_protocol::RunEvent::Lagged,
        };
        typed::<RunEventFrame>(raw).send(frame.clone()).unwrap();
        let sent = sent.lock().unwrap();
        assert_eq!(sent.len(), 1);
        let decoded: RunEventFrame = serde_json::from_str(&sent[0]).unwrap();
        assert_eq!(decoded, frame);
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
