/**
 * A Todoist task as the API sends it (snake_case, https://developer.todoist.com/api/v1/#tag/Tasks), read
 * with only the fields briefbot uses: the mirror keeps the whole body, and a field Todoist adds later
 * does not make a task unreadable.
 */
import { z } from "zod";
import type { RemoteObject } from "../../../core/accounts/ports.ts";
import { TodoistItemError } from "./todoist-error.ts";

const DueJson = z.object({
  /** "YYYY-MM-DD"; older answers also put a time here ("2026-12-04T14:00:00", with "Z" when fixed). */
  date: z.string(),
  /** The due time, when there is one: with "Z" (or an offset) an instant, without one a floating time. */
  datetime: z.string().nullable().optional(),
  /** The zone a fixed due time was set in. */
  timezone: z.string().nullable().optional(),
  is_recurring: z.boolean().optional(),
  string: z.string().optional(),
});

export const TaskJson = z.object({
  id: z.string().min(1),
  project_id: z.string(),
  parent_id: z.string().nullable(),
  content: z.string(),
  description: z.string(),
  checked: z.boolean(),
  is_deleted: z.boolean(),
  /** 4 is Todoist's "p1", the most urgent; 1 ("p4") is the default. */
  priority: z.number().int().min(1).max(4),
  labels: z.array(z.string()),
  due: DueJson.nullable(),
  completed_at: z.string().nullable(),
  updated_at: z.string(),
});
export type TaskJson = z.infer<typeof TaskJson>;

/** The fields a sync needs to place an item before it is read in full: which task, where, which version. */
const ItemHeader = z.object({
  id: z.string().min(1),
  project_id: z.string().optional(),
  is_deleted: z.boolean().optional(),
  updated_at: z.string().optional(),
});
export type ItemHeader = z.infer<typeof ItemHeader>;

export function itemHeader(item: unknown): ItemHeader | undefined {
  const parsed = ItemHeader.safeParse(item);
  return parsed.success ? parsed.data : undefined;
}

export function readTaskJson(object: Pick<RemoteObject, "remoteId" | "body">): TaskJson {
  let body: unknown;
  try {
    body = JSON.parse(object.body);
  } catch (error) {
    throw new TodoistItemError(`Todoist task ${object.remoteId} is not JSON`, { cause: error });
  }
  const parsed = TaskJson.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "body"}: ${issue.message}`,
    );
    throw new TodoistItemError(
      `Todoist task ${object.remoteId} is unreadable (${problems.slice(0, 3).join("; ")})`,
      {
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}

/** One task body as the mirror keeps it; `updated_at` is the version, Todoist having no ETags. */
export function remoteTask(id: string, updatedAt: string | undefined, body: string): RemoteObject {
  return { remoteId: id, etag: updatedAt ?? "", format: "todoist-json", body };
}

/** The same version written twice: `updated_at` compared as instants, not as text. */
export function sameVersion(left: string, right: string): boolean {
  if (left === right) return true;
  const a = Date.parse(left);
  const b = Date.parse(right);
  return !Number.isNaN(a) && a === b;
}
