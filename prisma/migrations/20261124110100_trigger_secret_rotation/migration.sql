-- `svc triggers rotate`: the trigger's previous secret and signing secret stay
-- valid until trigger_previous_expires_at (24 h after a rotation), as webhook endpoint secrets do.
ALTER TABLE "workflows" ADD COLUMN "trigger_previous_secret_enc" TEXT;
ALTER TABLE "workflows" ADD COLUMN "trigger_previous_signing_secret_enc" TEXT;
ALTER TABLE "workflows" ADD COLUMN "trigger_previous_expires_at" TIMESTAMPTZ(3);
