CREATE TABLE "forget_questions" (
	"user_id" integer NOT NULL,
	"token" text NOT NULL,
	"step" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "forget_questions_user_id_pk" PRIMARY KEY("user_id")
);
--> statement-breakpoint
CREATE TABLE "leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"acquired_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_buckets" (
	"scope" text PRIMARY KEY NOT NULL,
	"theoretical_arrival" timestamp (6) with time zone NOT NULL,
	"paused_until" timestamp (6) with time zone
);
--> statement-breakpoint
ALTER TABLE "deliveries" ALTER COLUMN "target" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "briefing_runs" ADD COLUMN "checks" jsonb;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "identity_id" integer;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "sending_by" text;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "progress" jsonb;--> statement-breakpoint
ALTER TABLE "forget_questions" ADD CONSTRAINT "forget_questions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_identity_id_identities_id_fk" FOREIGN KEY ("identity_id") REFERENCES "public"."identities"("id") ON DELETE set null ON UPDATE no action;