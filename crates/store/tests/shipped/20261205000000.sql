INSERT INTO leads (member, lead, tools, since) VALUES ('bob', 'ada', '["Bash"]', 1764700000000);
