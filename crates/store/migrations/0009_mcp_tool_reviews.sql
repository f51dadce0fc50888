-- Each MCP tool's definition (name, description, input schema) as the person
-- last reviewed it. A tool whose definition hashes differently now is
-- flagged on the MCP page and asks before every call until reviewed again.

CREATE TABLE mcp_tool_reviews (
    server      TEXT NOT NULL CHECK (length(server) BETWEEN 1 AND 64),
    tool        TEXT NOT NULL CHECK (length(tool) BETWEEN 1 AND 256),
    hash        TEXT NOT NULL,
    definition  TEXT NOT NULL,
    reviewed_at INTEGER NOT NULL,
    PRIMARY KEY (server, tool)
) WITHOUT ROWID;
