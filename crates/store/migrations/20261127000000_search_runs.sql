-- Search shows the newest matches first by when they were said. Messages are stored in that order, except
-- where `clawmux import` brings in older conversations (or the clock steps back): there the time drops. A
-- run is a stretch of messages whose times never drop, so that within it the index's own order (by seq) is
-- the order of time and a search reads each run newest first, stopping at its page, instead of sorting every
-- match (store/src/search.rs). This table holds where each run but the first starts; a trigger adds one as
-- a message stored earlier than the message before it starts a new run.
CREATE TABLE search_runs (
    start INTEGER PRIMARY KEY
) STRICT;
INSERT INTO search_runs (start)
    SELECT seq FROM (SELECT seq, at, LAG(at) OVER (ORDER BY seq) AS before FROM messages)
    WHERE at < before;
CREATE TRIGGER search_runs_insert AFTER INSERT ON messages
    WHEN new.at < (SELECT at FROM messages WHERE seq < new.seq ORDER BY seq DESC LIMIT 1)
BEGIN
    INSERT OR IGNORE INTO search_runs (start) VALUES (new.seq);
END;
