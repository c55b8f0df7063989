CREATE TYPE "public"."briefing_mode" AS ENUM('agentic', 'legacy');
--> statement-breakpoint
CREATE TYPE "public"."conversation_platform" AS ENUM('cli', 'telegram', 'slack');
--> statement-breakpoint
CREATE TYPE "public"."delivery_platform" AS ENUM('telegram', 'slack', 'cli');
--> statement-breakpoint
CREATE TYPE "public"."delivery_state" AS ENUM('pending', 'sending', 'sent', 'failed');
--> statement-breakpoint
CREATE TYPE "public"."event_status" AS ENUM('confirmed', 'tentative', 'cancelled');
--> statement-breakpoint
CREATE TYPE "public"."message_role" AS ENUM('system', 'user', 'assistant', 'tool');
--> statement-breakpoint
CREATE TYPE "public"."pending_action_state" AS ENUM('pending', 'confirmed', 'cancelled', 'expired');
--> statement-breakpoint
CREATE TYPE "public"."platform" AS ENUM('telegram', 'slack');
--> statement-breakpoint
CREATE TYPE "public"."project_status" AS ENUM('active', 'paused', 'done', 'archived');
--> statement-breakpoint
CREATE TYPE "public"."run_mode" AS ENUM('agentic', 'legacy', 'digest');
--> statement-breakpoint
CREATE TYPE "public"."run_state" AS ENUM('claimed', 'generating', 'generated', 'delivering', 'delivered', 'failed', 'skipped');
--> statement-breakpoint
CREATE TYPE "public"."run_trigger" AS ENUM('schedule', 'manual');
--> statement-breakpoint
CREATE TYPE "public"."slot_name" AS ENUM('morning', 'midday', 'afternoon', 'evening');
--> statement-breakpoint
CREATE TYPE "public"."task_priority" AS ENUM('low', 'normal', 'high');
--> statement-breakpoint
CREATE TYPE "public"."task_status" AS ENUM('open', 'done');
--> statement-breakpoint
CREATE TABLE "platform_messages" (
	"platform" "platform" NOT NULL,
	"message_key" text NOT NULL,
	"user_id" integer NOT NULL,
	"run_id" integer,
	"thread_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_messages_platform_message_key_pk" PRIMARY KEY("platform","message_key")
);
--> statement-breakpoint
-- The partial unique index compares "trigger" with a text literal; it is rebuilt once the column is an enum.
DROP INDEX "briefing_runs_scheduled_once_idx";
--> statement-breakpoint
-- Text defaults cannot be cast to an enum automatically: each default is dropped, the column converted
-- (every existing value cast with USING), and the default set again as the enum value.
ALTER TABLE "briefing_runs" ALTER COLUMN "slot" SET DATA TYPE "public"."slot_name" USING "slot"::"public"."slot_name";
--> statement-breakpoint
ALTER TABLE "briefing_runs" ALTER COLUMN "trigger" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "briefing_runs" ALTER COLUMN "trigger" SET DATA TYPE "public"."run_trigger" USING "trigger"::"public"."run_trigger";
--> statement-breakpoint
ALTER TABLE "briefing_runs" ALTER COLUMN "trigger" SET DEFAULT 'manual'::"public"."run_trigger";
--> statement-breakpoint
ALTER TABLE "briefing_runs" ALTER COLUMN "state" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "briefing_runs" ALTER COLUMN "state" SET DATA TYPE "public"."run_state" USING "state"::"public"."run_state";
--> statement-breakpoint
ALTER TABLE "briefing_runs" ALTER COLUMN "state" SET DEFAULT 'claimed'::"public"."run_state";
--> statement-breakpoint
ALTER TABLE "briefing_runs" ALTER COLUMN "mode" SET DATA TYPE "public"."run_mode" USING "mode"::"public"."run_mode";
--> statement-breakpoint
ALTER TABLE "conversations" ALTER COLUMN "platform" SET DATA TYPE "public"."conversation_platform" USING "platform"::"public"."conversation_platform";
--> statement-breakpoint
ALTER TABLE "deliveries" ALTER COLUMN "platform" SET DATA TYPE "public"."delivery_platform" USING "platform"::"public"."delivery_platform";
--> statement-breakpoint
ALTER TABLE "deliveries" ALTER COLUMN "state" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "deliveries" ALTER COLUMN "state" SET DATA TYPE "public"."delivery_state" USING "state"::"public"."delivery_state";
--> statement-breakpoint
ALTER TABLE "deliveries" ALTER COLUMN "state" SET DEFAULT 'pending'::"public"."delivery_state";
--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "role" SET DATA TYPE "public"."message_role" USING "role"::"public"."message_role";
--> statement-breakpoint
ALTER TABLE "pending_actions" ALTER COLUMN "state" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "pending_actions" ALTER COLUMN "state" SET DATA TYPE "public"."pending_action_state" USING "state"::"public"."pending_action_state";
--> statement-breakpoint
ALTER TABLE "pending_actions" ALTER COLUMN "state" SET DEFAULT 'pending'::"public"."pending_action_state";
--> statement-breakpoint
ALTER TABLE "processed_events" ALTER COLUMN "platform" SET DATA TYPE "public"."platform" USING "platform"::"public"."platform";
--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "status" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "status" SET DATA TYPE "public"."event_status" USING "status"::"public"."event_status";
--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "status" SET DEFAULT 'confirmed'::"public"."event_status";
--> statement-breakpoint
ALTER TABLE "identities" ALTER COLUMN "platform" SET DATA TYPE "public"."platform" USING "platform"::"public"."platform";
--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "status" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "status" SET DATA TYPE "public"."project_status" USING "status"::"public"."project_status";
--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "status" SET DEFAULT 'active'::"public"."project_status";
--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "priority" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "priority" SET DATA TYPE "public"."task_priority" USING "priority"::"public"."task_priority";
--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "priority" SET DEFAULT 'normal'::"public"."task_priority";
--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status" SET DATA TYPE "public"."task_status" USING "status"::"public"."task_status";
--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "status" SET DEFAULT 'open'::"public"."task_status";
--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "briefing_mode" DROP DEFAULT;
--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "briefing_mode" SET DATA TYPE "public"."briefing_mode" USING "briefing_mode"::"public"."briefing_mode";
--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "briefing_mode" SET DEFAULT 'agentic'::"public"."briefing_mode";
--> statement-breakpoint
CREATE UNIQUE INDEX "briefing_runs_scheduled_once_idx" ON "briefing_runs" USING btree ("user_id","slot","local_date") WHERE "briefing_runs"."trigger" = 'schedule';
--> statement-breakpoint
ALTER TABLE "platform_messages" ADD CONSTRAINT "platform_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "platform_messages" ADD CONSTRAINT "platform_messages_run_id_briefing_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."briefing_runs"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "platform_messages_run_idx" ON "platform_messages" USING btree ("run_id");
--> statement-breakpoint
-- Telegram kept one conversations row per bot message of a briefing's chain, and found the chain's root as
-- the first row of the run in that chat. Those links move here, each with its root, so replies keep working.
INSERT INTO "platform_messages" ("platform", "message_key", "user_id", "run_id", "thread_key", "created_at")
SELECT "platform"::text::"public"."platform", "thread_key", "user_id", "run_id",
  CASE WHEN "platform" = 'telegram'
    THEN first_value("thread_key") OVER (PARTITION BY "user_id", "run_id", split_part("thread_key", ':', 2) ORDER BY "id")
    ELSE "thread_key" END,
  "created_at"
FROM "conversations"
WHERE "run_id" IS NOT NULL AND "platform" IN ('telegram', 'slack') AND "thread_key" NOT LIKE '%#user:%'
ON CONFLICT DO NOTHING;
