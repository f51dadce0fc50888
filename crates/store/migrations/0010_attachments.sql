-- Files the person attached. The bytes live in `<data root>/attachments/<id>`,
-- never in the database: a message carries only the reference.

CREATE TABLE attachments (
    id          TEXT PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
    mime        TEXT NOT NULL CHECK (length(mime) BETWEEN 1 AND 255),
    size        INTEGER NOT NULL CHECK (size >= 0),
    -- Hex SHA-256 of the bytes: identical bytes in one thread are stored once.
    sha256      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    -- NULL until a message carries it; an unsent upload may be removed or swept.
    sent_at     INTEGER
);

-- Which threads use an attachment. A fork shares its parent's; deleting a
-- thread deletes only the attachments no other thread links.
CREATE TABLE thread_attachments (
    thread_id      TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    attachment_id  TEXT NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
    PRIMARY KEY (thread_id, attachment_id)
) WITHOUT ROWID;

-- Deleting a thread asks, per attachment, whether another thread still links it.
CREATE INDEX thread_attachments_by_attachment ON thread_attachments (attachment_id);

-- An upload finds the same bytes by hash, not by scanning the thread's attachments.
CREATE INDEX attachments_by_sha256 ON attachments (sha256);

-- The start-up sweep looks only at uploads never sent: few rows at any time.
CREATE INDEX attachments_unsent ON attachments (created_at) WHERE sent_at IS NULL;

-- The queue, rebuilt: a message gains the ids of the attachments that go
-- with it (a JSON array; NULL when none do), and may be files alone.
CREATE TABLE queued_messages_next (
    id           TEXT PRIMARY KEY NOT NULL,
    thread_id    TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    text         TEXT NOT NULL CHECK (length(text) <= 100000),
    model        TEXT CHECK (model IS NULL OR length(model) BETWEEN 1 AND 200),
    created_at   INTEGER NOT NULL,
    attachments  TEXT CHECK (attachments IS NULL OR json_valid(attachments)),
    CHECK (length(text) >= 1 OR attachments IS NOT NULL)
);
-- In rowid order: it breaks ties within one millisecond.
INSERT INTO queued_messages_next (id, thread_id, text, model, created_at)
    SELECT id, thread_id, text, model, created_at FROM queued_messages ORDER BY rowid;
DROP TABLE queued_messages;
ALTER TABLE queued_messages_next RENAME TO queued_messages;
CREATE INDEX queued_by_thread ON queued_messages (thread_id, created_at);
