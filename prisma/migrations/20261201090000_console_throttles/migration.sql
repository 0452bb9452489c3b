-- The console's sign-in throttles, decided atomically: each takes an advisory lock per key it
-- counts (held to the commit), so the count it reads includes every attempt admitted before it
-- and concurrent guesses cannot all see room in the window. The locks use the two-int form,
-- a key space apart from the one-bigint locks of the slots: (class, hashtext(key)).

-- Requests for a mailed one-time sign-in link, per normalized email, member or not.
CREATE TABLE "sign_in_link_requests" (
    "id" BIGSERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sign_in_link_requests_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "sign_in_link_requests_email_at_idx" ON "sign_in_link_requests"("email", "at");

-- The housekeeping sweep deletes outbox mail past its retention, oldest first.
CREATE INDEX "outbox_emails_created_at_idx" ON "outbox_emails"("created_at");

-- Milliseconds until a window that is full since `p_full_at` (its limit-th newest entry) has room.
CREATE FUNCTION svc_throttle_wait_ms(p_full_at TIMESTAMPTZ, p_window_ms INT) RETURNS INT
LANGUAGE sql VOLATILE AS $$
  SELECT greatest(1, ceil(extract(epoch FROM p_full_at + p_window_ms * interval '1 millisecond' - clock_timestamp()) * 1000))::INT
$$;

-- Admits a password sign-in and records it as a failure before the password is checked (the
-- caller deletes that row when the password is right), or refuses it while the email ('svce')
-- or the client address ('svca') already has its limit of failures within the window. Returns
-- the failure row's id, or NULL and the milliseconds until the window has room again.
CREATE FUNCTION svc_sign_in_attempt(p_email TEXT, p_address TEXT, p_window_ms INT, p_per_email INT, p_per_address INT)
RETURNS TABLE (failure_id BIGINT, retry_after_ms INT)
LANGUAGE plpgsql AS $$
DECLARE
  v_since TIMESTAMPTZ;
  v_email_full TIMESTAMPTZ;
  v_address_full TIMESTAMPTZ;
  v_id BIGINT;
BEGIN
  -- Always the email first, then the address: two attempts never wait for each other in a cycle.
  PERFORM pg_advisory_xact_lock(1937138533, hashtext(p_email));
  PERFORM pg_advisory_xact_lock(1937138529, hashtext(p_address));
  v_since := clock_timestamp() - p_window_ms * interval '1 millisecond';
  -- The limit-th newest failure in the window: while there is one, the window is full.
  SELECT f.at INTO v_email_full FROM sign_in_failures f
    WHERE f.email = p_email AND f.at > v_since ORDER BY f.at DESC OFFSET p_per_email - 1 LIMIT 1;
  SELECT f.at INTO v_address_full FROM sign_in_failures f
    WHERE f.address = p_address AND f.at > v_since ORDER BY f.at DESC OFFSET p_per_address - 1 LIMIT 1;
  IF v_email_full IS NOT NULL OR v_address_full IS NOT NULL THEN
    RETURN QUERY SELECT NULL::BIGINT, svc_throttle_wait_ms(greatest(v_email_full, v_address_full), p_window_ms);
    RETURN;
  END IF;
  INSERT INTO sign_in_failures (email, address, at) VALUES (p_email, p_address, clock_timestamp()) RETURNING id INTO v_id;
  RETURN QUERY SELECT v_id, 0;
END
$$;

-- Admits and records a request for a mailed sign-in link, or refuses it while the email
-- ('svcl') has its limit of requests within the window. Returns 0, or the milliseconds until
-- the window has room again.
CREATE FUNCTION svc_sign_in_link_request(p_email TEXT, p_window_ms INT, p_per_email INT) RETURNS INT
LANGUAGE plpgsql AS $$
DECLARE
  v_full TIMESTAMPTZ;
BEGIN
  PERFORM pg_advisory_xact_lock(1937138540, hashtext(p_email));
  SELECT r.at INTO v_full FROM sign_in_link_requests r
    WHERE r.email = p_email AND r.at > clock_timestamp() - p_window_ms * interval '1 millisecond'
    ORDER BY r.at DESC OFFSET p_per_email - 1 LIMIT 1;
  IF v_full IS NOT NULL THEN
    RETURN svc_throttle_wait_ms(v_full, p_window_ms);
  END IF;
  INSERT INTO sign_in_link_requests (email, at) VALUES (p_email, clock_timestamp());
  RETURN 0;
END
$$;
