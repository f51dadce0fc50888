-- Messages get a transcript encoding of their own (`pizza_store::transcript`).
-- Rows already written keep their bytes and are marked version 1; the store
-- reads them as the version 2 parts they mean, so nothing is rewritten here
-- and the upgrade costs the same on a thread of ten messages or of a million.
ALTER TABLE messages ADD COLUMN content_version INTEGER NOT NULL DEFAULT 1;
