-- The concurrency limit of each workspace: one row per run that holds a slot or
-- waits for one. Rows are taken and given back under a lock on the workspace row, so the
-- limit holds across every worker.
CREATE TABLE "run_slots" (
    "run_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    -- the run's creation order: waiting runs are served first come, first served
    "seq" BIGINT NOT NULL,
    "holding" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_slots_pkey" PRIMARY KEY ("run_id"),
    CONSTRAINT "run_slots_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "run_slots_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE INDEX "run_slots_waiting_idx" ON "run_slots"("workspace_id", "seq") WHERE NOT "holding";
CREATE INDEX "run_slots_holding_idx" ON "run_slots"("workspace_id") WHERE "holding";
