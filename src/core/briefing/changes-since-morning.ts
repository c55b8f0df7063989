/**
 * What changed since the morning briefing, for the check-ins: decided by comparing the morning run's
 * receipts (what its tools returned, and when) with the same queries run now, over the core's ports. The
 * model is handed the result as a receipt, so "nothing changed" is a fact from data, not a guess.
 *
 * - tasks completed: completed after the morning run looked (task ids are stable);
 * - newly overdue: open tasks past due now that were not past due at the morning's time;
 * - events: today's events now vs. the `list_events` results of the morning run (read in that tool's own
 *   shape, `eventView`). Synced events get new ids on every calendar sync, so an event is matched by id,
 *   else by title: a match whose start differs is "moved", no match is "new", a morning event with no match
 *   now is "removed". When the morning never listed today's events there is no baseline, and it says so.
 */
import type { EventView, Receipt } from "../domain.ts";
import { formatLocal, localDate as localDateOf, startOfLocalDay } from "../local-time.ts";
import type { Ports } from "../ports.ts";
import { isPastDue, taskQuery } from "../tasks.ts";

export const CHANGES_SINCE_MORNING_TOOL = "changes_since_morning";

export interface EventSummary {
  id: number;
  title: string;
  /** Local "YYYY-MM-DD HH:mm", or "YYYY-MM-DD" for all-day events. */
  start: string;
}

export interface ChangesSinceMorning {
  localDate: string;
  /** The morning run compared against; null when there was none (changes are then since local midnight). */
  morningRunId: number | null;
  /** Local "HH:mm" the comparison starts from. */
  since: string;
  /** Local "HH:mm" of the fresh data. */
  asOf: string;
  tasksCompleted: Array<{ id: number; title: string; completedAt: string }>;
  newlyOverdue: Array<{ id: number; title: string; due: string }>;
  /** False when the morning run did not list today's events, so event changes cannot be known. */
  eventsCompared: boolean;
  newEvents: EventSummary[];
  movedEvents: Array<{ id: number; title: string; from: string; to: string }>;
  removedEvents: EventSummary[];
  nothingChanged: boolean;
  /** One plain sentence of the above, for prompts and logs. */
  summary: string;
}

type ChangePorts = Pick<Ports, "runs" | "receipts" | "records" | "sources">;

export async function changesSinceMorning(
  ports: ChangePorts,
  user: { id: number; timeZone: string },
  localDate: string,
  now: Date,
): Promise<ChangesSinceMorning> {
  const userId = user.id;
  const zone = user.timeZone;
  const morning = await ports.runs.morningOf(userId, localDate);
  const receipts = morning ? await ports.receipts.runReceipts(morning.id) : [];
  const sinceAt = morningInstant(morning, receipts) ?? startOfLocalDay(localDate, zone);
  const completed = await ports.records.listTasks(userId, taskQuery("completed_recently", zone, now, 200));
  const tasksCompleted = completed
    .filter((task) => task.completedAt !== null && task.completedAt >= sinceAt && task.completedAt <= now)
    .map((task) => ({
      id: task.id,
      title: task.title,
      completedAt: formatLocal(task.completedAt ?? now, zone, "HH:mm"),
    }));

  const pastDueNow = [
    ...(await ports.records.listTasks(userId, taskQuery("overdue", zone, now, 200))),
    ...(await ports.records.listTasks(userId, taskQuery("due_today", zone, now, 200))),
  ].filter((task) => isPastDue(task, now, zone));
  const newlyOverdue = pastDueNow
    .filter((task) => !isPastDue(task, sinceAt, zone))
    .map((task) => ({
      id: task.id,
      title: task.title,
      due: `${task.dueDate ?? ""}${task.dueTime ? ` ${task.dueTime}` : ""}`,
    }));

  const morningEvents = morningEventViews(receipts, localDate);
  const eventsCompared = morningEvents !== undefined;
  const newEvents: EventSummary[] = [];
  const movedEvents: ChangesSinceMorning["movedEvents"] = [];
  const removedEvents: EventSummary[] = [];
  if (morningEvents) {
    const current = await ports.sources.events({ id: userId, timeZone: zone }, { range: "today", now });
    const unmatched = new Map(morningEvents.map((event) => [event.id, event]));
    for (const event of current) {
      const before =
        unmatched.get(event.id) ??
        [...unmatched.values()].find((candidate) => candidate.title === event.title);
      if (!before) {
        newEvents.push(summary(event));
        continue;
      }
      unmatched.delete(before.id);
      if (before.start !== event.start) {
        movedEvents.push({ id: event.id, title: event.title, from: before.start, to: event.start });
      }
    }
    removedEvents.push(...unmatched.values());
  }

  const nothingChanged =
    tasksCompleted.length +
      newlyOverdue.length +
      newEvents.length +
      movedEvents.length +
      removedEvents.length ===
    0;
  const result: ChangesSinceMorning = {
    localDate,
    morningRunId: morning?.id ?? null,
    since: formatLocal(sinceAt, zone, "HH:mm"),
    asOf: formatLocal(now, zone, "HH:mm"),
    tasksCompleted,
    newlyOverdue,
    eventsCompared,
    newEvents,
    movedEvents,
    removedEvents,
    nothingChanged,
    summary: "",
  };
  result.summary = describe(result);
  // A check-in asked about another day than `now` still gets a truthful "as of".
  if (localDateOf(now, zone) !== localDate) result.asOf = formatLocal(now, zone, "yyyy-MM-dd HH:mm");
  return result;
}

/** When the morning looked: its first tool call, else when it was generated or claimed. */
function morningInstant(
  run: { generatedAt: Date | null; claimedAt: Date } | undefined,
  receipts: Receipt[],
): Date | undefined {
  if (!run) return undefined;
  const first = receipts.reduce<Date | undefined>(
    (earliest, receipt) => (!earliest || receipt.at < earliest ? receipt.at : earliest),
    undefined,
  );
  return first ?? run.generatedAt ?? run.claimedAt;
}

/** Today's events as the morning's `list_events` calls saw them; undefined when none covered today. */
function morningEventViews(receipts: Receipt[], localDate: string): EventSummary[] | undefined {
  let covered = false;
  const seen = new Map<number, EventSummary>();
  for (const receipt of receipts) {
    if (receipt.toolName !== "list_events" || receipt.error) continue;
    const range = receipt.arguments.range;
    if (range === "today" || range === "upcoming" || range === undefined) covered = true;
    for (const view of eventViewsIn(receipt.result)) {
      if (view.firstDay <= localDate && localDate <= view.lastDay) {
        seen.set(view.id, { id: view.id, title: view.title, start: view.start });
      }
    }
  }
  return covered ? [...seen.values()] : undefined;
}

interface SeenEvent extends EventSummary {
  firstDay: string;
  lastDay: string;
}

/** The events of a `list_events` result, as its `eventView` writes them (`date`, `start` "HH:MM", `last_day`). */
function eventViewsIn(result: unknown): SeenEvent[] {
  const events = (result as { events?: unknown } | null)?.events;
  if (!Array.isArray(events)) return [];
  return events.flatMap((item): SeenEvent[] => {
    const view = item as Record<string, unknown>;
    if (typeof view.id !== "number" || typeof view.title !== "string" || typeof view.date !== "string")
      return [];
    const start = typeof view.start === "string" ? `${view.date} ${view.start}` : view.date;
    const lastDay = typeof view.last_day === "string" ? view.last_day : view.date;
    return [{ id: view.id, title: view.title, start, firstDay: view.date, lastDay }];
  });
}

function summary(event: EventView): EventSummary {
  return { id: event.id, title: event.title, start: event.start };
}

function describe(changes: ChangesSinceMorning): string {
  const since =
    changes.morningRunId === null
      ? "Since midnight (no morning briefing today)"
      : `Since the morning briefing (${changes.since})`;
  if (changes.nothingChanged) {
    return changes.eventsCompared
      ? `${since}: nothing changed — no tasks completed, nothing newly overdue, no new, moved or removed events.`
      : `${since}: no tasks completed and nothing newly overdue; the morning did not list today's events, so event changes are unknown.`;
  }
  const parts = [
    count(changes.tasksCompleted.length, "task completed", "tasks completed"),
    count(changes.newlyOverdue.length, "task newly overdue", "tasks newly overdue"),
    count(changes.newEvents.length, "new event", "new events"),
    count(changes.movedEvents.length, "event moved", "events moved"),
    count(changes.removedEvents.length, "event removed", "events removed"),
  ].filter((part) => part !== "");
  const events = changes.eventsCompared
    ? ""
    : " (event changes unknown: the morning did not list today's events)";
  return `${since}: ${parts.join(", ")}${events}.`;
}

function count(n: number, one: string, many: string): string {
  if (n === 0) return "";
  return `${n} ${n === 1 ? one : many}`;
}
