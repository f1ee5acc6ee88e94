-- What passes between agents: when a message reached its recipient's model, which threads are closed, and
-- the reply `clawmux ask` hands over.
--
-- A message is "seen" once its id appears in the recipient's Claude Code transcript (the wait's output or a
-- hook's context as the model received it). One row per message, written once.
CREATE TABLE seen (
    message_seq INTEGER PRIMARY KEY REFERENCES messages(seq),
    at          INTEGER NOT NULL
) STRICT;

-- A thread between two agents (names in order: a < b) that one of them or the user closed. While a row is
-- here, neither agent may send the other anything; the user reopens it by removing the row.
CREATE TABLE threads_closed (
    a      TEXT NOT NULL,
    b      TEXT NOT NULL,
    closer TEXT NOT NULL,
    at     INTEGER NOT NULL,
    PRIMARY KEY (a, b),
    CHECK (a < b)
) STRICT;

-- "Was this answered?" and "the answer to this ask" look messages up by the one they answer; a thread is
-- read by recipient and sender.
CREATE INDEX messages_by_parent ON messages(parent) WHERE parent IS NOT NULL;
CREATE INDEX messages_between ON messages(agent, sender, seq) WHERE kind IN ('agent', 'ack');

-- A new hand-over channel, `ask`: the one reply a `clawmux ask` waited for, printed as its output. SQLite
-- cannot change a CHECK, so the table is made anew with the rows it had.
CREATE TABLE handovers_next (
    id          INTEGER PRIMARY KEY,
    message_seq INTEGER NOT NULL UNIQUE REFERENCES messages(seq),
    agent       TEXT NOT NULL REFERENCES agents(name),
    channel     TEXT NOT NULL CHECK (channel IN ('wait','hook','stop_hook','ask')),
    at          INTEGER NOT NULL
) STRICT;
INSERT INTO handovers_next (id, message_seq, agent, channel, at)
    SELECT id, message_seq, agent, channel, at FROM handovers;
DROP TABLE handovers;
ALTER TABLE handovers_next RENAME TO handovers;
