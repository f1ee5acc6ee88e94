-- A message stored once search had come: indexed as it is stored.
INSERT INTO messages (seq, id, agent, kind, sender, recipient, text, parent, voice, idem_key, at)
VALUES (4, 'msg-00000004', 'ada', 'user', 'user', 'ada', 'and the lighthouse lamp?', NULL, 0, NULL,
        1764100000000);
