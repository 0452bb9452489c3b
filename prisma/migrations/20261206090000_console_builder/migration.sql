-- The author's own text of each definition version (YAML or JSON, comments kept), shown again by
-- the console's editor. NULL for versions saved before it was kept: shown as the stored definition.
ALTER TABLE "workflow_versions" ADD COLUMN "source" TEXT;

-- An archived workflow is hidden from lists and starts no new runs (API or trigger); its runs stay.
-- A workflow whose trigger is off answers its trigger URL like an unknown one.
ALTER TABLE "workflows" ADD COLUMN "archived_at" TIMESTAMPTZ(3);
ALTER TABLE "workflows" ADD COLUMN "trigger_enabled" BOOLEAN NOT NULL DEFAULT true;

-- Workspaces whose console pages listen for changes, each until a lease runs out (the gateways
-- holding live pages renew it). Unlogged: a lease lost in a crash is renewed within seconds.
CREATE UNLOGGED TABLE "console_watchers" (
    "workspace_id" TEXT NOT NULL,
    "until" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "console_watchers_pkey" PRIMARY KEY ("workspace_id")
);

-- Tells the gateways with live pages of the workspace (LISTEN svc_console) what changed: the key
-- `ws:<workspace>`, a newline, then `run <id>`, `review <run id>` or `delivery <endpoint id>`.
-- Nothing is sent while no page of the workspace is open, so writes pay one index probe then.
CREATE FUNCTION svc_console_notify(p_workspace TEXT, p_body TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  IF p_workspace IS NOT NULL AND EXISTS (SELECT 1 FROM console_watchers WHERE workspace_id = p_workspace AND until > now()) THEN
    PERFORM pg_notify('svc_console', 'ws:' || p_workspace || E'\n' || p_body);
  END IF;
END $$;

CREATE FUNCTION svc_console_run_changed() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM svc_console_notify(NEW.workspace_id, 'run ' || NEW.id);
  RETURN NULL;
END $$;

-- Steps and reviews carry no workspace: it is read from the run only while some page listens.
CREATE FUNCTION svc_console_run_part_changed() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM console_watchers WHERE until > now()) THEN
    PERFORM svc_console_notify((SELECT workspace_id FROM runs WHERE id = NEW.run_id),
                               CASE WHEN TG_TABLE_NAME = 'reviews' THEN 'review ' ELSE 'run ' END || NEW.run_id);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION svc_console_delivery_changed() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM svc_console_notify(NEW.workspace_id, 'delivery ' || NEW.endpoint_id);
  RETURN NULL;
END $$;

CREATE TRIGGER console_run_inserted AFTER INSERT ON "runs" FOR EACH ROW EXECUTE FUNCTION svc_console_run_changed();
CREATE TRIGGER console_run_updated AFTER UPDATE ON "runs" FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION svc_console_run_changed();
CREATE TRIGGER console_step_updated AFTER UPDATE ON "run_steps" FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.attempts IS DISTINCT FROM NEW.attempts) EXECUTE FUNCTION svc_console_run_part_changed();
CREATE TRIGGER console_review_changed AFTER INSERT OR UPDATE OF "status" ON "reviews" FOR EACH ROW EXECUTE FUNCTION svc_console_run_part_changed();
CREATE TRIGGER console_delivery_inserted AFTER INSERT ON "webhook_deliveries" FOR EACH ROW EXECUTE FUNCTION svc_console_delivery_changed();
CREATE TRIGGER console_delivery_updated AFTER UPDATE ON "webhook_deliveries" FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.attempt_count IS DISTINCT FROM NEW.attempt_count)
  EXECUTE FUNCTION svc_console_delivery_changed();

-- The attempts of steps that were tried more than once, for a run's trace (the step's row keeps
-- only its first start, its end and its last error). Written by the database as a retried http
-- step starts another attempt and as any step records a failed attempt, so a step that succeeds
-- at once writes nothing here. An http attempt's start is known; other steps record their
-- attempts only when they fail, so only the end of theirs is.
CREATE TABLE "run_step_attempts" (
    "run_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "error" JSONB,
    CONSTRAINT "run_step_attempts_pkey" PRIMARY KEY ("run_id", "key", "number"),
    CONSTRAINT "run_step_attempts_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE FUNCTION svc_step_attempt_started() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO run_step_attempts (run_id, key, number, started_at) VALUES (NEW.run_id, NEW.key, NEW.attempts, now())
  ON CONFLICT (run_id, key, number) DO NOTHING;
  RETURN NULL;
END $$;

CREATE FUNCTION svc_step_attempt_failed() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO run_step_attempts (run_id, key, number, started_at, ended_at, error)
  VALUES (NEW.run_id, NEW.key, NEW.attempts, CASE WHEN NEW.type = 'http' AND NEW.attempts = 1 THEN NEW.started_at END, now(), NEW.error)
  ON CONFLICT (run_id, key, number) DO UPDATE SET ended_at = EXCLUDED.ended_at, error = EXCLUDED.error;
  RETURN NULL;
END $$;

CREATE TRIGGER step_attempt_started AFTER UPDATE OF "attempts" ON "run_steps" FOR EACH ROW
  WHEN (NEW.attempts > OLD.attempts AND NEW.attempts > 1 AND NEW.type = 'http' AND NEW.status = 'running')
  EXECUTE FUNCTION svc_step_attempt_started();
CREATE TRIGGER step_attempt_failed AFTER UPDATE OF "error" ON "run_steps" FOR EACH ROW
  WHEN (NEW.error IS NOT NULL AND NEW.error IS DISTINCT FROM OLD.error AND NEW.status IN ('pending', 'running'))
  EXECUTE FUNCTION svc_step_attempt_failed();
