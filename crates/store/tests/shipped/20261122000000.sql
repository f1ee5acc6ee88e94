-- What a store of the first schema held: two agents, a conversation each, the events and decisions of one,
-- and a message handed over.
INSERT INTO agents (name, work_dir, created_at, state, activity, state_since, last_event, inbox_cursor,
                    read_cursor, claude_session_id, voice_id, voice_name)
VALUES ('ada', '/home/u/ada', 1763769600000, 'idle', '', 1763769700000, 2, 1, 2, 'sess-ada', 'af_sky', 'Sky'),
       ('bob', '/home/u/bob', 1763769600000, 'dead', '', 1763769800000, 0, 0, 0, NULL, NULL, NULL);
INSERT INTO messages (seq, id, agent, kind, sender, recipient, text, parent, voice, idem_key, at) VALUES
    (1, 'msg-00000001', 'ada', 'user', 'user', 'ada', 'where is the lighthouse keeper', NULL, 0, 'key-1',
     1763769610000),
    (2, 'msg-00000002', 'ada', 'assistant', 'ada', 'user', 'the lighthouse keeper went north', NULL, 0, NULL,
     1763769620000),
    (3, 'msg-00000003', 'bob', 'user', 'user', 'bob', 'bob, count the herons', NULL, 1, NULL, 1763769630000);
INSERT INTO agent_events (id, agent, source, kind, payload, source_time, received_at, error) VALUES
    (1, 'ada', 'hook', 'SessionStart', X'7B7D', 1763769600500, 1763769600600, NULL),
    (2, 'ada', 'hook', 'Stop', X'7B7D', 1763769700000, 1763769700010, NULL);
INSERT INTO transitions (id, event_id, agent, trigger, source, source_time, from_state, to_state, activity,
                         outcome, reason, detail) VALUES
    (1, 1, 'ada', 'SessionStart', 'hook', 1763769600500, 'starting', 'idle', NULL, 'moved', NULL, NULL),
    (2, 2, 'ada', 'Stop', 'hook', 1763769700000, 'processing', 'idle', NULL, 'moved', NULL, NULL);
INSERT INTO handovers (id, message_seq, agent, channel, at) VALUES (1, 1, 'ada', 'wait', 1763769611000);
