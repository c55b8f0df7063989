import type { LazyCommandFamily } from "../context.ts";

/**
 * Every command family of `briefbot`, in the order `--help` lists them. Each loads its module only when
 * one of its commands runs, so `--help` and a `user list` never pay for Bolt, grammY or the feed parser.
 */
export const COMMAND_FAMILIES: LazyCommandFamily[] = [
  {
    name: "start",
    description: "run the bot: scheduler, syncs, HTTP endpoints and the configured platforms",
    load: async () => (await import("./start.ts")).registerStartCommand,
  },
  {
    name: "migrate",
    description: "apply database migrations (also done on every start)",
    load: async () => (await import("./migrate.ts")).registerMigrateCommand,
  },
  {
    name: "user",
    description: "people briefbot serves, their zones, slots and platform links",
    load: async () => (await import("./user.ts")).registerUserCommands,
  },
  {
    name: "task",
    description: "a user's tasks",
    load: async () => (await import("./task.ts")).registerTaskCommands,
  },
  {
    name: "project",
    description: "a user's projects",
    load: async () => (await import("./project.ts")).registerProjectCommands,
  },
  {
    name: "note",
    description: "a user's notes",
    load: async () => (await import("./note.ts")).registerNoteCommands,
  },
  {
    name: "event",
    description: "a user's calendar events (synced and created by hand)",
    load: async () => (await import("./calendar.ts")).registerEventCommands,
  },
  {
    name: "calendar",
    description: "iCalendar subscriptions (Google, Outlook, iCloud, .ics files)",
    load: async () => (await import("./calendar.ts")).registerCalendarCommands,
  },
  {
    name: "feed",
    description: "RSS, Atom, RDF and JSON Feed subscriptions",
    load: async () => (await import("./feed.ts")).registerFeedCommands,
  },
  {
    name: "account",
    description: "a user's CalDAV and Todoist accounts",
    load: async () => (await import("./account.ts")).registerAccountCommands,
  },
  {
    name: "weather",
    description: "a user's forecast (cached; refreshed when older than 30 minutes)",
    load: async () => (await import("./weather.ts")).registerWeatherCommands,
  },
  {
    name: "brief",
    description: "run one briefing now and print it with its status row, grounding verdict and timings",
    load: async () => (await import("./brief.ts")).registerBriefCommands,
  },
  {
    name: "receipts",
    description: "each tool call of a briefing with its arguments and result (latest briefing by default)",
    load: async () => (await import("./receipts.ts")).registerReceiptsCommands,
  },
  {
    name: "chat",
    description: "talk to the assistant in the terminal (follow-ups to the latest briefing by default)",
    load: async () => (await import("./chat.ts")).registerChatCommands,
  },
  {
    name: "runs",
    description: "briefing runs, newest first: state, timings, deliveries and failure reasons",
    load: async () => (await import("./runs.ts")).registerRunsCommands,
  },
  {
    name: "models",
    description:
      "list Ollama endpoints, loaded models, and whether each route's model can run agentic briefings",
    load: async () => (await import("./models.ts")).registerModelsCommand,
  },
];
