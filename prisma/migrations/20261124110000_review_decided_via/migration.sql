-- Who decided a review, as the server authenticated it, beside the free-text
-- decided_by label the caller may choose: the kind of principal and its id (an API key id,
-- the review link's assignee, a console member id, the CLI's OS account). NULL while pending,
-- when cancelled, and for decisions recorded before this column existed.
ALTER TABLE "reviews" ADD COLUMN "decided_via_type" TEXT;
ALTER TABLE "reviews" ADD COLUMN "decided_via_id" TEXT;
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_decided_via_type_check"
  CHECK ("decided_via_type" IN ('api_key', 'review_link', 'console', 'cli', 'temporal', 'timeout'));
