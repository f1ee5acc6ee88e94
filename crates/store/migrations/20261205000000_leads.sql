-- Leads: an agent the user lets answer another's permission requests for the tools listed (a JSON array
-- of tool names). One lead per member; the user takes the right back by removing the rows.
CREATE TABLE leads (
    member TEXT PRIMARY KEY NOT NULL REFERENCES agents(name),
    lead   TEXT NOT NULL REFERENCES agents(name),
    tools  TEXT NOT NULL,
    since  INTEGER NOT NULL,
    CHECK (member <> lead)
) STRICT;
CREATE INDEX leads_by_lead ON leads(lead);
