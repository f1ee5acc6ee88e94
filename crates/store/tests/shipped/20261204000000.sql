INSERT INTO tasks (id, title, body, state, owner, branch, creator, created_at, updated_at)
VALUES (1, 'Count the herons', 'all of them', 'taken', 'bob', 'herons', 'user', 1764600000000, 1764600100000);
INSERT INTO task_watchers (task, agent) VALUES (1, 'ada');
