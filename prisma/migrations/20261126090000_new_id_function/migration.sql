-- Ids made by PostgreSQL, in the format of the application's newId (packages/domain/src/ids.ts):
-- `<prefix>_` and 24 base36 characters, one per random byte (the byte modulo 36). An event's
-- deliveries take theirs in the one statement that records the event and fans it out
-- (webhooks/fanOut.ts), so nothing waits for that statement's answer before the next.
-- gen_random_uuid is PostgreSQL's own (13 and later): 16 random bytes each but for the
-- version and variant bits in bytes 6 and 8, which are left out.
CREATE FUNCTION svc_new_id(p_prefix TEXT) RETURNS TEXT
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT p_prefix || '_' || left(string_agg(substr('0123456789abcdefghijklmnopqrstuvwxyz', get_byte(r.b, i) % 36 + 1, 1), '' ORDER BY i), 24)
    FROM (SELECT uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()) AS b) r,
         generate_series(0, 31) AS i
   WHERE i % 16 NOT IN (6, 8)
$$;
