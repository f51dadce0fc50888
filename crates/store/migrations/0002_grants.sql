-- Host folders the agent may use under /local/<id>/. Timestamps are integer milliseconds.

CREATE TABLE grants (
    -- A slug: lower-case letters, digits and dashes (validated by the app).
    id          TEXT PRIMARY KEY NOT NULL CHECK (length(id) BETWEEN 1 AND 48),
    -- The canonical absolute host path; one grant per folder.
    path        TEXT NOT NULL UNIQUE CHECK (length(path) BETWEEN 1 AND 4096),
    access      TEXT NOT NULL DEFAULT 'read_only' CHECK (access IN ('read_only', 'read_write')),
    created_at  INTEGER NOT NULL
);
