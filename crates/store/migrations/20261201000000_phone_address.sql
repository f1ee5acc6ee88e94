-- Where the hub listens for phones itself, over TLS, beyond loopback (hub/src/phone/address.rs): the
-- address, the name phones use for it and the user's certificate files, as the hub's JSON; NULL when phones
-- come through a tunnel only.
ALTER TABLE phone_settings ADD COLUMN address TEXT;
-- Who runs the hub, as the pushes name it to push services (VAPID's `sub`): the user's mailto: or https:
-- address, checked by the hub; NULL names a placeholder.
ALTER TABLE phone_settings ADD COLUMN push_contact TEXT;
