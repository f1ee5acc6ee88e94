-- How the hub started ada, as the first launch column held it.
UPDATE agents SET launch = '{"program":"/usr/bin/claude","args":[],"model":null}' WHERE name = 'ada';
