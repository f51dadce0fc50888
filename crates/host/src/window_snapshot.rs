//! The main window's last look, for the next window to paint at once.
//!
//! A window's page paints its inbox only after its ~3 MB of wasm has loaded
//! and compiled and the list has come back: ~280 ms of a ~550 ms start. The
//! page sends the markup of what it shows when it changes and when it is
//! hidden (`window_snapshot_set`); the next window made (a start, or a
//! reopen after the window was released) shows that markup, inert, until
//! its own inbox has its list (`ui/snapshot.js`).
//!
//! A snapshot is only shown while it is true. An app event after it that
//! may change what it shows drops it (a thread changed, a run moved, a
//! notification clicked, an MCP server's status; the skills catalog only on
//! the Skills and MCP pages), and so does a run the last shutdown
//! interrupted. It is shown only in a window made on the place (screen and
//! thread) it was taken on; the automations' page, whose times are words
//! relative to today, only on the day it was taken (the inbox's day groups
//! are regrouped as it is shown). It is kept in the data root across restarts, with that
//! place and the version of the app that took it; a start lands where the
//! window was left (`presence.rs`), so it shows it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use jiff::Timestamp;
use jiff::tz::TimeZone;

use pizza_protocol::{ApiError, AppEvent, WindowPlace, WindowScreen, WindowSnapshot};

use crate::Host;
use crate::events::AppEvents;

/// The file in the data root.
const FILE_NAME: &str = "window-snapshot.html";
/// The largest snapshot kept: a long thread open is larger, and the window
/// then starts as it did without one.
pub(crate) const MAX_BYTES: usize = 1 << 20;
/// The first line of the file: who took it.
const HEADER: &str = concat!("pizza-bot ", env!("CARGO_PKG_VERSION"), "\n");

/// A window's markup and where the window was.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    pub(crate) html: Arc<str>,
    pub(crate) place: WindowPlace,
    /// When it was taken: the list groups threads by day ("Today").
    pub(crate) taken: SystemTime,
}

#[derive(Debug)]
pub(crate) struct WindowSnapshots {
    path: PathBuf,
    /// The last one, while nothing has changed since it was taken.
    current: Mutex<Option<Snapshot>>,
    /// Orders the file's writes and removals as their calls came.
    file: tokio::sync::Mutex<()>,
    /// Bumped by every change of `current`: a removal planned by a drop
    /// gives up if a snapshot was kept since.
    generation: AtomicU64,
}

impl WindowSnapshots {
    /// Reads the data root's snapshot, unless this app did not take it or
    /// `keep` is false (something changed at open).
    pub(crate) async fn open(data_root: &Path, keep: bool) -> Arc<Self> {
        let path = data_root.join(FILE_NAME);
        let current = if keep {
            read(&path).await
        } else {
            remove(&path).await;
            None
        };
        Arc::new(Self {
            path,
            current: Mutex::new(current),
            file: tokio::sync::Mutex::new(()),
            generation: AtomicU64::new(0),
        })
    }

    pub(crate) fn current(&self) -> Option<Snapshot> {
        self.lock().clone()
    }

    /// Drops the snapshot when an app event may change what it shows, as
    /// the event is emitted: a snapshot sent after it is kept.
    pub(crate) fn follow(self: &Arc<Self>, events: &AppEvents) {
        let snapshots = Arc::downgrade(self);
        let runtime = tokio::runtime::Handle::current();
        events.watch(move |event| {
            let Some(snapshots) = snapshots.upgrade() else {
                return;
            };
            let generation = {
                let mut current = snapshots.lock();
                let changes = current
                    .as_ref()
                    .is_some_and(|snapshot| may_change(event, &snapshot.place));
                if !changes {
                    return;
                }
                *current = None;
                snapshots.generation.fetch_add(1, Ordering::SeqCst) + 1
            };
            tracing::debug!(?event, "window snapshot dropped: something changed");
            runtime.spawn(async move {
                let _file = snapshots.file.lock().await;
                // Unless a newer snapshot came (and was written) since.
                if snapshots.generation.load(Ordering::SeqCst) == generation {
                    remove(&snapshots.path).await;
                }
            });
        });
    }

    /// Keeps `snapshot` (none: forgets the last one), here and in the file.
    async fn set(&self, snapshot: Option<Snapshot>) {
        let _file = self.file.lock().await;
        {
            let mut current = self.lock();
            self.generation.fetch_add(1, Ordering::SeqCst);
            *current = snapshot.clone();
        }
        match snapshot {
            Some(snapshot) => {
                if let Err(error) = write(&self.path, &snapshot).await {
                    tracing::warn!(%error, "could not keep the window's snapshot");
                }
            }
            None => remove(&self.path).await,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Snapshot>> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Whether `event` may change what a window on `place` shows: every event
/// does, but for the skills catalog (recompiled at every start, as MCP
/// servers settle) and plugins, which only the Skills and MCP pages show
/// (and follow).
fn may_change(event: &AppEvent, place: &WindowPlace) -> bool {
    match event {
        AppEvent::SkillsChanged | AppEvent::PluginsChanged => {
            matches!(place.screen, WindowScreen::Skills | WindowScreen::Mcp)
        }
        _ => true,
    }
}

/// Whether a snapshot taken on `place` still shows the truth on a later
/// day. The inbox's only words that follow the day are the thread list's
/// groups (Today, Yesterday…), which `ui/snapshot.js` regroups by the rows'
/// last activity as it shows them; Settings, Skills and MCP show dates, if
/// any, as dates. The automations' times are words relative to today ("Next:
/// Tomorrow 09:00"): their page is shown only on the day it was taken.
fn holds_on_later_days(place: &WindowPlace) -> bool {
    place.screen != WindowScreen::Automations
}

/// Whether `a` and `b` fall on one day in `zone`.
fn same_day(a: SystemTime, b: SystemTime, zone: &TimeZone) -> bool {
    let day = |time: SystemTime| {
        Timestamp::try_from(time)
            .ok()
            .map(|time| time.to_zoned(zone.clone()).date())
    };
    matches!((day(a), day(b)), (Some(a), Some(b)) if a == b)
}

/// The file: the header, the place as JSON on one line, then the markup.
async fn read(path: &Path) -> Option<Snapshot> {
    let taken = tokio::fs::metadata(path).await.ok()?.modified().ok()?;
    let text = tokio::fs::read_to_string(path).await.ok()?;
    let (place, html) = text.strip_prefix(HEADER)?.split_once('\n')?;
    let place = serde_json::from_str(place).ok()?;
    (!html.is_empty() && html.len() <= MAX_BYTES).then(|| Snapshot {
        html: Arc::from(html),
        place,
        taken,
    })
}

async fn write(path: &Path, snapshot: &Snapshot) -> std::io::Result<()> {
    let place = serde_json::to_string(&snapshot.place)?;
    let partial = path.with_extension("html.partial");
    tokio::fs::write(&partial, format!("{HEADER}{place}\n{}", snapshot.html)).await?;
    tokio::fs::rename(&partial, path).await
}

async fn remove(path: &Path) {
    match tokio::fs::remove_file(path).await {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => tracing::warn!(%error, "could not remove the window's snapshot"),
    }
}

impl Host {
    /// The main window's markup to show while a new window's page starts,
    /// if nothing has changed since the window sent it, on the same day,
    /// and the new window is made on the same place.
    pub fn window_snapshot(&self) -> Option<Arc<str>> {
        let snapshot = self.inner.snapshots.current()?;
        let place = self.window_place().unwrap_or_default();
        let holds = holds_on_later_days(&place)
            || same_day(snapshot.taken, SystemTime::now(), &TimeZone::system());
        (holds && snapshot.place == place).then_some(snapshot.html)
    }

    /// Keeps what the main window shows (none: it shows something too
    /// large to keep, so the last snapshot is no longer true).
    pub async fn window_snapshot_set(&self, params: WindowSnapshot) -> Result<(), ApiError> {
        let too_large = params
            .html
            .as_ref()
            .is_some_and(|html| html.len() > MAX_BYTES);
        let place = self.window_place().unwrap_or_default();
        let snapshot = params
            .html
            .filter(|html| !html.is_empty() && !too_large)
            .map(|html| Snapshot {
                html: Arc::from(html),
                place,
                taken: SystemTime::now(),
            });
        self.inner.snapshots.set(snapshot).await;
        if too_large {
            return Err(ApiError::invalid_input(format!(
                "html: a window snapshot is at most {MAX_BYTES} bytes"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pizza_test_support::data_root::TempDataRoot;

    fn snapshot(html: &str) -> WindowSnapshot {
        WindowSnapshot {
            html: Some(html.to_owned()),
        }
    }

    async fn keep(host: &Host, html: &str) {
        host.window_snapshot_set(snapshot(html)).await.unwrap();
    }

    fn shown(host: &Host) -> Option<String> {
        host.window_snapshot().map(|html| html.to_string())
    }

    fn change(host: &Host) {
        host.inner
            .events
            .emit(AppEvent::ThreadsChanged { thread_id: None });
    }

    fn on_thread(thread_id: &str) -> WindowPlace {
        WindowPlace {
            screen: WindowScreen::Inbox,
            thread_id: Some(thread_id.into()),
        }
    }

    /// Waits for the file's removal, which a task does after a drop.
    async fn removed(path: &Path) {
        tokio::time::timeout(std::time::Duration::from_secs(10), async {
            while path.exists() {
                tokio::task::yield_now().await;
            }
        })
        .await
        .unwrap();
    }

    #[tokio::test]
    async fn a_snapshot_is_shown_only_on_the_place_it_was_taken_on() {
        let root = TempDataRoot::new().unwrap();
        let host = crate::tests::open(&root).await;
        assert_eq!(host.window_snapshot(), None);
        let thread = host
            .thread_create(pizza_protocol::ThreadCreateParams::default())
            .await
            .unwrap();
        let on_it = on_thread(&thread.id);
        host.window_place_set(on_it.clone()).await.unwrap();
        keep(&host, "<div class=\"shell\">t1</div>").await;
        assert_eq!(
            shown(&host).as_deref(),
            Some("<div class=\"shell\">t1</div>")
        );
        // Another place: a window made there shows its own page only.
        host.window_place_set(WindowPlace::default()).await.unwrap();
        assert_eq!(host.window_snapshot(), None);
        keep(&host, "<div class=\"shell\">inbox</div>").await;
        host.close().await;

        // A start lands where the window was left, and shows its look.
        let host = crate::tests::open(&root).await;
        assert_eq!(host.window_place(), Some(WindowPlace::default()));
        assert_eq!(
            shown(&host).as_deref(),
            Some("<div class=\"shell\">inbox</div>")
        );
        host.window_place_set(on_it.clone()).await.unwrap();
        keep(&host, "<div class=\"shell\">t1</div>").await;
        host.close().await;
        let host = crate::tests::open(&root).await;
        assert_eq!(host.window_place(), Some(on_it));
        assert_eq!(
            shown(&host).as_deref(),
            Some("<div class=\"shell\">t1</div>")
        );
    }

    #[tokio::test]
    async fn any_change_drops_the_snapshot_here_and_on_disk() {
        let root = TempDataRoot::new().unwrap();
        let host = crate::tests::open(&root).await;
        keep(&host, "<div>before</div>").await;
        assert!(root.path().join(FILE_NAME).exists());
        change(&host);
        // Dropped as the event was emitted; the file follows.
        assert_eq!(host.window_snapshot(), None);
        removed(&root.path().join(FILE_NAME)).await;

        // A snapshot sent after an event is kept, on disk too, whatever
        // the order the drop's removal and the new write take.
        change(&host);
        keep(&host, "<div>after</div>").await;
        assert_eq!(shown(&host).as_deref(), Some("<div>after</div>"));
        host.close().await;
        let host = crate::tests::open(&root).await;
        assert_eq!(shown(&host).as_deref(), Some("<div>after</div>"));
        change(&host);
        removed(&root.path().join(FILE_NAME)).await;
        host.close().await;
        let host = crate::tests::open(&root).await;
        assert_eq!(host.window_snapshot(), None);
        assert_eq!(host.window_place(), None);
    }

    #[test]
    fn a_snapshot_of_another_day_is_not_shown() {
        let at = |text: &str| SystemTime::from(text.parse::<Timestamp>().unwrap());
        let paris = TimeZone::get("Europe/Paris").unwrap();
        let morning = at("2026-12-05T08:00:00Z");
        assert!(same_day(
            morning,
            at("2026-12-05T22:30:00Z"),
            &TimeZone::UTC
        ));
        assert!(!same_day(
            morning,
            at("2026-12-06T00:01:00Z"),
            &TimeZone::UTC
        ));
        // 23:30 UTC is already the next day in Paris.
        assert!(!same_day(morning, at("2026-12-05T23:30:00Z"), &paris));
    }

    #[tokio::test]
    async fn the_automations_page_is_not_shown_on_a_later_day() {
        let root = TempDataRoot::new().unwrap();
        let path = root.path().join(FILE_NAME);
        let on = |screen| WindowPlace {
            screen,
            thread_id: None,
        };
        let two_days_ago = SystemTime::now() - std::time::Duration::from_secs(2 * 86_400);
        for (place, shown_then) in [
            (on(WindowScreen::Inbox), true),
            (on(WindowScreen::Settings), true),
            (on(WindowScreen::Automations), false),
        ] {
            let host = crate::tests::open(&root).await;
            host.window_place_set(place).await.unwrap();
            keep(&host, "<div>earlier</div>").await;
            host.close().await;
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(two_days_ago).unwrap();
            drop(file);
            let host = crate::tests::open(&root).await;
            assert_eq!(shown(&host).is_some(), shown_then);
            host.close().await;
        }
    }

    #[test]
    fn the_skills_catalog_changes_only_what_the_skills_and_mcp_pages_show() {
        let inbox = WindowPlace::default();
        let skills = WindowPlace {
            screen: WindowScreen::Skills,
            thread_id: None,
        };
        let settings = WindowPlace {
            screen: WindowScreen::Settings,
            thread_id: None,
        };
        let mcp = WindowPlace {
            screen: WindowScreen::Mcp,
            thread_id: None,
        };
        assert!(!may_change(&AppEvent::SkillsChanged, &inbox));
        assert!(!may_change(&AppEvent::PluginsChanged, &on_thread("t1")));
        assert!(!may_change(&AppEvent::SkillsChanged, &settings));
        assert!(may_change(&AppEvent::SkillsChanged, &skills));
        assert!(may_change(&AppEvent::PluginsChanged, &mcp));
        let threads = AppEvent::ThreadsChanged { thread_id: None };
        assert!(may_change(&threads, &inbox));
        assert!(may_change(&threads, &skills));
    }

    #[tokio::test]
    async fn a_snapshot_too_large_or_none_forgets_the_last() {
        let root = TempDataRoot::new().unwrap();
        let host = crate::tests::open(&root).await;
        keep(&host, "<div>small</div>").await;
        let error = host
            .window_snapshot_set(snapshot(&"x".repeat(MAX_BYTES + 1)))
            .await
            .unwrap_err();
        assert!(error.message.starts_with("html:"), "{}", error.message);
        assert_eq!(host.window_snapshot(), None);

        keep(&host, "<div>small</div>").await;
        host.window_snapshot_set(WindowSnapshot { html: None })
            .await
            .unwrap();
        assert_eq!(host.window_snapshot(), None);
        assert!(!root.path().join(FILE_NAME).exists());
    }

    #[tokio::test]
    async fn a_snapshot_of_another_version_or_a_broken_file_is_not_shown() {
        let root = TempDataRoot::new().unwrap();
        crate::tests::open(&root).await.close().await;
        let path = root.path().join(FILE_NAME);
        for text in [
            "pizza-bot 0.0.0-old\n{\"screen\":\"inbox\"}\n<div>old</div>".to_owned(),
            format!("{HEADER}not json\n<div>x</div>"),
            format!("{HEADER}{{\"screen\":\"inbox\"}}\n"),
        ] {
            std::fs::write(&path, text).unwrap();
            let host = crate::tests::open(&root).await;
            assert_eq!(host.window_snapshot(), None);
            host.close().await;
        }
    }
}
