-- An event's created_at is the moment its row is written, not the start of the transaction that
-- writes it (CURRENT_TIMESTAMP). A run's ending records its event in the last batch of a
-- transaction that began before it waited for the workspace's slot lock, so the transaction's
-- start could precede the event, and its commit, by that whole wait.
ALTER TABLE "events" ALTER COLUMN "created_at" SET DEFAULT clock_timestamp();
