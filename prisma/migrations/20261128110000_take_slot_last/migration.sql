-- A run's slot claim as its transaction's last statement, sent with the COMMIT right behind it
-- (runStore.ts settleLocalStep, slots.ts takeSlot). The claim takes the workspace's slot lock,
-- held to the commit: sent ahead of the transaction's other statements, it was held across a
-- round trip to the worker as well, and every other run of the workspace waited behind it. When
-- no slot is free there is nothing to decide after it but to undo the transaction: it raises
-- SV001, the COMMIT answers ROLLBACK, and the caller claims alone, to keep the run's place in line.
CREATE FUNCTION svc_take_slot(p_workspace TEXT, p_run TEXT, p_grant_key TEXT, p_limits JSONB)
RETURNS TABLE (grant_run_id TEXT, grant_workflow_id TEXT, grant_own BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
  own BOOLEAN := false;
BEGIN
  FOR grant_run_id, grant_workflow_id, grant_own IN SELECT * FROM svc_claim_slot(p_workspace, p_run, p_grant_key, p_limits) LOOP
    own := own OR grant_own;
    RETURN NEXT;
  END LOOP;
  IF NOT own THEN
    RAISE EXCEPTION 'no free slot for run %', p_run USING ERRCODE = 'SV001';
  END IF;
END
$$;
