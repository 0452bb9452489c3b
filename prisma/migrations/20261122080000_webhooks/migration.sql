-- Outbound webhooks: endpoints, deliveries (the delivery log and the outbox the
-- delivery workflows are started from), attempts; and the mail outbox used without SMTP.

CREATE TABLE "webhook_endpoints" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "event_types" TEXT[],
    "description" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT 'enabled',
    "disabled_reason" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_by_delivery_id" TEXT,
    "secret_enc" TEXT NOT NULL,
    "previous_secret_enc" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "last_success_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seq" BIGSERIAL NOT NULL,
    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_endpoints_status_check" CHECK ("status" IN ('enabled', 'disabled'))
);
CREATE INDEX "webhook_endpoints_workspace_id_seq_idx" ON "webhook_endpoints"("workspace_id", "seq" DESC);
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "endpoint_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_response_status" INTEGER,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "window_started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatch_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatched_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seq" BIGSERIAL NOT NULL,
    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed'))
);
-- One delivery per (event, endpoint), whatever the retries of the publisher.
CREATE UNIQUE INDEX "webhook_deliveries_event_id_endpoint_id_key" ON "webhook_deliveries"("event_id", "endpoint_id");
CREATE INDEX "webhook_deliveries_endpoint_id_seq_idx" ON "webhook_deliveries"("endpoint_id", "seq" DESC);
CREATE INDEX "webhook_deliveries_endpoint_id_status_idx" ON "webhook_deliveries"("endpoint_id", "status");
-- The outbox: deliveries whose workflow is not started yet (normally none, or a few for a moment).
CREATE INDEX "webhook_deliveries_undispatched_idx" ON "webhook_deliveries"("dispatch_after") WHERE "dispatched_at" IS NULL;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "webhook_delivery_attempts" (
    "delivery_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "attempt_key" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "response_status" INTEGER NOT NULL DEFAULT 0,
    "response_body_excerpt" TEXT NOT NULL DEFAULT '',
    "error" TEXT,
    CONSTRAINT "webhook_delivery_attempts_pkey" PRIMARY KEY ("delivery_id", "number")
);
CREATE UNIQUE INDEX "webhook_delivery_attempts_attempt_key_key" ON "webhook_delivery_attempts"("attempt_key");
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "outbox_emails" (
    "id" BIGSERIAL NOT NULL,
    "recipients" TEXT[],
    "subject" TEXT NOT NULL,
    "text_body" TEXT NOT NULL,
    "html_body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_emails_pkey" PRIMARY KEY ("id")
);
