-- The web console: workspace members, their server-side sessions, one-time
-- sign-in / invitation links, and failed sign-ins (for throttling).
CREATE TABLE "members" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    -- scrypt$N$r$p$salt$hash (base64url); null until the invitation is accepted
    "password_hash" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "members_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "members_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "members_email_key" ON "members"("email");
CREATE INDEX "members_workspace_id_idx" ON "members"("workspace_id");

-- Only SHA-256 digests of session ids and link tokens are stored.
CREATE TABLE "console_sessions" (
    "id_hash" TEXT NOT NULL,
    "member_id" TEXT NOT NULL,
    "csrf_token" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("id_hash"),
    CONSTRAINT "console_sessions_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "console_sessions_member_id_idx" ON "console_sessions"("member_id");

CREATE TABLE "sign_in_links" (
    "token_hash" TEXT NOT NULL,
    "member_id" TEXT NOT NULL,
    -- 'invite' (sets a password) or 'sign_in'
    "purpose" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "sign_in_links_pkey" PRIMARY KEY ("token_hash"),
    CONSTRAINT "sign_in_links_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "sign_in_failures" (
    "id" BIGSERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sign_in_failures_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "sign_in_failures_email_idx" ON "sign_in_failures"("email", "at");
CREATE INDEX "sign_in_failures_address_idx" ON "sign_in_failures"("address", "at");

-- "Last used" of the console's key list, to the minute (bumped at most once a minute per key).
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" TIMESTAMPTZ(3);
