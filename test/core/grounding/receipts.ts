/** Receipts shaped like the briefing tools' results, for the grounding tests. 2026-12-01 is a Tuesday. */
import type { Receipt } from "../../../src/core/assistant.ts";
import type { Claim, GroundingReport } from "../../../src/core/grounding/index.ts";

export const LONDON = { timeZone: "Europe/London", localDate: "2026-12-01" };

const AT = new Date("2026-12-01T06:00:00Z");
let nextId = 1;

export function receipt(
  toolName: string,
  args: Record<string, unknown>,
  result: unknown,
  error = false,
): Receipt {
  nextId += 1;
  return { id: nextId, runId: 1, toolName, arguments: args, result, error, at: AT };
}

export interface EventInput {
  title: string;
  start: string;
  end: string;
  location?: string | null;
}

export function events(list: EventInput[], range = "today", date = "2026-12-01"): Receipt {
  return receipt(
    "list_events",
    { range },
    {
      range,
      date,
      timeZone: "Europe/London",
      events: list.map((event, index) => ({
        id: 100 + index,
        title: event.title,
        start: event.start,
        end: event.end,
        startLocal: event.start.slice(11, 16),
        endLocal: event.end.slice(11, 16),
        allDay: false,
        location: event.location ?? null,
      })),
    },
  );
}

export interface TaskInput {
  title: string;
  due?: string | null;
  dueTime?: string | null;
  priority?: string;
  project?: string | null;
}

export function tasks(filter: string, list: TaskInput[]): Receipt {
  return receipt(
    "list_tasks",
    { filter },
    {
      filter,
      today: "2026-12-01",
      tasks: list.map((task, index) => ({
        id: 40 + index,
        title: task.title,
        due: task.due ?? null,
        dueTime: task.dueTime ?? null,
        priority: task.priority ?? "normal",
        project: task.project ?? null,
      })),
    },
  );
}

export function weather(): Receipt {
  return receipt(
    "get_weather",
    { location: "home" },
    {
      location: "Lisbon",
      asOf: "2026-12-01T06:00:00Z",
      stale: false,
      today: { description: "partly cloudy", tempMin: 8.4, tempMax: 16.1, precipitationProbability: 20 },
      current: { temperature: 11.2, description: "clear" },
    },
  );
}

export function headlines(titles: string[]): Receipt {
  return receipt(
    "get_rss_items",
    { max: 8 },
    {
      items: titles.map((title, index) => ({
        title,
        feed: "BBC",
        link: `https://example.test/${index}`,
        published: "2026-12-01T05:00:00Z",
        summary: "",
      })),
    },
  );
}

export const STANDUP: EventInput = {
  title: "Team standup",
  start: "2026-12-01T09:30:00+00:00",
  end: "2026-12-01T10:00:00+00:00",
  location: "Room 4",
};

/** The design doc's morning: nothing on the calendar, one task due today, two overdue, weather and news. */
export function designMorning(): Receipt[] {
  return [
    tasks("due_today", [{ title: "Fix briefing hallucinations", due: "2026-12-01", priority: "high" }]),
    tasks("overdue", [
      { title: "Renew passport", due: "2026-11-28", priority: "high", project: "Travel" },
      { title: "Call the plumber", due: "2026-11-30" },
    ]),
    events([]),
    weather(),
    headlines(["EU agrees new AI rules", "Storm Bert heads for Wales"]),
  ];
}

/** The kinds of claim these unit tests were written for; the natural-prose kinds have the corpus (corpus/). */
const FIRST_KINDS = new Set<Claim["kind"]>(["time", "date", "number", "temperature", "item", "absence"]);

/** The report's claims of the first kinds, for exact assertions that new kinds of claim do not disturb. */
export function firstKindClaims(report: GroundingReport): Claim[] {
  return report.claims.filter((claim) => FIRST_KINDS.has(claim.kind));
}

/** Each claim of the first kinds with its verdict, for compact exact assertions. */
export function verdicts(report: GroundingReport): [Claim["kind"], string, "backed" | "unbacked"][] {
  return firstKindClaims(report).map((claim) => [
    claim.kind,
    claim.text,
    report.unbacked.includes(claim) ? "unbacked" : "backed",
  ]);
}
