-- The user's phones (hub/src/phone): whether a phone may reach the hub at all, and each paired phone with
-- the SHA-256 of its token (the token itself is kept on the phone only), its name, when it was paired and
-- last used, and when it was revoked (a revoked phone is kept, listed as such, and never let in again), and
-- its push subscription, if it gave one.
CREATE TABLE phone_settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    on_ INTEGER NOT NULL CHECK (on_ IN (0, 1))
) STRICT;
INSERT INTO phone_settings (id, on_) VALUES (1, 0);

CREATE TABLE phones (
    id         TEXT    PRIMARY KEY,
    name       TEXT    NOT NULL,
    token_hash BLOB    NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    paired_at  INTEGER NOT NULL,
    used_at    INTEGER,
    revoked_at INTEGER,
    -- Its push subscription (Web Push): where its push service takes pushes, and its keys.
    push_endpoint TEXT,
    push_p256dh   BLOB,
    push_auth     BLOB
) STRICT;
