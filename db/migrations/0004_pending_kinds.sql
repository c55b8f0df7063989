CREATE TYPE "public"."pending_action_kind" AS ENUM('confirm', 'undo');--> statement-breakpoint
ALTER TABLE "pending_actions" ADD COLUMN "kind" "pending_action_kind" DEFAULT 'confirm' NOT NULL;