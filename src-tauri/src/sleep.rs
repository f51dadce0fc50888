//! Sleep and wake: logind's `PrepareForSleep(bool)` on the system bus tells
//! the host before the machine sleeps (it disarms its timers) and after it
//! woke (it rebuilds schedules and recovers missed fires once).
//!
//! While armed the app holds a logind *delay* inhibitor: logind waits for it
//! to be released (up to its `InhibitDelayMaxSec`) before sleeping, so the
//! host has disarmed before the clock stops. It is released once the host
//! handled `Sleeping` and taken again on wake. Without a system bus or
//! logind (containers, CI) nothing is watched and the app carries on.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use zbus::zvariant::OwnedFd;

use pizza_host::{Host, PowerEvent};

/// Who is told about sleep and wake: the host in the app, a recorder in tests.
pub(crate) trait PowerListener: Send + Sync + 'static {
    /// Returns once the event is handled; for `Sleeping` the machine waits
    /// for that (up to [`SLEEP_HANDLING_LIMIT`]).
    fn power_changed(&self, event: PowerEvent) -> impl Future<Output = ()> + Send;
}

impl PowerListener for Host {
    async fn power_changed(&self, event: PowerEvent) {
        // The scheduler is marked asleep (or awake) before this returns;
        // its task disarms or rebuilds the timers from that mark.
        Host::power_changed(self, event);
    }
}

/// How long the machine is held back for the host to pause: under logind's
/// default `InhibitDelayMaxSec` (5 s), so the release is ours, not a timeout.
pub(crate) const SLEEP_HANDLING_LIMIT: Duration = Duration::from_secs(4);

/// What the inhibitor says in `systemd-inhibit --list`.
const INHIBIT_WHAT: &str = "sleep";
const INHIBIT_WHO: &str = "Pizza Bot";
const INHIBIT_WHY: &str = "Pausing schedules";
const INHIBIT_MODE: &str = "delay";

#[zbus::proxy(
    interface = "org.freedesktop.login1.Manager",
    default_service = "org.freedesktop.login1",
    default_path = "/org/freedesktop/login1",
    gen_blocking = false
)]
trait LoginManager {
    fn inhibit(&self, what: &str, who: &str, why: &str, mode: &str) -> zbus::Result<OwnedFd>;

    #[zbus(signal)]
    fn prepare_for_sleep(&self, start: bool) -> zbus::Result<()>;
}

/// Why watching stopped or never began.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WatchError {
    /// Nobody serves `org.freedesktop.login1` on the bus.
    #[error("logind is not running")]
    NoLogind,
    #[error(transparent)]
    Bus(#[from] zbus::Error),
}

/// Watches the system bus for the app's life, telling `listener`. Logs (once,
/// at info) and returns when there is no system bus or no logind.
#[allow(
    dead_code,
    reason = "started from setup once the host can pause its schedules"
)]
pub(crate) fn start<L: PowerListener>(listener: Arc<L>) {
    tauri::async_runtime::spawn(async move {
        let connection = match zbus::Connection::system().await {
            Ok(connection) => connection,
            Err(error) => {
                tracing::info!(%error, "no system bus: sleep and wake are not watched");
                return;
            }
        };
        match watch(&connection, listener).await {
            Ok(()) => tracing::info!("the system bus closed: sleep and wake are no longer watched"),
            Err(WatchError::NoLogind) => {
                tracing::info!("logind is not running: sleep and wake are not watched");
            }
            Err(WatchError::Bus(error)) => {
                tracing::warn!(%error, "sleep and wake are not watched");
            }
        }
    });
}

/// Subscribes to `PrepareForSleep` on `connection`, takes the inhibitor and
/// tells `listener` about each sleep and wake, in order, until the
/// connection closes.
pub(crate) async fn watch<L: PowerListener>(
    connection: &zbus::Connection,
    listener: Arc<L>,
) -> Result<(), WatchError> {
    let manager = LoginManagerProxy::new(connection).await?;
    // Subscribed before inhibiting: a sleep that starts in between is seen.
    let mut signals = manager.receive_prepare_for_sleep().await?;
    let mut inhibitor = match take_inhibitor(&manager).await {
        Ok(fd) => Some(fd),
        Err(error) if no_logind(&error) => return Err(WatchError::NoLogind),
        Err(error) => {
            tracing::warn!(%error, "no sleep inhibitor: the machine may sleep before schedules pause");
            None
        }
    };
    tracing::info!("watching logind for sleep and wake");
    while let Some(signal) = signals.next().await {
        let start = match signal.args() {
            Ok(args) => args.start,
            Err(error) => {
                tracing::debug!(%error, "an unreadable PrepareForSleep");
                continue;
            }
        };
        if start {
            tracing::info!("the machine is about to sleep: pausing schedules");
            let handling = listener.power_changed(PowerEvent::Sleeping);
            tokio::pin!(handling);
            if tokio::time::timeout(SLEEP_HANDLING_LIMIT, &mut handling)
                .await
                .is_err()
            {
                tracing::warn!(
                    limit = ?SLEEP_HANDLING_LIMIT,
                    "pausing schedules is slow: letting the machine sleep now"
                );
                drop(inhibitor.take());
                handling.await;
            }
            // Closing our end of the inhibitor lets logind go on.
            drop(inhibitor.take());
        } else {
            tracing::info!("the machine woke: rebuilding schedules");
            // Taken first, so a sleep right after waking is held back too.
            inhibitor = match take_inhibitor(&manager).await {
                Ok(fd) => Some(fd),
                Err(error) => {
                    tracing::warn!(%error, "could not take the sleep inhibitor again");
                    None
                }
            };
            listener.power_changed(PowerEvent::Woke).await;
        }
    }
    Ok(())
}

async fn take_inhibitor(manager: &LoginManagerProxy<'_>) -> zbus::Result<OwnedFd> {
    manager
        .inhibit(INHIBIT_WHAT, INHIBIT_WHO, INHIBIT_WHY, INHIBIT_MODE)
        .await
}

/// Whether a failed call means nobody serves logind on this bus.
fn no_logind(error: &zbus::Error) -> bool {
    const ABSENT: [&str; 3] = [
        "org.freedesktop.DBus.Error.ServiceUnknown",
        "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.UnknownObject",
    ];
    match error {
        zbus::Error::MethodError(name, _, _) => ABSENT.contains(&name.as_str()),
        zbus::Error::FDO(fdo) => matches!(
            **fdo,
            zbus::fdo::Error::ServiceUnknown(_)
                | zbus::fdo::Error::NameHasNoOwner(_)
                | zbus::fdo::Error::UnknownObject(_)
        ),
        _ => false,
    }
}

#[cfg(test)]
#[path = "sleep_tests.rs"]
mod tests;
