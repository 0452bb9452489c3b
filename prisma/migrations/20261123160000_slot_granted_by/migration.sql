-- Which run's release (or claim) gave a waiting run its slot. Runs wait for a slot by signal
-- only, so a grant must never go untold: a retried release finds the runs it let in here
-- and tells them again.
ALTER TABLE "run_slots" ADD COLUMN "granted_by" TEXT;
-- Whether the run's workflow has asked for its slot yet. A run joins the line when it is created;
-- one granted a slot before its workflow asks is not signalled (it finds the slot when it asks),
-- so a workflow's first task is never disturbed by a signal.
ALTER TABLE "run_slots" ADD COLUMN "asked" BOOLEAN NOT NULL DEFAULT false;
