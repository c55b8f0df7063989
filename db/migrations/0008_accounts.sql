CREATE TABLE "account_objects" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"collection_id" text NOT NULL,
	"remote_id" text NOT NULL,
	"etag" text NOT NULL,
	"format" text NOT NULL,
	"body" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"kind" text NOT NULL,
	"label" text NOT NULL,
	"url" text NOT NULL,
	"username" text,
	"secret_key_id" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"collections" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"last_sync_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "account_id" integer;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "account_collection_id" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "remote_id" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "source_name" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "account_id" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "account_collection_id" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "remote_id" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "source_name" text;--> statement-breakpoint
ALTER TABLE "account_objects" ADD CONSTRAINT "account_objects_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_objects_remote_idx" ON "account_objects" USING btree ("account_id","collection_id","remote_id");--> statement-breakpoint
CREATE INDEX "accounts_user_idx" ON "accounts" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_account_remote_idx" ON "events" USING btree ("account_id","account_collection_id","remote_id");--> statement-breakpoint
CREATE INDEX "tasks_account_remote_idx" ON "tasks" USING btree ("account_id","account_collection_id","remote_id");