-- The shared board: items the agents and the user work from. An item's row changes as it moves (its
-- state, owner and branch); who may move it where is `clawmux_core::board::apply`, checked in the same write
-- transaction as the update, so two agents taking one item cannot both win.
CREATE TABLE tasks (
    id         INTEGER PRIMARY KEY,
    title      TEXT NOT NULL,
    body       TEXT NOT NULL DEFAULT '',
    state      TEXT NOT NULL CHECK (state IN ('open','taken','in_review','done')),
    owner      TEXT REFERENCES agents(name),
    branch     TEXT,
    creator    TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX tasks_by_state ON tasks(state, id);
CREATE INDEX tasks_by_owner ON tasks(owner, id) WHERE owner IS NOT NULL;

-- The agents told when an item is done: its creator, and those who asked (`clawmux task watch`).
CREATE TABLE task_watchers (
    task  INTEGER NOT NULL REFERENCES tasks(id),
    agent TEXT NOT NULL REFERENCES agents(name),
    PRIMARY KEY (task, agent)
) STRICT;
