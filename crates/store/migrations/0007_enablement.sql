-- Which capabilities (skills now, MCP servers and plugins later) the person
-- switched on or off. An overlay: shipped files are never modified, and a
-- resource with no row is enabled. Keyed by where the resource comes from
-- (`builtin`, `user`, `plugin:<id>`) as well as its id, so a user override and
-- the built-in it hides keep their own switches.

CREATE TABLE enablement (
    kind        TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 64),
    source      TEXT NOT NULL CHECK (length(source) BETWEEN 1 AND 256),
    id          TEXT NOT NULL CHECK (length(id) BETWEEN 1 AND 256),
    enabled     INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (kind, source, id)
) WITHOUT ROWID;
