-- What the person typed and has not sent yet, one draft per thread, and the
-- prompts they sent, for the composer's ↑ recall: both survive a restart.
-- A draft goes with its thread.

CREATE TABLE drafts (
    thread_id  TEXT PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
    text       TEXT NOT NULL CHECK (length(text) > 0),
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Oldest first by id; the store keeps only the newest few.
CREATE TABLE prompt_history (
    id         INTEGER PRIMARY KEY,
    text       TEXT NOT NULL CHECK (length(text) > 0),
    created_at INTEGER NOT NULL
);
