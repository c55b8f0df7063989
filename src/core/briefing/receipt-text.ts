/**
 * Plain-text readings of receipts, for the deterministic digest and the legacy prompt. Every section says
 * what it found, or "none" when the tool ran and found nothing, or nothing at all when no tool looked:
 * an absent section must never read as "nothing there".
 */
import type { Receipt } from "../domain.ts";

export interface Sections {
  events: string[] | undefined;
  /** Only when the run looked at tomorrow (the evening slot does). */
  tomorrowEvents: string[] | undefined;
  dueToday: string[] | undefined;
  overdue: string[] | undefined;
  highPriority: string[] | undefined;
  weather: string | undefined;
  /** Why there is no forecast, when the weather call failed ("no forecast has been fetched yet for …"). */
  weatherProblem: string | undefined;
  /** Calendars and feeds that could not be refreshed, and how old what they show is. */
  freshness: string[];
  headlines: string[] | undefined;
  projects: string[] | undefined;
  notes: string[] | undefined;
}

export function readSections(receipts: readonly Receipt[]): Sections {
  const ok = receipts.filter((receipt) => !receipt.error);
  const latest = (name: string, matches: (args: Record<string, unknown>) => boolean = () => true) =>
    [...ok].reverse().find((receipt) => receipt.toolName === name && matches(receipt.arguments));
  const tasksFor = (filter: string) => latest("list_tasks", (args) => args.filter === filter);
  const events = latest("list_events", (args) => args.range === undefined || args.range === "today");
  const tomorrow = latest("list_events", (args) => args.range === "tomorrow");
  const weather = latest("get_weather");
  const failedWeather = [...receipts]
    .reverse()
    .find((receipt) => receipt.toolName === "get_weather" && receipt.error);
  const news = latest("get_rss_items");
  const projects = latest("list_projects") ?? latest("search_projects");
  const notes = latest("list_notes");
  return {
    events: events ? list(events.result, "events").map(eventLine) : undefined,
    tomorrowEvents: tomorrow ? list(tomorrow.result, "events").map(eventLine) : undefined,
    dueToday: mapTasks(tasksFor("due_today")),
    overdue: mapTasks(tasksFor("overdue")),
    highPriority: mapTasks(tasksFor("high_priority")),
    weather: weather ? weatherLine(weather.result) : undefined,
    weatherProblem: !weather && failedWeather ? errorText(failedWeather.result) : undefined,
    freshness: [events, tomorrow, news]
      .map((receipt) => (isRecord(receipt?.result) ? text(receipt.result.freshness) : ""))
      .filter((line, index, all) => line !== "" && all.indexOf(line) === index),
    headlines: news ? list(news.result, "items").map(headlineLine) : undefined,
    projects: projects ? list(projects.result, "projects").map(projectLine) : undefined,
    notes: notes ? list(notes.result, "notes").map(noteLine) : undefined,
  };
}

function mapTasks(receipt: Receipt | undefined): string[] | undefined {
  if (!receipt) return undefined;
  const tasks = list(receipt.result, "tasks");
  const titles = new Map(tasks.map((task) => [task.id, text(task.title) || "(untitled task)"]));
  return tasks.map((task) => taskLine(task, titles));
}

export function eventLine(event: Record<string, unknown>): string {
  const title = text(event.title) || "(untitled event)";
  const where = text(event.location) ? ` at ${text(event.location)}` : "";
  if (event.all_day === true) return `${title} (all day)${where}`;
  const start = text(event.start);
  const end = text(event.end);
  const when = start ? (end ? `${start}–${end} ` : `${start} `) : "";
  return `${when}${title}${where}`;
}

/** `titles`: the list's task titles by id, so a subtask says whose it is when its parent is listed too. */
export function taskLine(
  task: Record<string, unknown>,
  titles: ReadonlyMap<unknown, string> = new Map(),
): string {
  const title = `"${text(task.title) || "(untitled task)"}"`;
  const due = [text(task.due), text(task.due_time)].filter(Boolean).join(" ");
  const parent = task.parent === undefined ? undefined : titles.get(task.parent);
  const extras = [
    task.parent === undefined ? "" : parent ? `subtask of "${parent}"` : "subtask",
    due ? `due ${due}` : "",
    task.priority === "high" ? "high priority" : "",
  ].filter(Boolean);
  return extras.length > 0 ? `${title} (${extras.join(", ")})` : title;
}

export function weatherLine(result: unknown): string | undefined {
  if (!isRecord(result)) return undefined;
  if (typeof result.error === "string" || result.available === false) return undefined;
  const today = isRecord(result.today) ? result.today : undefined;
  const now = isRecord(result.now) ? result.now : undefined;
  const unit = text(result.unit) || "°C";
  const parts: string[] = [];
  if (today) {
    const summary = text(today.summary);
    if (summary) parts.push(summary);
    if (typeof today.low === "number" && typeof today.high === "number") {
      parts.push(`${today.low}${unit} to ${today.high}${unit}`);
    }
    if (typeof today.precipitation_chance === "number")
      parts.push(`${today.precipitation_chance}% chance of rain`);
  }
  if (now && typeof now.temperature === "number") parts.push(`${now.temperature}${unit} now`);
  if (parts.length === 0) return undefined;
  const place = text(result.location);
  // An old forecast stands in for a fresh one only if it says how old it is.
  const age =
    result.stale === true && text(result.as_of)
      ? ` (forecast as of ${text(result.as_of)}, not refreshed since)`
      : "";
  return `${place ? `${place}: ` : ""}${parts.join(", ")}${age}`;
}

function headlineLine(item: Record<string, unknown>): string {
  const feed = text(item.feed);
  return `${text(item.title) || "(untitled)"}${feed ? ` (${feed})` : ""}`;
}

function projectLine(project: Record<string, unknown>): string {
  return `${text(project.name)} (${text(project.status) || "active"})`;
}

function noteLine(note: Record<string, unknown>): string {
  return text(note.title) || text(note.body).slice(0, 80);
}

/** A failed call's `{ error }`, without the "weather unavailable:" prefix the tool adds. */
function errorText(result: unknown): string | undefined {
  if (!isRecord(result)) return undefined;
  const message = text(result.error).replace(/^weather unavailable:\s*/i, "");
  return message || undefined;
}

function list(result: unknown, key: string): Array<Record<string, unknown>> {
  if (!isRecord(result)) return [];
  const value = result[key];
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
