-- The bytes each step's output takes as JSON, written with the output, so a run's step outputs
-- together are summed from a few integers when its data is loaded, and bounded there.
ALTER TABLE run_steps ADD COLUMN output_bytes INTEGER NOT NULL DEFAULT 0;

-- Runs still under way count what their steps already hold (jsonb's text is a little longer
-- than compact JSON, so they are counted on the safe side); ended runs need no figure.
UPDATE run_steps s SET output_bytes = octet_length(s.output::text)
  FROM runs r
 WHERE r.id = s.run_id AND r.status IN ('queued', 'running', 'waiting_for_review') AND s.output IS NOT NULL;
