INSERT INTO usage_samples (id, agent, at, cost_delta, input_delta, output_delta, sample)
VALUES (1, 'ada', 1764000000000, 0.25, 1200, 300, '{}');
INSERT INTO usage_continue (agent) VALUES ('bob');
