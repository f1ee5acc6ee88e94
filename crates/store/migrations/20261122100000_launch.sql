-- Agents the hub starts itself: how to start them again. NULL for agents that run on their own (registered
-- with `clawmux agent add`); the hub never starts, adopts or ends those.
ALTER TABLE agents ADD COLUMN launch TEXT;
