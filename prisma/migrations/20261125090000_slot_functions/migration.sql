-- A run's slot claim and a slot release, each ONE round trip (packages/domain/src/runs/slots.ts).
-- They were separate statements in a client transaction, because the grant must be computed
-- after the workspace's lock is taken: in READ COMMITTED each statement sees what was committed
-- when it began, and a single statement's snapshot predates its wait for the lock. Inside a
-- function each statement takes a fresh snapshot too, so the order holds, the lock is held for
-- no client round trip at all, and a claim needs no BEGIN/COMMIT.

-- A workspace's figure (its concurrency for the slots, its per-key rate in the API key check).
-- `p_limits` comes from the application (planFiguresArg, built from PLANS), so the figures have
-- one source: {"plans": {plan: figure}, "custom": [plans whose own figure counts]}. An unknown
-- plan counts as free, a custom figure below 1 is ignored, as workspaceLimits does (a test
-- compares the two for every plan and both figures).
CREATE FUNCTION svc_plan_figure(p_plan TEXT, p_custom INT, p_limits JSONB) RETURNS INT
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_limits->'custom' ? p_plan AND p_custom >= 1 THEN p_custom
    ELSE COALESCE((p_limits->'plans'->>p_plan)::int, (p_limits->'plans'->>'free')::int, 0)
  END
$$;

-- Gives free slots to the longest-waiting runs under the caller's grant key; the caller holds
-- the workspace's lock. A statement sees the rows as they were when it began, so the runs let
-- in now come from the UPDATE's RETURNING, and those let in under the same key by an earlier
-- attempt (committed, then died before telling them) from the table. Returned: every such run
-- whose workflow has asked (the others find their slot when they ask), and the asking run.
CREATE FUNCTION svc_grant_free_slots(p_workspace TEXT, p_limit INT, p_grant_key TEXT, p_own TEXT)
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

-- Takes the workspace's slot lock (NO KEY UPDATE: runs keep being created meanwhile; every
-- change to its slots happens one at a time, whichever worker makes it) and returns its figure.
CREATE FUNCTION svc_lock_slots(p_workspace TEXT, p_limits JSONB) RETURNS INT
LANGUAGE plpgsql AS $$
DECLARE
  lim INT;
BEGIN
  SELECT svc_plan_figure(w.plan, w.concurrency, p_limits) INTO lim FROM workspaces w WHERE w.id = p_workspace FOR NO KEY UPDATE;
  RETURN COALESCE(lim, 0);
END
$$;

-- A run asks for its slot: the lock, the run in line (once, however often it asks), the grant.
CREATE FUNCTION svc_claim_slot(p_workspace TEXT, p_run TEXT, p_grant_key TEXT, p_limits JSONB)
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
CREATE FUNCTION svc_release_slots(p_workspace TEXT, p_runs TEXT[], p_grant_key TEXT, p_limits JSONB)
RETURNS TABLE (grant_run_id TEXT, grant_workflow_id TEXT, grant_own BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
  lim INT := svc_lock_slots(p_workspace, p_limits);
BEGIN
  DELETE FROM run_slots s WHERE s.workspace_id = p_workspace AND s.run_id = ANY(p_runs);
  RETURN QUERY SELECT * FROM svc_grant_free_slots(p_workspace, lim, p_grant_key, NULL);
END
$$;
