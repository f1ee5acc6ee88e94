-- The files the user attached to a message: a JSON array of what the agent and the chat need of each (its
-- content-addressed id in the hub's attachments folder, the name the user gave it, its kind, media type,
-- size and path). NULL when there are none, which is nearly every message.
ALTER TABLE messages ADD COLUMN attachments TEXT CHECK (attachments IS NULL OR json_valid(attachments));
