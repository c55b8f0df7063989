/**
 * Undo for every change made in chat: the change's inverse is stored as a pending action of kind "undo"
 * (owner, expiry and once-only come with it), shown as a button under the reply that reports the change.
 * Pressing it runs the inverse as that same user.
 */
import { z } from "zod";
import type { ConfirmationOutcome, UndoOffer } from "../assistant.ts";
import type { CoreDeps } from "../deps.ts";
import type { ChatEventChanges, User } from "../domain.ts";
import { errorMessage } from "../errors.ts";
import { messageLog } from "../message-log.ts";
import type { UndoStep } from "../tools/define-tool.ts";
import type { MutationRecord } from "../tools/dispatch.ts";

/** Files the Undo button for an executed change; undefined when the change cannot be undone. */
export async function offerUndo(
  deps: CoreDeps,
  owner: { userId: number; conversationId: number | null },
  mutation: MutationRecord,
): Promise<UndoOffer | undefined> {
  if (!mutation.undo) return undefined;
  const at = deps.clock.now();
  const row = await deps.ports.confirmations.create({
    kind: "undo",
    userId: owner.userId,
    conversationId: owner.conversationId,
    toolName: mutation.undo.op,
    arguments: { ...mutation.undo },
    summary: `Undo: ${mutation.report}`,
    at,
    expiresAt: new Date(at.getTime() + deps.config.undoMinutes * 60_000),
  });
  return { id: row.id, summary: row.summary, expiresAt: row.expiresAt };
}

/** The user pressed Undo: only their own, only before it expires, only once. */
export async function undoChange(
  deps: CoreDeps,
  userId: number,
  undoId: number,
): Promise<ConfirmationOutcome> {
  const { confirmations } = deps.ports;
  const action = await confirmations.get(undoId);
  if (action?.kind !== "undo") return { kind: "not-found", text: "There is nothing to undo here." };
  if (action.userId !== userId)
    return { kind: "not-yours", text: "Only the person who made the change can undo it." };
  if (action.state !== "pending")
    return { kind: "already-resolved", text: `Already undone: ${action.summary}` };
  const now = deps.clock.now();
  if (action.expiresAt <= now) {
    await confirmations.expire(action.id, now);
    return { kind: "expired", text: `Too late to undo, nothing was changed: ${action.summary}` };
  }
  const claimed = await confirmations.claim(action.id, userId, "confirmed", now);
  if (!claimed) return { kind: "already-resolved", text: `Already handled: ${action.summary}` };
  const user = await deps.ports.users.get(userId);
  const step = UndoStepSchema.safeParse(claimed.arguments);
  let text: string;
  if (!user || !step.success) {
    text = "Could not undo it: the change is no longer known.";
  } else {
    try {
      text = `Undone: ${await applyUndo(deps, user, step.data, now)}.`;
    } catch (error) {
      text = `Could not undo it: ${errorMessage(error)}`;
    }
  }
  await confirmations.recordResult(claimed.id, JSON.stringify({ text }));
  if (claimed.conversationId !== null) {
    const log = messageLog(
      deps.ports.receipts,
      { userId, runId: null, conversationId: claimed.conversationId },
      deps.timer,
    );
    await log.text("assistant", text, deps.clock.now(), { kind: "undo", pending_id: claimed.id });
  }
  return { kind: "done", text };
}

/** Runs the inverse; returns what it did, in the past tense. */
async function applyUndo(deps: CoreDeps, user: User, step: UndoStep, now: Date): Promise<string> {
  const { records } = deps.ports;
  switch (step.op) {
    case "delete_task": {
      const task = await records.deleteTask(user.id, step.id);
      return `deleted task ${task.id} "${task.title}"`;
    }
    case "reopen_task": {
      const task = await records.reopenTask(user.id, step.id, now);
      return `task ${task.id} "${task.title}" is open again`;
    }
    case "restore_task": {
      const task = await records.updateTask(user.id, step.id, step.fields, now);
      return `task ${task.id} "${task.title}" is back as it was`;
    }
    case "delete_event": {
      const event = await records.getEvent(user.id, step.id);
      if (!event || !(await records.deleteEvent(user.id, step.id))) throw new Error(`no event ${step.id}`);
      return `removed event ${event.id} "${event.title}"`;
    }
    case "restore_event": {
      const { allDay, startsAt, endsAt, startDate, endDate, ...text } = step.fields;
      const timing: ChatEventChanges =
        allDay === true && startDate
          ? { allDay: true, startDate, ...(endDate ? { endDate } : {}) }
          : allDay === false && startsAt
            ? { allDay: false, startsAt: new Date(startsAt), ...(endsAt ? { endsAt: new Date(endsAt) } : {}) }
            : {};
      const event = await records.updateEvent(user.id, step.id, { ...timing, ...text }, user.timeZone, now);
      if (!event) throw new Error(`no event ${step.id} created in chat`);
      return `event ${event.id} "${event.title}" is back as it was`;
    }
    case "delete_note": {
      const note = await records.deleteNote(user.id, step.id);
      return `deleted note ${note.id}`;
    }
    case "delete_project": {
      const project = await records.deleteProject(user.id, step.id);
      return `deleted project ${project.id} "${project.name}"`;
    }
    case "restore_project": {
      const project = await records.updateProject(user.id, step.id, step.fields, now);
      return `project ${project.id} "${project.name}" is back as it was`;
    }
  }
}

const id = z.number().int().positive();
const UndoStepSchema: z.ZodType<UndoStep> = z.discriminatedUnion("op", [
  z.object({ op: z.literal("delete_task"), id }),
  z.object({ op: z.literal("reopen_task"), id }),
  z.object({
    op: z.literal("restore_task"),
    id,
    fields: z.object({
      title: z.string().optional(),
      notes: z.string().optional(),
      dueDate: z.string().nullable().optional(),
      dueTime: z.string().nullable().optional(),
      priority: z.enum(["low", "normal", "high"]).optional(),
      projectId: z.number().int().nullable().optional(),
    }),
  }),
  z.object({ op: z.literal("delete_event"), id }),
  z.object({
    op: z.literal("restore_event"),
    id,
    fields: z.object({
      title: z.string().optional(),
      description: z.string().optional(),
      location: z.string().optional(),
      allDay: z.boolean().optional(),
      startsAt: z.string().optional(),
      endsAt: z.string().optional(),
      startDate: z.string().optional(),
      endDate: z.string().optional(),
    }),
  }),
  z.object({ op: z.literal("delete_note"), id }),
  z.object({ op: z.literal("delete_project"), id }),
  z.object({
    op: z.literal("restore_project"),
    id,
    fields: z.object({
      name: z.string().optional(),
      summary: z.string().optional(),
      status: z.enum(["active", "paused", "done", "archived"]).optional(),
    }),
  }),
]);
