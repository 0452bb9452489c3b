-- Rate-limit counters are written by every API request. Logged, each of those writes is a
-- commit that waits for a WAL flush (fsync), which capped reads at a few hundred a second.
-- Unlogged, a transaction that writes only these rows commits without waiting for the disk.
-- What is given up: after a PostgreSQL crash the table comes back empty (every window starts
-- afresh), and standbys do not have it (only the primary, where gateways write, uses it).
ALTER TABLE "rate_limits" SET UNLOGGED;
