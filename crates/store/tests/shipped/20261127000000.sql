-- An older conversation imported into bob's (`clawmux import`): said before the message stored ahead of it,
-- so it starts a run of its own.
INSERT INTO messages (seq, id, agent, kind, sender, recipient, text, parent, voice, idem_key, at)
VALUES (5, 'msg-00000005', 'bob', 'user', 'user', 'bob', 'the herons of last year', NULL, 0,
        'import:old-1', 1760000000000);
