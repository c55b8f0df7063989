DROP TABLE "processed_events" CASCADE;--> statement-breakpoint
ALTER TABLE "inbound_updates" ALTER COLUMN "update_id" SET DATA TYPE text;