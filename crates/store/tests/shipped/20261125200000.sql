UPDATE search_settings SET sessions = 1;
INSERT INTO session_files (id, path, session_id, folder, indexed_to)
VALUES (1, '/home/u/.claude/projects/x/sess-old.jsonl', 'sess-old', '/home/u/x', 2048);
INSERT INTO session_lines (id, file, role, at, text) VALUES (1, 1, 'user', 1764200000000, 'fix the heron counter');
