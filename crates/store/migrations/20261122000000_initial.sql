-- The first schema. Migrations are never edited once they have landed: change the schema with a new file.
--
-- Every stream is an append-only table whose INTEGER PRIMARY KEY is its cursor. The only rows ever updated
-- are in `agents`, which caches the projection of `agent_events` (state, activity, since) and the two
-- cursors an agent has (how far its inbox was handed over, how far the user has read).

CREATE TABLE agents (
    name              TEXT PRIMARY KEY NOT NULL,
    work_dir          TEXT NOT NULL,
    created_at        INTEGER NOT NULL,
    state             TEXT NOT NULL CHECK (state IN ('starting','idle','processing','compacting','dead')),
    activity          TEXT NOT NULL DEFAULT '',
    state_since       INTEGER NOT NULL,
    last_event        INTEGER NOT NULL DEFAULT 0,
    inbox_cursor      INTEGER NOT NULL DEFAULT 0,
    read_cursor       INTEGER NOT NULL DEFAULT 0,
    claude_session_id TEXT,
    voice_id          TEXT,
    voice_name        TEXT
) STRICT;

CREATE TABLE messages (
    seq        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    agent      TEXT NOT NULL REFERENCES agents(name),
    kind       TEXT NOT NULL CHECK (kind IN ('user','assistant','agent','ack','activity','system')),
    sender     TEXT NOT NULL,
    recipient  TEXT,
    text       TEXT NOT NULL,
    parent     TEXT,
    voice      INTEGER NOT NULL DEFAULT 0 CHECK (voice IN (0, 1)),
    idem_key   TEXT UNIQUE,
    at         INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_by_agent ON messages(agent, seq);
CREATE INDEX messages_by_recipient ON messages(recipient, seq) WHERE recipient IS NOT NULL;

CREATE TABLE agent_events (
    id          INTEGER PRIMARY KEY,
    agent       TEXT NOT NULL REFERENCES agents(name),
    source      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    payload     BLOB NOT NULL,
    source_time INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    error       TEXT
) STRICT;
CREATE INDEX agent_events_by_agent ON agent_events(agent, id);

CREATE TABLE transitions (
    id          INTEGER PRIMARY KEY,
    event_id    INTEGER NOT NULL UNIQUE REFERENCES agent_events(id),
    agent       TEXT NOT NULL REFERENCES agents(name),
    trigger     TEXT NOT NULL,
    source      TEXT NOT NULL,
    source_time INTEGER NOT NULL,
    from_state  TEXT NOT NULL,
    to_state    TEXT NOT NULL,
    activity    TEXT,
    outcome     TEXT NOT NULL CHECK (outcome IN ('moved','stayed','suppressed')),
    reason      TEXT,
    detail      TEXT
) STRICT;
CREATE INDEX transitions_by_agent ON transitions(agent, id);

-- One row per message handed to an agent; UNIQUE(message_seq) makes "exactly once" a database invariant.
CREATE TABLE handovers (
    id          INTEGER PRIMARY KEY,
    message_seq INTEGER NOT NULL UNIQUE REFERENCES messages(seq),
    agent       TEXT NOT NULL REFERENCES agents(name),
    channel     TEXT NOT NULL CHECK (channel IN ('wait','hook','stop_hook')),
    at          INTEGER NOT NULL
) STRICT;
