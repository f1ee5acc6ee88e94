-- A message the user spoke hands-free, with a spoken answer asked of the agent: the user is listening, not
-- reading, so the agent reads it as `[VOICE id:.. from:.. aloud]` and answers in a few spoken sentences.
ALTER TABLE messages ADD COLUMN aloud INTEGER NOT NULL DEFAULT 0 CHECK (aloud IN (0, 1));
