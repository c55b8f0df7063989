/**
 * The corpus's planted days: receipts shaped as the real tools return them (list_events' eventView,
 * list_tasks' taskView, get_weather's dayView with WMO summaries, changes_since_morning), for a user in
 * London. Each day is a different shape of life: busy, empty (with the forecast down), a weekend, a rainy
 * forecast, an all-day event, and a long task list with subtasks and a check-in's changes.
 */
import type { Receipt } from "../../../../src/core/domain.ts";

export interface PlantedDay {
  name: string;
  /** The user's local date, YYYY-MM-DD. */
  localDate: string;
  /** The local time the text is written at, HH:MM. */
  localTime: string;
  receipts: Receipt[];
}

export const USER = { name: "Alex", timeZone: "Europe/London", profile: "Alex lives in London with Jo." };

let nextId = 1000;
function receipt(toolName: string, args: Record<string, unknown>, result: unknown, error = false): Receipt {
  nextId += 1;
  return {
    id: nextId,
    runId: 1,
    toolName,
    arguments: args,
    result,
    error,
    at: new Date("2026-12-01T07:00:00Z"),
  };
}

interface EventRow {
  title: string;
  date: string;
  start?: string;
  end?: string;
  location?: string;
  allDay?: boolean;
  lastDay?: string;
}

function events(range: string, today: string, rows: EventRow[]): Receipt {
  return receipt(
    "list_events",
    { range },
    {
      range,
      today,
      count: rows.length,
      events: rows.map((row, index) => ({
        id: 200 + index,
        title: row.title,
        date: row.date,
        ...(row.allDay ? { all_day: true } : { start: row.start, end: row.end }),
        ...(row.lastDay ? { last_day: row.lastDay } : {}),
        ...(row.location ? { location: row.location } : {}),
      })),
      ...(rows.length === 0 ? { note: `Nothing on the calendar ${range}.` } : {}),
    },
  );
}

interface TaskRow {
  title: string;
  due?: string;
  priority?: "high" | "low";
  project?: string;
}

function tasks(filter: string, today: string, rows: TaskRow[], count = rows.length): Receipt {
  return receipt(
    "list_tasks",
    { filter },
    {
      filter,
      today,
      count,
      tasks: rows.map((row, index) => ({
        id: 40 + index,
        title: row.title,
        ...(row.due ? { due: row.due } : {}),
        ...(row.priority ? { priority: row.priority } : {}),
        ...(row.project ? { project: row.project } : {}),
      })),
      ...(count === 0 ? { note: "No open tasks." } : {}),
    },
  );
}

interface Day {
  date: string;
  summary: string;
  low: number;
  high: number;
  chance: number;
}

function weather(days: Day[], now: { temperature: number; summary: string }): Receipt {
  const view = (day: Day) => ({
    date: day.date,
    summary: day.summary,
    low: day.low,
    high: day.high,
    precipitation_chance: day.chance,
  });
  const [today, ...later] = days;
  return receipt(
    "get_weather",
    {},
    {
      location: "London",
      as_of: "06:50",
      unit: "°C",
      now,
      today: today ? view(today) : undefined,
      next_days: later.map(view),
    },
  );
}

function headlines(titles: string[]): Receipt {
  return receipt(
    "get_rss_items",
    { max: 8 },
    {
      count: titles.length,
      items: titles.map((title, index) => ({
        title,
        feed: "BBC News",
        published: `2026-12-01 05:0${index}`,
      })),
    },
  );
}

/** Tuesday 1 December: five events, tasks due and overdue, a high-priority task with no due date. */
export const BUSY: PlantedDay = {
  name: "busy",
  localDate: "2026-12-01",
  localTime: "07:00",
  receipts: [
    tasks("due_today", "2026-12-01", [
      { title: "Send the Q4 report", due: "2026-12-01", priority: "high" },
      { title: "Email the plumber", due: "2026-12-01" },
    ]),
    tasks("overdue", "2026-12-01", [
      { title: "Renew passport", due: "2026-11-28", priority: "high" },
      { title: "Pay council tax", due: "2026-11-30" },
    ]),
    tasks("high_priority", "2026-12-01", [
      { title: "Renew passport", due: "2026-11-28", priority: "high" },
      { title: "Send the Q4 report", due: "2026-12-01", priority: "high" },
      { title: "Book flights to Porto", priority: "high" },
    ]),
    events("today", "2026-12-01", [
      { title: "Team standup", date: "2026-12-01", start: "09:30", end: "10:00", location: "Room 4" },
      { title: "Design review", date: "2026-12-01", start: "11:00", end: "12:00" },
      { title: "Lunch with Sam", date: "2026-12-01", start: "12:30", end: "13:30", location: "Dishoom" },
      { title: "1:1 with Priya", date: "2026-12-01", start: "15:30", end: "16:00" },
      { title: "Gym", date: "2026-12-01", start: "18:00", end: "19:00" },
    ]),
    events("tomorrow", "2026-12-01", [
      {
        title: "Dentist appointment",
        date: "2026-12-02",
        start: "10:00",
        end: "10:30",
        location: "Harley Street",
      },
    ]),
    weather(
      [
        { date: "2026-12-01", summary: "partly cloudy", low: 8, high: 16, chance: 10 },
        { date: "2026-12-02", summary: "light rain", low: 7, high: 12, chance: 70 },
        { date: "2026-12-03", summary: "overcast", low: 6, high: 10, chance: 20 },
      ],
      { temperature: 11, summary: "mainly clear" },
    ),
    headlines(["EU agrees new AI rules", "Storm Bert heads for Wales"]),
    receipt(
      "list_projects",
      { status: "active" },
      { count: 1, projects: [{ id: 7, name: "Kitchen renovation", summary: "Waiting on quotes" }] },
    ),
  ],
};

/** Wednesday 2 December: nothing on the calendar, nothing due, and the forecast could not be fetched. */
export const EMPTY: PlantedDay = {
  name: "empty",
  localDate: "2026-12-02",
  localTime: "07:00",
  receipts: [
    tasks("due_today", "2026-12-02", []),
    tasks("overdue", "2026-12-02", []),
    tasks("high_priority", "2026-12-02", []),
    events("today", "2026-12-02", []),
    receipt("get_weather", {}, { error: "the forecast service did not answer" }, true),
    headlines(["Markets steady ahead of rate decision"]),
  ],
};

/** Saturday 5 December: a market and a dinner, a long run tomorrow, overcast then fog. */
export const WEEKEND: PlantedDay = {
  name: "weekend",
  localDate: "2026-12-05",
  localTime: "08:00",
  receipts: [
    tasks("due_today", "2026-12-05", [{ title: "Water the plants", due: "2026-12-05" }]),
    tasks("overdue", "2026-12-05", []),
    tasks("high_priority", "2026-12-05", []),
    events("today", "2026-12-05", [
      { title: "Farmers market", date: "2026-12-05", start: "09:00", end: "11:00" },
      { title: "Dinner at Mum's", date: "2026-12-05", start: "19:00", end: "22:00" },
    ]),
    events("tomorrow", "2026-12-05", [
      { title: "Long run", date: "2026-12-06", start: "08:00", end: "09:30" },
    ]),
    weather(
      [
        { date: "2026-12-05", summary: "overcast", low: 5, high: 8, chance: 20 },
        { date: "2026-12-06", summary: "fog", low: 3, high: 7, chance: 10 },
      ],
      { temperature: 6, summary: "overcast" },
    ),
  ],
};

/** Monday 7 December: showers all day, a thunderstorm tomorrow, two meetings. */
export const RAINY: PlantedDay = {
  name: "rainy",
  localDate: "2026-12-07",
  localTime: "07:00",
  receipts: [
    tasks("due_today", "2026-12-07", [{ title: "Submit expense report", due: "2026-12-07" }]),
    tasks("overdue", "2026-12-07", [{ title: "Return library books", due: "2026-12-04" }]),
    tasks("high_priority", "2026-12-07", []),
    events("today", "2026-12-07", [
      { title: "Client call with Acme", date: "2026-12-07", start: "10:00", end: "10:45" },
      { title: "Project sync", date: "2026-12-07", start: "14:00", end: "15:00" },
    ]),
    weather(
      [
        { date: "2026-12-07", summary: "rain showers", low: 9, high: 13, chance: 85 },
        { date: "2026-12-08", summary: "thunderstorm", low: 10, high: 14, chance: 90 },
      ],
      { temperature: 10, summary: "light rain" },
    ),
  ],
};

/** Thursday 10 December: a two-day offsite (all day) and a team dinner; snow. */
export const ALL_DAY: PlantedDay = {
  name: "all-day",
  localDate: "2026-12-10",
  localTime: "07:00",
  receipts: [
    tasks("due_today", "2026-12-10", []),
    tasks("overdue", "2026-12-10", []),
    tasks("high_priority", "2026-12-10", [
      { title: "Prepare offsite slides", due: "2026-12-10", priority: "high" },
    ]),
    events("today", "2026-12-10", [
      { title: "Company offsite", date: "2026-12-10", allDay: true, lastDay: "2026-12-11" },
      { title: "Team dinner", date: "2026-12-10", start: "19:30", end: "21:30", location: "The Ivy" },
    ]),
    weather(
      [
        { date: "2026-12-10", summary: "light snow", low: -2, high: 1, chance: 60 },
        { date: "2026-12-11", summary: "mainly clear", low: -4, high: 2, chance: 0 },
      ],
      { temperature: -1, summary: "light snow" },
    ),
  ],
};

const KITCHEN = [
  "Kitchen: order tiles",
  "Kitchen: book electrician",
  "Kitchen: choose worktop",
  "Kitchen: measure cupboards",
  "Kitchen: pick paint colour",
  "Garden: prune roses",
  "Garden: clear gutters",
  "Car: book MOT",
  "Car: renew insurance",
  "Admin: file receipts",
  "Admin: update budget sheet",
  "Admin: cancel old gym membership",
  "Home: fix dripping tap",
  "Home: replace hall bulb",
  "Home: sort recycling",
];

/** Monday 14 December, midday: 61 tasks due today (15 shown), subtasks by prefix, and what changed since the morning. */
export const LONG_LIST: PlantedDay = {
  name: "long-list",
  localDate: "2026-12-14",
  localTime: "12:30",
  receipts: [
    receipt(
      "changes_since_morning",
      { local_date: "2026-12-14" },
      {
        localDate: "2026-12-14",
        since: "07:00",
        asOf: "12:30",
        tasksCompleted: [{ id: 39, title: "Call the bank", completedAt: "09:10" }],
        newlyOverdue: [],
        eventsCompared: true,
        newEvents: [],
        movedEvents: [{ id: 300, title: "Design review", from: "2026-12-14 11:00", to: "2026-12-14 14:00" }],
        removedEvents: [],
        nothingChanged: false,
        summary: "1 task completed (Call the bank); Design review moved from 11:00 to 14:00.",
      },
    ),
    // The stored receipt keeps all 61; the model was shown the first 15 (tools/model-view.ts).
    tasks(
      "due_today",
      "2026-12-14",
      [...KITCHEN, ...Array.from({ length: 46 }, (_, index) => `Backlog: item ${index + 16}`)].map(
        (title) => ({
          title,
          due: "2026-12-14",
          project: title.split(":")[0] ?? "",
        }),
      ),
    ),
    tasks("overdue", "2026-12-14", []),
    tasks("high_priority", "2026-12-14", []),
    events("today", "2026-12-14", [
      { title: "Standup", date: "2026-12-14", start: "09:00", end: "09:15" },
      { title: "Design review", date: "2026-12-14", start: "14:00", end: "15:00" },
    ]),
    weather([{ date: "2026-12-14", summary: "mainly clear", low: 2, high: 9, chance: 5 }], {
      temperature: 7,
      summary: "clear sky",
    }),
  ],
};

export const DAYS: Record<string, PlantedDay> = {
  busy: BUSY,
  empty: EMPTY,
  weekend: WEEKEND,
  rainy: RAINY,
  "all-day": ALL_DAY,
  "long-list": LONG_LIST,
};
