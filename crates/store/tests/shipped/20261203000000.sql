INSERT INTO seen (message_seq, at) VALUES (1, 1763769612000);
INSERT INTO threads_closed (a, b, closer, at) VALUES ('ada', 'bob', 'user', 1764500000000);
