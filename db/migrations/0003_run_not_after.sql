ALTER TABLE "briefing_runs" ADD COLUMN "not_after" timestamp with time zone;--> statement-breakpoint
-- Scheduled runs still on their way when this migration runs get the default window (90 minutes after the
-- claim, which falls in the slot's first minute), as the outbox used to work it out; finished runs keep null.
UPDATE "briefing_runs" SET "not_after" = "claimed_at" + interval '90 minutes'
WHERE "trigger" = 'schedule' AND "state" IN ('claimed', 'generating', 'generated', 'delivering');
