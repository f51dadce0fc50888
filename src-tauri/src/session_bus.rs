//! The app's one connection to the D-Bus session bus, made on its runtime.

/// The session bus, connected at the first call and kept for the app's
/// life: connecting is the slow part, and a busy machine must not make a
/// question to the bus look unanswered.
pub(crate) async fn connection() -> zbus::Result<&'static zbus::Connection> {
    static SESSION: tokio::sync::OnceCell<zbus::Connection> = tokio::sync::OnceCell::const_new();
    SESSION.get_or_try_init(zbus::Connection::session).await
}
