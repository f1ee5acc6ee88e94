-- Claude Code's own sessions, searchable when the user opts in (store/src/sessions.rs): the transcripts
-- under ~/.claude/projects, each read incrementally (`indexed_to`: the bytes already read), their prompts,
-- answers and tool calls kept as lines indexed like messages (FTS5, external content, kept by a trigger).
CREATE TABLE session_files (
    id         INTEGER PRIMARY KEY,
    path       TEXT    NOT NULL UNIQUE,
    session_id TEXT    NOT NULL,
    folder     TEXT,
    indexed_to INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE TABLE session_lines (
    id   INTEGER PRIMARY KEY,
    file INTEGER NOT NULL REFERENCES session_files(id),
    role TEXT    NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    at   INTEGER NOT NULL,
    text TEXT    NOT NULL
) STRICT;
CREATE INDEX session_lines_by_file ON session_lines(file);
CREATE VIRTUAL TABLE session_lines_fts USING fts5(
    text,
    content = 'session_lines',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2',
    columnsize = 0
);
CREATE TRIGGER session_lines_fts_insert AFTER INSERT ON session_lines BEGIN
    INSERT INTO session_lines_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER session_lines_fts_delete AFTER DELETE ON session_lines BEGIN
    INSERT INTO session_lines_fts (session_lines_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;

-- Whether the user opted in to searching their Claude Code sessions.
CREATE TABLE search_settings (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    sessions INTEGER NOT NULL CHECK (sessions IN (0, 1))
) STRICT;
INSERT INTO search_settings (id, sessions) VALUES (1, 0);
