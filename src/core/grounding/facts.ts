/**
 * The receipts read as facts about things: each event, task, headline, project and note with its day,
 * times and state, and each forecast day with its conditions. The flat evidence (every string, time and
 * number anywhere) answers "does this exist"; these answer "is it so of that item" — "the standup is
 * tomorrow", "you finished X", "rain this afternoon".
 */
import { DateTime } from "luxon";
import type { Receipt } from "../domain.ts";
import { shownToModel } from "../tools/model-view.ts";
import { conditionsOf, type WeatherCondition } from "./weather-lexicon.ts";
import { contentWords } from "./words.ts";

export type ItemFamily = "event" | "task" | "headline" | "project" | "note";

export interface ItemFact {
  family: ItemFamily;
  title: string;
  /** Content stems of the title: what a sentence must hold to speak of this item. */
  stems: string[];
  receiptId: number;
  /** The list it came in: a list_events range or a list_tasks filter ("overdue"), else undefined. */
  scope: string | undefined;
  /** Events: the local date it starts on; tasks: the due date. */
  date: string | undefined;
  /** Multi-day all-day events: the last local date. */
  lastDate: string | undefined;
  /** Local "HH:MM"; tasks: the due time. */
  start: string | undefined;
  end: string | undefined;
  allDay: boolean;
  /** done: completed; cancelled; tentative; open otherwise. */
  status: "open" | "done" | "cancelled" | "tentative";
  /** A check-in's changes: moved (from → to), new, removed. */
  movedFrom: string | undefined;
  added: boolean;
  removed: boolean;
  priority: string | undefined;
  /** The words of the item's other strings (location, project, notes, feed), for names said of it. */
  extra: string;
}

export interface ForecastDay {
  date: string;
  conditions: Set<WeatherCondition>;
  low: number | undefined;
  high: number | undefined;
  rainChance: number | undefined;
  wind: number | undefined;
  receiptId: number;
}

/** One list a receipt returned: its true count and how many items it showed. */
export interface ListFact {
  family: "event" | "task";
  /** list_events range or list_tasks filter. */
  scope: string;
  count: number;
  shown: number;
  receiptId: number;
}

export interface Facts {
  localDate: string;
  items: ItemFact[];
  forecast: ForecastDay[];
  /** The current reading, when the forecast has one. */
  now: { temperature: number | undefined; conditions: Set<WeatherCondition> } | undefined;
  lists: ListFact[];
  /** Whether some receipt listed events (of any range) successfully. */
  eventsLooked: Set<string>;
}

export function collectFacts(receipts: readonly Receipt[], zone: string, localDate: string): Facts {
  const facts: Facts = {
    localDate,
    items: [],
    forecast: [],
    now: undefined,
    lists: [],
    eventsLooked: new Set(),
  };
  for (const receipt of receipts) {
    if (receipt.error || !isRecord(receipt.result)) continue;
    const result = receipt.result;
    switch (receipt.toolName) {
      case "list_events":
        readEvents(facts, receipt, result, zone);
        break;
      case "list_tasks":
        readTasks(facts, receipt, result);
        break;
      case "get_weather":
        readWeather(facts, receipt, result);
        break;
      case "changes_since_morning":
        readChanges(facts, receipt, result);
        break;
      default:
        readOthers(facts, receipt, result);
    }
  }
  return facts;
}

function readEvents(facts: Facts, receipt: Receipt, result: Record<string, unknown>, zone: string): void {
  const scope = typeof receipt.arguments.range === "string" ? receipt.arguments.range : "today";
  facts.eventsLooked.add(scope);
  const list = records(result.events);
  facts.lists.push({
    family: "event",
    scope,
    count: typeof result.count === "number" ? result.count : list.length,
    shown: typeof result.shown === "number" ? result.shown : shownToModel("events", list.length),
    receiptId: receipt.id,
  });
  for (const event of list) {
    const title = text(event.title);
    if (!title) continue;
    const start = localParts(event.start, zone) ?? localParts(event.startLocal, zone);
    const end = localParts(event.end, zone) ?? localParts(event.endLocal, zone);
    const allDay = event.all_day === true || event.allDay === true;
    const status = text(event.status);
    facts.items.push({
      ...blank("event", title, receipt.id),
      scope,
      date: text(event.date) ?? start?.date,
      lastDate: text(event.last_day) ?? text(event.lastDay),
      start: allDay ? undefined : start?.time,
      end: allDay ? undefined : end?.time,
      allDay,
      status: status === "cancelled" ? "cancelled" : status === "tentative" ? "tentative" : "open",
      extra: [text(event.location), text(event.description)].filter(Boolean).join(" "),
    });
  }
}

function readTasks(facts: Facts, receipt: Receipt, result: Record<string, unknown>): void {
  const scope = typeof receipt.arguments.filter === "string" ? receipt.arguments.filter : "open";
  const list = records(result.tasks);
  facts.lists.push({
    family: "task",
    scope,
    count: typeof result.count === "number" ? result.count : list.length,
    shown: typeof result.shown === "number" ? result.shown : shownToModel("tasks", list.length),
    receiptId: receipt.id,
  });
  for (const task of list) {
    const title = text(task.title);
    if (!title) continue;
    const status = text(task.status);
    facts.items.push({
      ...blank("task", title, receipt.id),
      scope,
      date: text(task.due),
      start: text(task.due_time) ?? text(task.dueTime),
      status:
        scope === "completed_recently" || status === "done"
          ? "done"
          : status === "cancelled"
            ? "cancelled"
            : "open",
      priority: text(task.priority),
      extra: [text(task.project), text(task.notes)].filter(Boolean).join(" "),
    });
  }
}

function readWeather(facts: Facts, receipt: Receipt, result: Record<string, unknown>): void {
  const days = [result.today, ...(Array.isArray(result.next_days) ? result.next_days : [])];
  for (const day of records(days)) {
    const date = text(day.date);
    const summary = text(day.summary) ?? text(day.description) ?? "";
    const given = number(day.precipitation_chance) ?? number(day.precipitationProbability);
    // Some sources give the chance as a fraction (0.4), most as a percentage (40).
    const chance = given !== undefined && given > 0 && given <= 1 ? given * 100 : given;
    facts.forecast.push({
      date: date ?? facts.localDate,
      conditions: conditionsOf(number(day.code) ?? number(day.weather_code), summary, chance),
      low: number(day.low) ?? number(day.tempMin),
      high: number(day.high) ?? number(day.tempMax),
      rainChance: chance,
      wind: number(day.wind_kmh) ?? number(day.wind),
      receiptId: receipt.id,
    });
  }
  const now = isRecord(result.now) ? result.now : isRecord(result.current) ? result.current : undefined;
  if (now) {
    facts.now = {
      temperature: number(now.temperature),
      conditions: conditionsOf(number(now.code), text(now.summary) ?? text(now.description) ?? "", undefined),
    };
  }
}

/** A check-in's "what changed since the morning": completions, new and moved events. */
function readChanges(facts: Facts, receipt: Receipt, result: Record<string, unknown>): void {
  for (const task of records(result.tasksCompleted ?? result.completed)) {
    const title = text(task.title);
    if (title) facts.items.push({ ...blank("task", title, receipt.id), status: "done" });
  }
  for (const task of records(result.newlyOverdue)) {
    const title = text(task.title);
    if (title)
      facts.items.push({
        ...blank("task", title, receipt.id),
        scope: "overdue",
        date: text(task.due)?.slice(0, 10),
      });
  }
  for (const event of records(result.movedEvents)) {
    const title = text(event.title);
    const to = text(event.to);
    if (title)
      facts.items.push({
        ...blank("event", title, receipt.id),
        date: to?.slice(0, 10),
        start: to?.slice(11, 16) || undefined,
        movedFrom: text(event.from) ?? "earlier",
      });
  }
  for (const [key, flag] of [
    ["newEvents", "added"],
    ["removedEvents", "removed"],
  ] as const) {
    for (const event of records(result[key])) {
      const title = text(event.title);
      const start = text(event.start);
      if (title)
        facts.items.push({
          ...blank("event", title, receipt.id),
          date: start?.slice(0, 10),
          start: start?.slice(11, 16) || undefined,
          [flag]: true,
        });
    }
  }
  for (const task of records(result.added)) {
    const title = text(task.title);
    if (title) facts.items.push({ ...blank("task", title, receipt.id), added: true });
  }
}

function readOthers(facts: Facts, receipt: Receipt, result: Record<string, unknown>): void {
  const family: ItemFamily | undefined =
    receipt.toolName === "get_rss_items"
      ? "headline"
      : /project/.test(receipt.toolName)
        ? "project"
        : /note/.test(receipt.toolName)
          ? "note"
          : undefined;
  if (family === undefined) return;
  for (const list of Object.values(result)) {
    for (const entry of records(list)) {
      const title = text(entry.title) ?? text(entry.name);
      if (title)
        facts.items.push({
          ...blank(family, title, receipt.id),
          extra: [text(entry.summary), text(entry.feed), text(entry.body)].filter(Boolean).join(" "),
        });
    }
  }
}

function blank(family: ItemFamily, title: string, receiptId: number): ItemFact {
  return {
    family,
    title,
    stems: contentWords(title).stems,
    receiptId,
    scope: undefined,
    date: undefined,
    lastDate: undefined,
    start: undefined,
    end: undefined,
    allDay: false,
    status: "open",
    movedFrom: undefined,
    added: false,
    removed: false,
    priority: undefined,
    extra: "",
  };
}

/** "10:30", "2026-12-01 10:30", "2026-12-01T09:30:00+00:00" → local date and time in the zone. */
function localParts(value: unknown, zone: string): { date: string | undefined; time: string } | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  if (/^\d{2}:\d{2}$/.test(trimmed)) return { date: undefined, time: trimmed };
  const plain = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})$/.exec(trimmed);
  if (plain) return { date: plain[1], time: plain[2] ?? "" };
  const instant = DateTime.fromISO(trimmed, { zone });
  if (!instant.isValid || !/T|\s\d/.test(trimmed)) return undefined;
  return { date: instant.toISODate() ?? undefined, time: instant.toFormat("HH:mm") };
}

function records(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

function number(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
