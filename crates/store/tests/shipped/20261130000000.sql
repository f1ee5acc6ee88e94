UPDATE phone_settings SET on_ = 1;
INSERT INTO phones (id, name, token_hash, paired_at, used_at, revoked_at)
VALUES ('phone-1', 'Pixel', X'0102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20', 1764400000000,
        1764400100000, NULL);
