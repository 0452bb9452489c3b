-- Whether the transactions that settle a run send it on svc_run_settled (runStore.ts readSettled):
-- only a run whose start waits for it (`wait: true`) does. A NOTIFY makes its transaction take
-- PostgreSQL's one notify lock from its commit's start to its end (its WAL flush included), so
-- notifying transactions commit one at a time across the whole cluster; runs that no request waits
-- for (started without a wait, by an inbound webhook, from the console) stay out of that line.
-- A constant default: no table rewrite.
ALTER TABLE "runs" ADD COLUMN "settle_notice" BOOLEAN NOT NULL DEFAULT false;
