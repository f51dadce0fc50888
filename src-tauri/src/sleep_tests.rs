//! The watcher against a fake logind on a private bus: its own
//! `dbus-daemon`, a fake that owns `org.freedesktop.login1`, hands out an
//! inhibitor fd per `Inhibit` and emits `PrepareForSleep` when told.

use super::*;
use std::io::{BufRead, BufReader, ErrorKind, Read};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use tokio::sync::{mpsc, oneshot};
use zbus::object_server::SignalEmitter;

const LOGIND: &str = "org.freedesktop.login1";
const LOGIND_PATH: &str = "/org/freedesktop/login1";
/// Fails a test that would otherwise hang on a missing event.
const DEADLINE: Duration = Duration::from_secs(20);

/// A bus of the test's own: nothing is activated on it and nothing else uses it.
struct PrivateBus {
    daemon: Child,
    address: String,
    _dir: tempfile::TempDir,
}

impl PrivateBus {
    fn start() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = dir.path().join("bus.conf");
        std::fs::write(
            &config,
            format!(
                "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n \
                 \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n\
                 <busconfig>\n  <listen>unix:dir={}</listen>\n  <auth>EXTERNAL</auth>\n  \
                 <policy context=\"default\">\n    <allow send_destination=\"*\" eavesdrop=\"true\"/>\n    \
                 <allow eavesdrop=\"true\"/>\n    <allow own=\"*\"/>\n  </policy>\n</busconfig>\n",
                dir.path().display()
            ),
        )
        .expect("bus config");
        let mut daemon = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--print-address=1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            // It complains it may not raise its fd limit when not run by root.
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon (Debian package dbus-daemon)");
        // The address is printed once the bus listens.
        let mut address = String::new();
        BufReader::new(daemon.stdout.take().expect("piped stdout"))
            .read_line(&mut address)
            .expect("the bus address");
        assert!(!address.trim().is_empty(), "dbus-daemon printed no address");
        Self {
            daemon,
            address: address.trim().to_owned(),
            _dir: dir,
        }
    }

    async fn connect(&self) -> zbus::Connection {
        zbus::connection::Builder::address(self.address.as_str())
            .expect("address")
            .build()
            .await
            .expect("connected to the private bus")
    }
}

impl Drop for PrivateBus {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// One `Inhibit` call: its arguments and the fake's end of the fd it handed out.
struct Inhibit {
    args: [String; 4],
    held: UnixStream,
}

impl Inhibit {
    /// Whether the caller still holds its end: a closed one reads as EOF.
    fn released(&self) -> bool {
        self.held.set_nonblocking(true).expect("non-blocking");
        let mut byte = [0u8; 1];
        match (&self.held).read(&mut byte) {
            Ok(0) => true,
            Err(e) if e.kind() == ErrorKind::WouldBlock => false,
            other => panic!("unexpected read on the inhibitor: {other:?}"),
        }
    }

    /// Waits until the caller closed its end.
    async fn wait_released(self) {
        let held = self.held;
        let eof = tokio::task::spawn_blocking(move || {
            held.set_nonblocking(false).expect("blocking");
            let mut byte = [0u8; 1];
            (&held).read(&mut byte)
        });
        let read = tokio::time::timeout(DEADLINE, eof)
            .await
            .expect("the inhibitor was never released")
            .expect("the reader ran");
        assert_eq!(read.expect("read"), 0, "EOF once released");
    }
}

struct FakeLogind {
    inhibits: mpsc::UnboundedSender<Inhibit>,
}

#[zbus::interface(name = "org.freedesktop.login1.Manager")]
impl FakeLogind {
    fn inhibit(
        &self,
        what: String,
        who: String,
        why: String,
        mode: String,
    ) -> zbus::fdo::Result<OwnedFd> {
        let (held, handed_out) =
            UnixStream::pair().map_err(|e| zbus::fdo::Error::Failed(e.to_string()))?;
        self.inhibits
            .send(Inhibit {
                args: [what, who, why, mode],
                held,
            })
            .map_err(|e| zbus::fdo::Error::Failed(e.to_string()))?;
        Ok(OwnedFd::from(std::os::fd::OwnedFd::from(handed_out)))
    }

    #[zbus(signal)]
    async fn prepare_for_sleep(emitter: &SignalEmitter<'_>, start: bool) -> zbus::Result<()>;
}

/// Records each event; holds `Sleeping` until the test lets it go on, so the
/// test can see the inhibitor is still held while the host pauses.
struct Recorder {
    events: mpsc::UnboundedSender<PowerEvent>,
    finish_sleeping: Mutex<Option<oneshot::Receiver<()>>>,
}

impl PowerListener for Recorder {
    async fn power_changed(&self, event: PowerEvent) {
        self.events.send(event).expect("the test listens");
        if event == PowerEvent::Sleeping {
            let finish = self.finish_sleeping.lock().expect("lock").take();
            if let Some(finish) = finish {
                let _ = finish.await;
            }
        }
    }
}

async fn next<T>(receiver: &mut mpsc::UnboundedReceiver<T>, what: &str) -> T {
    tokio::time::timeout(DEADLINE, receiver.recv())
        .await
        .unwrap_or_else(|_| panic!("no {what} in time"))
        .unwrap_or_else(|| panic!("the {what} channel closed"))
}

#[tokio::test]
async fn sleep_then_wake_are_reported_in_order_and_the_inhibitor_is_released_after_pausing() {
    let bus = PrivateBus::start();
    let (inhibit_tx, mut inhibits) = mpsc::unbounded_channel();
    let logind = zbus::connection::Builder::address(bus.address.as_str())
        .expect("address")
        .name(LOGIND)
        .expect("name")
        .serve_at(
            LOGIND_PATH,
            FakeLogind {
                inhibits: inhibit_tx,
            },
        )
        .expect("served")
        .build()
        .await
        .expect("the fake logind is on the bus");
    let emitter = SignalEmitter::new(&logind, LOGIND_PATH).expect("emitter");

    let (event_tx, mut events) = mpsc::unbounded_channel();
    let (finish_tx, finish_rx) = oneshot::channel();
    let recorder = Arc::new(Recorder {
        events: event_tx,
        finish_sleeping: Mutex::new(Some(finish_rx)),
    });
    let app_bus = bus.connect().await;
    let watcher = tokio::spawn(async move { watch(&app_bus, recorder).await });

    // Armed: subscribed, then a delay inhibitor taken.
    let first = next(&mut inhibits, "Inhibit call").await;
    assert_eq!(
        first.args,
        ["sleep", "Pizza Bot", "Pausing schedules", "delay"].map(str::to_owned)
    );
    assert!(!first.released());

    FakeLogind::prepare_for_sleep(&emitter, true)
        .await
        .expect("signal sent");
    assert_eq!(next(&mut events, "power event").await, PowerEvent::Sleeping);
    // While the host pauses, logind is still held back.
    assert!(!first.released(), "released before pausing finished");
    finish_tx.send(()).expect("the recorder waits");
    first.wait_released().await;

    FakeLogind::prepare_for_sleep(&emitter, false)
        .await
        .expect("signal sent");
    // Re-armed on wake, then the host is told.
    let again = next(&mut inhibits, "second Inhibit call").await;
    assert_eq!(again.args[3], "delay");
    assert_eq!(next(&mut events, "power event").await, PowerEvent::Woke);
    assert!(!again.released());
    assert!(events.try_recv().is_err(), "one event per signal");

    // The bus going away ends the watch without an error.
    drop(logind);
    drop(bus);
    let ended = tokio::time::timeout(DEADLINE, watcher)
        .await
        .expect("the watch ends with the bus")
        .expect("the watch task ran");
    assert!(ended.is_ok(), "{ended:?}");
}

#[tokio::test]
async fn a_bus_without_logind_is_reported_as_such() {
    let bus = PrivateBus::start();
    let (event_tx, _events) = mpsc::unbounded_channel();
    let recorder = Arc::new(Recorder {
        events: event_tx,
        finish_sleeping: Mutex::new(None),
    });
    let connection = bus.connect().await;
    let outcome = tokio::time::timeout(DEADLINE, watch(&connection, recorder))
        .await
        .expect("answered in time");
    assert!(matches!(outcome, Err(WatchError::NoLogind)), "{outcome:?}");
}
