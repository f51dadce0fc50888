-- "Allow for this thread": tools whose calls in one thread run without
-- asking. Gone with the thread.

CREATE TABLE thread_tool_allowances (
    thread_id   TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    tool        TEXT NOT NULL CHECK (length(tool) BETWEEN 1 AND 256),
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (thread_id, tool)
) WITHOUT ROWID;
