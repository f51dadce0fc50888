-- Automations: cron and webhook triggers, and one durable row per fire.
-- Timestamps are integer milliseconds.

CREATE TABLE triggers (
    id              TEXT PRIMARY KEY NOT NULL,
    name            TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    kind            TEXT NOT NULL CHECK (kind IN ('cron', 'webhook')),
    -- May be empty: the run is told no task was given.
    prompt          TEXT NOT NULL DEFAULT '',
    model           TEXT,
    enabled         INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    -- Validated by the scheduler; stored as given. NULL zone: the machine's own.
    cron            TEXT,
    timezone        TEXT,
    -- Only a salted hash of a webhook secret is ever stored, never the secret.
    secret_hash     BLOB,
    secret_salt     BLOB,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    last_run_at     INTEGER,
    -- Reserved before the thread exists (see trigger_occurrences), so no foreign key.
    last_thread_id  TEXT,
    CHECK (kind = 'webhook' OR cron IS NOT NULL),
    CHECK (kind = 'cron' OR (secret_hash IS NOT NULL AND secret_salt IS NOT NULL))
);

CREATE TABLE trigger_occurrences (
    id            TEXT PRIMARY KEY NOT NULL,
    trigger_id    TEXT NOT NULL REFERENCES triggers(id) ON DELETE CASCADE,
    scheduled_at  INTEGER NOT NULL,
    reason        TEXT NOT NULL
                    CHECK (reason IN ('cron', 'cron_recovery', 'manual', 'webhook')),
    status        TEXT NOT NULL CHECK (status IN
                    ('pending', 'running', 'succeeded', 'failed', 'dead', 'skipped')),
    attempts      INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    -- A webhook body's prompt, kept so a crash-recovered relaunch runs the same task.
    prompt        TEXT,
    -- Reserved by `claim` before the run and its thread are created, so a crash
    -- never leaves an untracked run; hence no foreign keys.
    run_id        TEXT,
    thread_id     TEXT,
    -- Why it ended as it did ("previous run still running", "gave up after 3 attempts").
    sentence      TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

-- A cron tick (or its catch-up) is recorded once, however often the scheduler
-- wakes for it; manual and webhook fires may share a millisecond.
CREATE UNIQUE INDEX trigger_occurrences_cron_tick ON trigger_occurrences (trigger_id, scheduled_at)
    WHERE reason IN ('cron', 'cron_recovery');
-- History pages, newest first, by keyset.
CREATE INDEX trigger_occurrences_history ON trigger_occurrences (trigger_id, scheduled_at, id);
-- Startup recovery reads only unfinished rows, oldest first, and the overlap
-- check a trigger's unfinished rows: both stay small however long the history grows.
CREATE INDEX trigger_occurrences_unfinished ON trigger_occurrences (created_at, id)
    WHERE status IN ('pending', 'running');
CREATE INDEX trigger_occurrences_unfinished_by_trigger ON trigger_occurrences (trigger_id)
    WHERE status IN ('pending', 'running');
-- The host finds a run's occurrence when the run ends.
CREATE INDEX trigger_occurrences_by_run ON trigger_occurrences (run_id) WHERE run_id IS NOT NULL;
