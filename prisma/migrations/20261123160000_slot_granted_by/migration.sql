-- Which run's release (or claim) gave a waiting run its slot. Runs wait for a slot by signal
-- only, so a grant must never go untold: a retried release finds the runs it let in here
-- and tells them again.
ALTER TABLE "run_slots" ADD COLUMN "granted_by" TEXT;
