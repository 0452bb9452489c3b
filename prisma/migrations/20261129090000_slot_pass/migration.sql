-- A run that ends while no run of its workspace waits for a slot (none has asked and been refused)
-- gives its slot back, or takes and gives back the one its first step needed, without the
-- workspace's exclusive slot lock: its slot goes to nobody, since no run that asked is waiting
-- (a run that has not asked finds its slot when it does). Such endings take the lock shared, so
-- they run side by side; a claim, a release that lets runs in, or a grant takes it exclusively,
-- as before. The lock becomes an advisory lock, held to the commit like the row lock it replaces,
-- which a shared holder could only take by writing the workspace's row.

-- The workspace's slot lock: an advisory lock of its own key space (the high 32 bits, 'svcs').
CREATE FUNCTION svc_slot_lock_key(p_workspace TEXT) RETURNS BIGINT
LANGUAGE sql IMMUTABLE AS $$
  SELECT (1937138547::bigint << 32) | (hashtext(p_workspace)::bigint & 4294967295)
$$;

-- The workspace's concurrency figure (0 for a workspace that is gone).
CREATE FUNCTION svc_slot_figure(p_workspace TEXT, p_limits JSONB) RETURNS INT
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

-- Whether a run of the workspace waits for a slot it has asked for (it must be told of one).
CREATE FUNCTION svc_runs_wait(p_workspace TEXT) RETURNS BOOLEAN
LANGUAGE sql AS $$
  SELECT EXISTS (SELECT 1 FROM run_slots WHERE workspace_id = p_workspace AND asked AND NOT holding)
$$;

CREATE INDEX "run_slots_asked_waiting_idx" ON "run_slots"("workspace_id") WHERE "asked" AND NOT "holding";

-- A run's slot at its ending (runStore.ts announceEnd): with `p_claim_key`, the run takes the slot
-- its first step needed, then gives it back. When no run waits (checked before the lock, and again
-- under it, shared) the run's line entry goes: a slot it holds is free again, one it takes must be
-- free (else SV001, as svc_take_slot); nobody is told. When runs wait, the claim and the release
-- are made under the exclusive lock, and return the runs they let in (`by_claim`: the claim's).
-- SV002 when runs began to wait while this ending waited for the shared lock (it cannot take the
-- exclusive one while holding it), or the run is not in line (an earlier attempt committed): the
-- caller undoes the transaction and ends again with `p_exclusive`.
CREATE FUNCTION svc_end_slot(p_workspace TEXT, p_run TEXT, p_claim_key TEXT, p_release_key TEXT, p_limits JSONB, p_exclusive BOOLEAN)
RETURNS TABLE (grant_run_id TEXT, grant_workflow_id TEXT, grant_own BOOLEAN, by_claim BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
  held BOOLEAN;
BEGIN
  IF NOT p_exclusive AND NOT svc_runs_wait(p_workspace) THEN
    PERFORM pg_advisory_xact_lock_shared(svc_slot_lock_key(p_workspace));
    IF NOT svc_runs_wait(p_workspace) THEN
      SELECT s.holding INTO held FROM run_slots s WHERE s.run_id = p_run;
      IF held IS NOT NULL THEN
        IF NOT held AND p_claim_key IS NOT NULL
           AND (SELECT count(*) FROM run_slots WHERE workspace_id = p_workspace AND holding) >= svc_slot_figure(p_workspace, p_limits) THEN
          RAISE EXCEPTION 'no free slot for run %', p_run USING ERRCODE = 'SV001';
        END IF;
        DELETE FROM run_slots WHERE run_id = p_run;
        RETURN;
      END IF;
    END IF;
    RAISE EXCEPTION 'runs of workspace % began to wait for a slot', p_workspace USING ERRCODE = 'SV002';
  END IF;
  IF p_claim_key IS NOT NULL THEN
    RETURN QUERY SELECT t.grant_run_id, t.grant_workflow_id, t.grant_own, true FROM svc_take_slot(p_workspace, p_run, p_claim_key, p_limits) t;
  END IF;
  RETURN QUERY SELECT r.grant_run_id, r.grant_workflow_id, r.grant_own, false
    FROM svc_release_slots(p_workspace, ARRAY[p_run], p_release_key, p_limits) r;
END
$$;
