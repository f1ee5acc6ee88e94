-- The "needs you" overlay and what the machine needs to decide it (see clawmux-core's attention.rs), and
-- sessions the hub only observes (Claude Code sessions it did not start, reported by the user's own hooks).
ALTER TABLE agents ADD COLUMN attention TEXT;                        -- JSON of the Attention, NULL when none
ALTER TABLE agents ADD COLUMN last_tool TEXT;                        -- JSON of the main agent's latest tool call
ALTER TABLE agents ADD COLUMN observed INTEGER NOT NULL DEFAULT 0 CHECK (observed IN (0, 1));
ALTER TABLE agents ADD COLUMN watermark INTEGER NOT NULL DEFAULT 0;  -- the latest source time applied
CREATE UNIQUE INDEX agents_by_claude_session ON agents(claude_session_id) WHERE observed = 1;
ALTER TABLE transitions ADD COLUMN attention TEXT;                   -- JSON of the AttentionChange, if any
