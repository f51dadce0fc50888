//! What the runtime's tests share: a real store in a temp dir on the test's
//! clock, and a sink that starts runs through the store's own transaction
//! (as the host does) and reports every call.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, TimeZone, Utc};
use pizza_store::{
    NewMessage, NewThread, NewTrigger, Occurrence, OccurrenceLaunch, Part, Role, RunSource,
    StepCommit, Store, StoreOptions, ThreadSource, Trigger, TriggerKind, TurnStart, TurnThread,
};
use tempfile::TempDir;
use tokio::sync::mpsc;

use crate::{Launch, Launched, ManualClock, Scheduler, Sink, StartOptions, Zone};

/// What the sink was told, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Told {
    Launched(Box<Launch>),
    GaveUp(Occurrence),
}

pub(crate) struct RecordingSink {
    store: Store,
    told: mpsc::UnboundedSender<Told>,
    /// The next launch fails with this sentence.
    refuse: Mutex<Option<String>>,
}

#[async_trait]
impl Sink for RecordingSink {
    async fn launch(&self, launch: Launch) -> Result<Launched, String> {
        let _ = self.told.send(Told::Launched(Box::new(launch.clone())));
        if let Some(why) = self
            .refuse
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            return Err(why);
        }
        let occurrence = OccurrenceLaunch {
            occurrence_id: launch.occurrence.id.clone(),
            relaunch: launch.relaunch,
        };
        let existing = match (&launch.occurrence.thread_id, launch.relaunch) {
            (Some(thread), true) => self.store.thread(thread).await.ok().map(|t| t.id),
            _ => None,
        };
        if let Some(thread_id) = existing {
            let run = self
                .store
                .create_run_for(&thread_id, RunSource::Trigger, Some(&occurrence))
                .await
                .map_err(|e| e.to_string())?;
            return Ok(Launched {
                thread_id,
                run_id: run.id,
            });
        }
        let started = self
            .store
            .start_turn(TurnStart {
                thread: TurnThread::New(NewThread {
                    title: Some(launch.trigger.name.clone()),
                    source: Some(ThreadSource::Trigger),
                    ..NewThread::default()
                }),
                source: RunSource::Trigger,
                step: StepCommit {
                    messages: vec![NewMessage::new(
                        Role::User,
                        vec![Part::text(&launch.prompt)],
                        &launch.prompt,
                    )],
                    files: Vec::new(),
                    interrupt: None,
                    metadata: serde_json::Value::Null,
                },
                expected_head: None,
                queued_id: None,
                answers_interrupt: false,
                occurrence: Some(occurrence),
                attachments: Vec::new(),
            })
            .await
            .map_err(|e| e.to_string())?;
        Ok(Launched {
            thread_id: started.thread_id,
            run_id: started.run.id,
        })
    }

    async fn gave_up(&self, _trigger: &Trigger, occurrence: &Occurrence) {
        let _ = self.told.send(Told::GaveUp(occurrence.clone()));
    }

    fn changed(&self, _trigger_id: &str) {}
}

pub(crate) struct Rig {
    pub(crate) dir: TempDir,
    pub(crate) clock: ManualClock,
    pub(crate) store: Store,
    pub(crate) scheduler: Scheduler,
    pub(crate) sink: Arc<RecordingSink>,
    pub(crate) told: mpsc::UnboundedReceiver<Told>,
}

/// An instant in a zone, for readable tests.
pub(crate) fn at(zone: chrono_tz::Tz, y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    zone.with_ymd_and_hms(y, mo, d, h, mi, 0)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default()
}

pub(crate) fn cron(name: &str, cron: &str, zone: &str) -> NewTrigger {
    NewTrigger {
        name: name.to_owned(),
        kind: TriggerKind::Cron,
        prompt: format!("{name}: do the thing"),
        model: None,
        enabled: true,
        cron: Some(cron.to_owned()),
        timezone: Some(zone.to_owned()),
        webhook_secret: None,
    }
}

impl Rig {
    pub(crate) async fn new(now: DateTime<Utc>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::at(now);
        Self::open(dir, clock).await
    }

    /// The app as it starts after a stop or crash: the same data root and
    /// clock, a new store, scheduler and sink; live runs marked interrupted
    /// as the host does before the scheduler starts.
    pub(crate) async fn restarted(self) -> Self {
        let Rig {
            dir,
            clock,
            store,
            scheduler,
            ..
        } = self;
        scheduler.stop();
        store.close().await;
        Self::open(dir, clock).await
    }

    async fn open(dir: TempDir, clock: ManualClock) -> Self {
        let store = Store::open_with(
            dir.path(),
            StoreOptions {
                clock: Arc::new(clock.clone()),
                ..StoreOptions::default()
            },
        )
        .await
        .unwrap();
        store.interrupt_live_runs().await.unwrap();
        let (tx, told) = mpsc::unbounded_channel();
        let sink = Arc::new(RecordingSink {
            store: store.clone(),
            told: tx,
            refuse: Mutex::new(None),
        });
        let scheduler = Scheduler::new(
            store.clone(),
            sink.clone(),
            Arc::new(clock.clone()),
            Zone::UTC,
        );
        Self {
            dir,
            clock,
            store,
            scheduler,
            sink,
            told,
        }
    }

    /// Starts the scheduler and waits until its first pass is done.
    pub(crate) async fn start(&self, enabled: bool) {
        let seen = self.clock.naps();
        drop(
            self.scheduler
                .start(StartOptions {
                    enabled,
                    enabled_since: None,
                })
                .await,
        );
        self.clock.wait_for_nap_after(seen).await;
    }

    /// Time passes; returns once the runtime finished the pass it woke for.
    pub(crate) async fn advance(&self, by: Duration) {
        let seen = self.clock.naps();
        self.clock.advance(by);
        self.clock.wait_for_nap_after(seen).await;
    }

    /// Runs `change` and waits for the pass it causes.
    pub(crate) async fn then(&self, change: impl FnOnce(&Scheduler)) {
        let seen = self.clock.naps();
        change(&self.scheduler);
        self.clock.wait_for_nap_after(seen).await;
    }

    /// Time passes a minute at a time, as the runtime's naps would see it.
    pub(crate) async fn advance_minutes(&self, minutes: u32) {
        for _ in 0..minutes {
            self.advance(Duration::from_secs(60)).await;
        }
    }

    pub(crate) fn refuse_next_launch(&self, why: &str) {
        *self
            .sink
            .refuse
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(why.to_owned());
    }

    /// Everything the sink was told since last asked.
    pub(crate) fn told(&mut self) -> Vec<Told> {
        let mut out = Vec::new();
        while let Ok(told) = self.told.try_recv() {
            out.push(told);
        }
        out
    }

    pub(crate) async fn history(&self, trigger: &Trigger) -> Vec<Occurrence> {
        let mut page = self
            .store
            .list_occurrences(&trigger.id, None, 200)
            .await
            .unwrap()
            .occurrences;
        page.reverse();
        page
    }
}
