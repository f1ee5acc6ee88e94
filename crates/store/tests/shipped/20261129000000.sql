-- A message with a picture attached.
INSERT INTO messages (seq, id, agent, kind, sender, recipient, text, parent, voice, idem_key, at, aloud,
                      attachments)
VALUES (7, 'msg-00000007', 'ada', 'user', 'user', 'ada', 'this lighthouse?', NULL, 0, NULL, 1764350000000, 0,
        '[{"id":"4f1a1f0e0c2b3a495867768594a3b2c1d0e0f1a2b3c4d5e6f708192a3b4c5d6e.png","name":"lamp.png",' ||
        '"kind":"image","media_type":"image/png","size":1024,"path":"/home/u/.clawmux/attachments/' ||
        '4f1a1f0e0c2b3a495867768594a3b2c1d0e0f1a2b3c4d5e6f708192a3b4c5d6e.png"}]');
