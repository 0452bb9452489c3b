-- An enterprise workspace's own per-workspace caps (webhook endpoints, secrets, assignees per
-- review step), set by an operator with `svc workspace set-plan`. Null: the plan's figure.
-- Counted only on the plans whose workspaces have figures of their own (enterprise).
ALTER TABLE "workspaces"
    ADD COLUMN "max_webhook_endpoints" INTEGER,
    ADD COLUMN "max_secrets" INTEGER,
    ADD COLUMN "max_review_assignees" INTEGER;
