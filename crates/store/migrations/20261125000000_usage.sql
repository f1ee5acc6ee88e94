-- What agents used, as Claude Code's status line reported it (see clawmux-core's usage.rs). A row is kept
-- only when a figure moved; the deltas are what it added since the agent's row before (a new Claude Code
-- session starts its totals again from zero), so a day's use is a sum.
CREATE TABLE usage_samples (
    id           INTEGER PRIMARY KEY,
    agent        TEXT    NOT NULL,
    at           INTEGER NOT NULL,               -- ms since the epoch
    cost_delta   REAL    NOT NULL CHECK (cost_delta >= 0),
    input_delta  INTEGER NOT NULL CHECK (input_delta >= 0),
    output_delta INTEGER NOT NULL CHECK (output_delta >= 0),
    sample       TEXT    NOT NULL                -- JSON of the Sample
);
CREATE INDEX usage_by_agent ON usage_samples(agent, id);
CREATE INDEX usage_by_time ON usage_samples(at);

-- The agents the user asked to continue when the usage limit that stopped them resets.
CREATE TABLE usage_continue (
    agent TEXT PRIMARY KEY NOT NULL
) STRICT;
