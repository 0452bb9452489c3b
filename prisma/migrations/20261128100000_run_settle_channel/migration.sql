-- A run's settling notice goes to the channel of the gateway process whose request waits on it
-- (each listens on a channel of its own, runStore.ts newSettleChannel), not to one channel every
-- gateway hears: a gateway reads the notices of its own waits only, however many gateways run.
-- NULL: no request waits on the run, and its settling transactions send nothing. Replaces the
-- flag of the previous migration (never released on its own).
ALTER TABLE "runs" ADD COLUMN "settle_channel" TEXT;
ALTER TABLE "runs" DROP COLUMN "settle_notice";
