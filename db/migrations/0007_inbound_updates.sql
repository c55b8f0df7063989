CREATE TABLE "inbound_updates" (
	"source" text NOT NULL,
	"update_id" bigint NOT NULL,
	"payload" jsonb,
	"received_at" timestamp with time zone NOT NULL,
	"claimed_by" text NOT NULL,
	"handled_at" timestamp with time zone,
	CONSTRAINT "inbound_updates_source_update_id_pk" PRIMARY KEY("source","update_id")
);
--> statement-breakpoint
CREATE INDEX "inbound_updates_handled_at_idx" ON "inbound_updates" USING btree ("source","handled_at");