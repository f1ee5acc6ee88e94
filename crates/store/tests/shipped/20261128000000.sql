INSERT INTO messages (seq, id, agent, kind, sender, recipient, text, parent, voice, idem_key, at, aloud)
VALUES (6, 'msg-00000006', 'bob', 'user', 'user', 'bob', 'how many herons, aloud', NULL, 1, NULL,
        1764300000000, 1);
