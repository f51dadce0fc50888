-- Delegations: each `task` call of a thread's orchestrator runs a skill's
-- subagent with its own transcript, kept apart from the thread's messages (and
-- from search) so the orchestrator only ever sees the report. A subagent
-- paused for a decision, or stopped by a restart, continues from here.

CREATE TABLE tasks (
    thread_id   TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    -- The `task` call's id in the thread's transcript.
    task_id     TEXT NOT NULL CHECK (length(task_id) BETWEEN 1 AND 256),
    skill       TEXT NOT NULL,
    ask         TEXT NOT NULL,
    -- The subagent's step metadata (counters, approvals), opaque to the store.
    metadata    TEXT NOT NULL DEFAULT '{}',
    last_seq    INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (thread_id, task_id)
) WITHOUT ROWID;

CREATE TABLE task_messages (
    thread_id        TEXT NOT NULL,
    task_id          TEXT NOT NULL,
    seq              INTEGER NOT NULL,
    id               TEXT NOT NULL,
    role             TEXT NOT NULL,
    content          TEXT NOT NULL,
    content_version  INTEGER NOT NULL,
    text             TEXT NOT NULL,
    tool_call_ids    TEXT,
    tool_call_id     TEXT,
    created_at       INTEGER NOT NULL,
    PRIMARY KEY (thread_id, task_id, seq),
    FOREIGN KEY (thread_id, task_id) REFERENCES tasks (thread_id, task_id) ON DELETE CASCADE
) WITHOUT ROWID;
