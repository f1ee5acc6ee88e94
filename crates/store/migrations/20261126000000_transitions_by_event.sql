-- Each decision is keyed by its event: one decision per event, stored in the event's own transaction.
--
-- Why: every hook commits an event and its decision, and each b-tree a commit touches is one more page
-- written to the WAL and checkpointed. The old table had its own rowid beside a UNIQUE `event_id` and an
-- index by agent, so each decision went into three b-trees where one holds it: an agent's decisions are
-- found through its events' index by agent (`agent_events_by_agent`), their ids being the same. A
-- decision's id was always its event's (both are allocated together, one each, in the same transaction,
-- and neither is ever deleted), so the cursor clients read decisions after is unchanged; `event_id` stays
-- a name for the same value.

CREATE TABLE transitions_by_event (
    id          INTEGER PRIMARY KEY REFERENCES agent_events(id),
    event_id    INTEGER GENERATED ALWAYS AS (id) VIRTUAL,
    agent       TEXT NOT NULL REFERENCES agents(name),
    trigger     TEXT NOT NULL,
    source      TEXT NOT NULL,
    source_time INTEGER NOT NULL,
    from_state  TEXT NOT NULL,
    to_state    TEXT NOT NULL,
    activity    TEXT,
    outcome     TEXT NOT NULL CHECK (outcome IN ('moved','stayed','suppressed')),
    reason      TEXT,
    detail      TEXT,
    attention   TEXT
) STRICT;

INSERT INTO transitions_by_event (id, agent, trigger, source, source_time, from_state, to_state, activity,
                                  outcome, reason, detail, attention)
SELECT event_id, agent, trigger, source, source_time, from_state, to_state, activity,
       outcome, reason, detail, attention
FROM transitions;

DROP TABLE transitions;
ALTER TABLE transitions_by_event RENAME TO transitions;
