-- Webhook dispatch across instances (docs/scale-out.md): an instance claims due queue rows (FOR
-- UPDATE SKIP LOCKED) until claimed_until; a claim that expires (its instance died) is taken by another.
ALTER TABLE webhook_queue ADD COLUMN claimed_by TEXT;
ALTER TABLE webhook_queue ADD COLUMN claimed_until BIGINT;
