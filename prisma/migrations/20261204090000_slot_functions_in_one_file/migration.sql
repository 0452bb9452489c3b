-- The slot functions as prisma/functions/slots.sql defines them: a run takes its slot before its
-- first step, so no ending claims one any more (svc_take_slot, svc_end_slot's claim key go).
DROP FUNCTION svc_end_slot(TEXT, TEXT, TEXT, TEXT, JSONB, BOOLEAN);
DROP FUNCTION svc_take_slot(TEXT, TEXT, TEXT, JSONB);

-- The per-workspace concurrency slots (packages/domain/src/runs/slots.ts): what runs in the
-- database today, in one file. A migration that changes these functions copies this file whole;
-- test/migrations.test.ts checks that a migrated database holds exactly these definitions.
--
-- A run joins its workspace's line (run_slots) when it is created. It asks for a slot when its
-- first step is about to run; free slots go to the runs first in line that asked, under a grant
-- key naming the step that freed them, so a retried call finds the runs it let in again. Every
-- change happens under the workspace's lock, so the limit holds across every worker.

-- A workspace's figure (its concurrency for the slots, its per-key rate in the API key check).
-- `p_limits` comes from the application (planFiguresArg, built from PLANS), so the figures have
-- one source: {"plans": {plan: figure}, "custom": [plans whose own figure counts]}. An unknown
-- plan counts as free, a custom figure below 1 is ignored, as workspaceLimits does.
CREATE OR REPLACE FUNCTION svc_plan_figure(p_plan TEXT, p_custom INT, p_limits JSONB) RETURNS INT
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_limits->'custom' ? p_plan AND p_custom >= 1 THEN p_custom
    ELSE COALESCE((p_limits->'plans'->>p_plan)::int, (p_limits->'plans'->>'free')::int, 0)
  END
$$;

-- The workspace's slot lock: a transaction advisory lock of its own key space (high bits 'svcs').
CREATE OR REPLACE FUNCTION svc_slot_lock_key(p_workspace TEXT) RETURNS BIGINT
LANGUAGE sql IMMUTABLE AS $$
  SELECT (1937138547::bigint << 32) | (hashtext(p_workspace)::bigint & 4294967295)
$$;

-- The workspace's concurrency figure (0 for a workspace that is gone).
CREATE OR REPLACE FUNCTION svc_slot_figure(p_workspace TEXT, p_limits JSONB) RETURNS INT
LANGUAGE sql AS $$
  SELECT COALESCE((SELECT svc_plan_figure(w.plan, w.concurrency, p_limits) FROM workspaces w WHERE w.id = p_workspace), 0)
$$;

-- Takes the workspace's slot lock exclusively and returns its figure (read after the lock, so
-- from a snapshot that sees every change made under the lock before).
CREATE OR REPLACE FUNCTION svc_lock_slots(p_workspace TEXT, p_limits JSONB) RETURNS INT
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(svc_slot_lock_key(p_workspace));
  RETURN svc_slot_figure(p_workspace, p_limits);
END
$$;

-- Gives free slots to the longest-waiting runs under the caller's grant key; the caller holds
-- the workspace's lock. A statement sees the rows as they were when it began, so the runs let
-- in now come from the UPDATE's RETURNING, and those let in under the same key by an earlier
-- attempt (committed, then died before telling them) from the table. Returned: every such run
-- whose workflow has asked (the others find their slot when they ask), and the asking run.
CREATE OR REPLACE FUNCTION svc_grant_free_slots(p_workspace TEXT, p_limit INT, p_grant_key TEXT, p_own TEXT)
RETURNS TABLE (grant_run_id TEXT, grant_workflow_id TEXT, grant_own BOOLEAN)
LANGUAGE sql AS $$
  WITH granted AS (
    UPDATE run_slots SET holding = true, granted_by = p_grant_key
     WHERE run_id IN (
       SELECT run_id FROM run_slots WHERE workspace_id = p_workspace AND NOT holding ORDER BY seq
        LIMIT GREATEST(0, p_limit - (SELECT count(*) FROM run_slots WHERE workspace_id = p_workspace AND holding)::int))
    RETURNING run_id, asked),
  holders AS (
    SELECT run_id, asked FROM granted
    UNION ALL
    SELECT run_id, asked FROM run_slots
     WHERE workspace_id = p_workspace AND holding AND (granted_by = p_grant_key OR run_id = p_own))
  SELECT h.run_id, r.temporal_workflow_id, bool_or(h.run_id = p_own)
    FROM holders h JOIN runs r ON r.id = h.run_id
   WHERE h.asked OR h.run_id = p_own
   GROUP BY h.run_id, r.temporal_workflow_id
$$;

-- Whether a run of the workspace waits for a slot it has asked for (it must be told of one).
CREATE OR REPLACE FUNCTION svc_runs_wait(p_workspace TEXT) RETURNS BOOLEAN
LANGUAGE sql AS $$
  SELECT EXISTS (SELECT 1 FROM run_slots WHERE workspace_id = p_workspace AND asked AND NOT holding)
$$;

-- A run asks for its slot: the lock, the run in line (once, however often it asks), the grant.
CREATE OR REPLACE FUNCTION svc_claim_slot(p_workspace TEXT, p_run TEXT, p_grant_key TEXT, p_limits JSONB)
RETURNS TABLE (grant_run_id TEXT, grant_workflow_id TEXT, grant_own BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
  lim INT := svc_lock_slots(p_workspace, p_limits);
BEGIN
  INSERT INTO run_slots AS s (run_id, workspace_id, seq, asked)
  SELECT r.id, r.workspace_id, r.seq, true FROM runs r WHERE r.id = p_run
  ON CONFLICT (run_id) DO UPDATE SET asked = true WHERE NOT s.asked;
  RETURN QUERY SELECT * FROM svc_grant_free_slots(p_workspace, lim, p_grant_key, p_run);
END
$$;

-- Runs give their slot back (or leave the line): the lock, the release, then the grant.
CREATE OR REPLACE FUNCTION svc_release_slots(p_workspace TEXT, p_runs TEXT[], p_grant_key TEXT, p_limits JSONB)
RETURNS TABLE (grant_run_id TEXT, grant_workflow_id TEXT, grant_own BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
  lim INT := svc_lock_slots(p_workspace, p_limits);
BEGIN
  DELETE FROM run_slots s WHERE s.workspace_id = p_workspace AND s.run_id = ANY(p_runs);
  RETURN QUERY SELECT * FROM svc_grant_free_slots(p_workspace, lim, p_grant_key, NULL);
END
$$;

-- A run's slot at its ending (runStore.ts announceEnd), as its transaction's last statement. When
-- no run waits (checked before the lock, and again under it, shared) the run's line entry goes and
-- nobody is told, so endings run side by side. When runs wait, the release is made under the
-- exclusive lock and returns the runs it let in. SV002 when runs began to wait while this ending
-- waited for the shared lock (it cannot take the exclusive one while holding it), or the run is
-- not in line (an earlier attempt committed): the caller undoes the transaction and ends again
-- with `p_exclusive`.
CREATE OR REPLACE FUNCTION svc_end_slot(p_workspace TEXT, p_run TEXT, p_release_key TEXT, p_limits JSONB, p_exclusive BOOLEAN)
RETURNS TABLE (grant_run_id TEXT, grant_workflow_id TEXT, grant_own BOOLEAN)
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT p_exclusive AND NOT svc_runs_wait(p_workspace) THEN
    PERFORM pg_advisory_xact_lock_shared(svc_slot_lock_key(p_workspace));
    IF NOT svc_runs_wait(p_workspace) AND EXISTS (SELECT 1 FROM run_slots WHERE run_id = p_run) THEN
      DELETE FROM run_slots WHERE run_id = p_run;
      RETURN;
    END IF;
    RAISE EXCEPTION 'runs of workspace % began to wait for a slot', p_workspace USING ERRCODE = 'SV002';
  END IF;
  RETURN QUERY SELECT * FROM svc_release_slots(p_workspace, ARRAY[p_run], p_release_key, p_limits);
END
$$;
