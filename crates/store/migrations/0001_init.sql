-- Pizza Bot schema, version 1. Timestamps are integer milliseconds since the Unix epoch.

CREATE TABLE folders (
    id          TEXT PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL,
    -- Lower-cased name: uniqueness is case-insensitive beyond ASCII (NOCASE folds ASCII only).
    name_key    TEXT NOT NULL UNIQUE,
    sort_order  INTEGER NOT NULL,
    created_at  INTEGER NOT NULL
);

CREATE TABLE threads (
    id                    TEXT PRIMARY KEY NOT NULL,
    title                 TEXT NOT NULL DEFAULT '',
    user_titled           INTEGER NOT NULL DEFAULT 0,
    folder_id             TEXT REFERENCES folders(id) ON DELETE SET NULL,
    pinned                INTEGER NOT NULL DEFAULT 0,
    unread                INTEGER NOT NULL DEFAULT 0,
    awaiting_action       INTEGER NOT NULL DEFAULT 0,
    source                TEXT NOT NULL CHECK (source IN ('user', 'trigger', 'fork')),
    model                 TEXT,
    parent_thread_id      TEXT REFERENCES threads(id) ON DELETE SET NULL,
    -- No foreign key: the parent's checkpoints go when the parent thread is deleted.
    parent_checkpoint_id  TEXT,
    created_at            INTEGER NOT NULL,
    last_activity_at      INTEGER NOT NULL,
    preview               TEXT NOT NULL DEFAULT '',
    -- Heads kept on the thread row so a step never has to scan its history.
    last_seq              INTEGER NOT NULL DEFAULT 0,
    last_step             INTEGER NOT NULL DEFAULT 0,
    files_version         INTEGER NOT NULL DEFAULT 0,
    head_checkpoint_id    TEXT
);

-- Keyset pagination for each view; the partial indexes keep Unread/Action lists cheap.
CREATE INDEX threads_by_activity ON threads (last_activity_at DESC, id DESC);
CREATE INDEX threads_unread_by_activity ON threads (last_activity_at DESC, id DESC) WHERE unread = 1;
CREATE INDEX threads_action_by_activity ON threads (last_activity_at DESC, id DESC) WHERE awaiting_action = 1;
CREATE INDEX threads_by_folder ON threads (folder_id, last_activity_at DESC, id DESC);
-- Covers the per-view counts so they read one small index, not the table.
CREATE INDEX threads_flags ON threads (folder_id, unread, awaiting_action);
CREATE INDEX threads_by_parent ON threads (parent_thread_id) WHERE parent_thread_id IS NOT NULL;

-- Append-only. The implicit rowid is the FTS content rowid.
CREATE TABLE messages (
    thread_id      TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    seq            INTEGER NOT NULL,
    id             TEXT NOT NULL UNIQUE,
    role           TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content        TEXT NOT NULL,
    text           TEXT NOT NULL,
    -- JSON array of the tool-call ids an assistant message issued; NULL when none.
    tool_call_ids  TEXT,
    -- The tool-call id a tool message answers.
    tool_call_id   TEXT,
    created_at     INTEGER NOT NULL,
    UNIQUE (thread_id, seq)
);

CREATE VIRTUAL TABLE messages_fts USING fts5 (
    text,
    content = 'messages',
    content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, text) VALUES (new.rowid, new.text);
END;

-- Fires for ON DELETE CASCADE from threads too.
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;

CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO messages_fts (rowid, text) VALUES (new.rowid, new.text);
END;

CREATE TABLE checkpoints (
    id             TEXT PRIMARY KEY NOT NULL,
    thread_id      TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    step           INTEGER NOT NULL,
    parent_id      TEXT,
    -- Messages with seq <= message_seq belong to this checkpoint.
    message_seq    INTEGER NOT NULL,
    files_version  INTEGER NOT NULL,
    interrupt      TEXT,
    metadata       TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    UNIQUE (thread_id, step)
);

CREATE INDEX checkpoints_by_message_seq ON checkpoints (thread_id, message_seq);

-- One row per changed path per files version; content NULL is a deletion (tombstone).
CREATE TABLE thread_files (
    thread_id    TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    path         TEXT NOT NULL,
    version      INTEGER NOT NULL,
    content      TEXT,
    modified_at  INTEGER NOT NULL,
    PRIMARY KEY (thread_id, path, version)
) WITHOUT ROWID;

CREATE TABLE runs (
    id             TEXT PRIMARY KEY NOT NULL,
    thread_id      TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    status         TEXT NOT NULL CHECK (status IN
                     ('running', 'succeeded', 'failed', 'interrupted', 'cancelled', 'timed_out')),
    source         TEXT NOT NULL,
    error_code     TEXT,
    error_message  TEXT,
    usage          TEXT,
    started_at     INTEGER NOT NULL,
    ended_at       INTEGER
);

CREATE INDEX runs_by_thread ON runs (thread_id, started_at);
-- At most one live run per thread.
CREATE UNIQUE INDEX runs_live_per_thread ON runs (thread_id) WHERE status = 'running';

-- AUTOINCREMENT so a cursor is never reused after pruning.
CREATE TABLE activity (
    cursor      INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id   TEXT NOT NULL,
    run_id      TEXT,
    status      TEXT NOT NULL,
    detail      TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);

CREATE TABLE settings (
    key         TEXT PRIMARY KEY NOT NULL,
    value       TEXT NOT NULL,
    updated_at  INTEGER NOT NULL
);
