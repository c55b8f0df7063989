ALTER TABLE "calendars" ADD COLUMN "body" text;--> statement-breakpoint
ALTER TABLE "calendars" ADD COLUMN "last_warnings" jsonb DEFAULT '[]'::jsonb NOT NULL;