-- The Temporal workflow id of each run's execution. The run id without an Idempotency-Key;
-- with one, the key namespaced by workspace and idempotency scope, so Temporal itself keeps
-- one execution per key and an operator finds a run by the key its caller sent. Not unique:
-- a key may be used again once its 24 h window has passed.
ALTER TABLE "runs" ADD COLUMN "temporal_workflow_id" TEXT;
UPDATE "runs" SET "temporal_workflow_id" = "id";
ALTER TABLE "runs" ALTER COLUMN "temporal_workflow_id" SET NOT NULL;
CREATE INDEX "runs_temporal_workflow_id_idx" ON "runs"("temporal_workflow_id");
