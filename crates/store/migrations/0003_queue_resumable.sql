-- Messages the host holds for a busy thread, and "resumable" as a property of
-- the run row (it used to be a `runs.resumable` settings blob).

CREATE TABLE queued_messages (
    id          TEXT PRIMARY KEY NOT NULL,
    thread_id   TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    text        TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 100000),
    model       TEXT CHECK (model IS NULL OR length(model) BETWEEN 1 AND 200),
    created_at  INTEGER NOT NULL
);

-- A thread's queue in order (rowid breaks ties within one millisecond).
CREATE INDEX queued_by_thread ON queued_messages (thread_id, created_at);

-- Set on the runs the app's restart interrupted, until resumed, discarded or
-- superseded by a newer run on the thread.
ALTER TABLE runs ADD COLUMN resumable INTEGER NOT NULL DEFAULT 0 CHECK (resumable IN (0, 1));

-- Few rows are ever resumable; the offer is looked up per thread.
CREATE INDEX runs_resumable ON runs (thread_id) WHERE resumable = 1;

-- The old blob: {"<thread id>": "<run id>", ...}. A damaged one offers nothing,
-- as it did before (it read as empty).
UPDATE runs SET resumable = 1
WHERE status = 'interrupted' AND id IN (
    SELECT j.value FROM settings s, json_each(s.value) j
    WHERE s.key = 'runs.resumable' AND json_valid(s.value) AND json_type(s.value) = 'object'
);

DELETE FROM settings WHERE key = 'runs.resumable';
