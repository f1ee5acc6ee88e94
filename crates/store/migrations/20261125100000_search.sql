-- Full-text search over every message (store/src/search.rs). The index holds only the words; the text stays
-- in `messages` (an external-content FTS5 table, read back by rowid for snippets). A trigger indexes each
-- message inside the statement that stores it, so the index never lacks or duplicates a stored message,
-- across crashes too: both are in one transaction or neither is.
CREATE VIRTUAL TABLE messages_fts USING fts5(
    text,
    content = 'messages',
    content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2',
    columnsize = 0  -- no per-row sizes: results come newest first, never by bm25 rank
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;

-- Messages stored before search came are indexed after the hub starts, newest first, one batch per
-- transaction: those with `seq` below `below` are not indexed yet (1 when none are left).
CREATE TABLE search_backfill (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    below INTEGER NOT NULL
) STRICT;
INSERT INTO search_backfill (id, below) SELECT 1, COALESCE(MAX(seq), 0) + 1 FROM messages;
