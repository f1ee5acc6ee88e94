-- A session the hub only observed.
INSERT INTO agents (name, work_dir, created_at, state, activity, state_since, claude_session_id, observed,
                    watermark)
VALUES ('cy', '/home/u/cy', 1763800000000, 'processing', 'Bash: cargo test', 1763800001000, 'sess-cy', 1,
        1763800001000);
