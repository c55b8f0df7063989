/**
 * The accounts part of a soak run: one user with a CalDAV account on a real Radicale and one with a
 * Todoist account on the Todoist test server, both added with the real CLI (`briefbot account add …`,
 * BRIEFBOT_SECRET_KEY set, the password and the token in files). While the bot runs, another client
 * changes things on the servers in rounds (a task added, one completed, the event moved), each round
 * followed by a slot of both users set with the CLI; once the platform is settled a chat message asks the
 * bot to complete a task, which must land on the server. Afterwards: each scheduled briefing of these
 * users is checked against the servers' state as of its slot (from its stored tool results), the
 * background syncs at the wire (a recorder in front of each server) are split into syncs with and
 * without changes, and the secrets are looked for in every log line and `/metrics` answer.
 *
 * Why a round's changes are made at 3–18 s past a minute, after every due briefing of the two users is
 * written, and its slot comes at least 40 s later: the bot syncs accounts every `calendar_minutes`
 * (0.5 here, a value a user could set) and a briefing refreshes an account older than that, so a change
 * 40 s before a slot is in that slot's briefing and never in one written before it.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { asc, eq, inArray } from "drizzle-orm";
import type { DatabaseConfig, openDatabase } from "../../db/client.ts";
import { briefingRuns, identities, messages, users } from "../../db/schema/index.ts";
import type { RecordedChatRequest, ReplyFunction } from "../servers/ollama-server.ts";
import { type Radicale, startRadicale } from "../servers/radicale.ts";
import { startTodoistServer, type TodoistJson, type TodoistServer } from "../servers/todoist-server.ts";
import { batching } from "../servers/tool-habits.ts";
import { event, todo } from "../sources/accounts/caldav/caldav-fixtures.ts";
import { startWireRecorder, type WireRecorder, type WireRequest } from "./wire-recorder.ts";

const MINUTE = 60_000;
const SLOT_ORDER = ["morning", "midday", "afternoon", "evening"] as const;
type SlotName = (typeof SLOT_ORDER)[number];
const CALDAV_USER = "soak-caldav";
const TODOIST_USER = "soak-todoist";
const DAV_LOGIN = "soakann";
/** The chat follow-up's words; the scripted model recognises them. */
const DONE_ASK = "please mark this task done:";
const LIBRARY = "Return the library books";

type OpenDb = Awaited<ReturnType<typeof openDatabase>>;
type WithDatabase = <T>(database: DatabaseConfig, work: (db: OpenDb) => Promise<T>) => Promise<T>;
type Cli = (...args: string[]) => Promise<void>;

/** The scripted model: the briefing's two calls then the prose; a chat ask: find the task, complete it. */
export function soakModel(prose: string): ReplyFunction {
  const briefing = batching(
    [
      { name: "list_tasks", arguments: { filter: "due_today" } },
      { name: "list_events", arguments: { range: "today" } },
    ],
    prose,
  );
  return (context) => {
    const { request } = context;
    const asked = lastUserText(request);
    const title = asked.includes(DONE_ASK)
      ? asked.slice(asked.indexOf(DONE_ASK) + DONE_ASK.length).trim()
      : "";
    if (!title) return briefing(context);
    if (!request.tools?.length) return { content: "Done." };
    const after = request.messages.slice(lastUserIndex(request) + 1);
    const results = after.filter((message) => message.role === "tool");
    const completed = results.some((message) => message.tool_name === "complete_task");
    if (completed) return { content: "Done." };
    const listed = results.filter((message) => message.tool_name === "list_tasks").at(-1);
    if (!listed) return { toolCalls: [{ name: "list_tasks", arguments: { filter: "open" } }] };
    const tasks = (JSON.parse(String(listed.content)) as { tasks?: Array<{ id: number; title: string }> })
      .tasks;
    const found = tasks?.find((task) => task.title === title);
    if (!found) return { content: "I found no such task." };
    return { toolCalls: [{ name: "complete_task", arguments: { id: found.id } }] };
  };
}

const lastUserIndex = (request: RecordedChatRequest) =>
  request.messages.map((message) => message.role).lastIndexOf("user");
const lastUserText = (request: RecordedChatRequest) => {
  const content = request.messages[lastUserIndex(request)]?.content;
  return typeof content === "string" ? content : "";
};

/** What a briefing of the user should show: open tasks due today by title, and the event's start. */
interface ServerState {
  open: Set<string>;
  eventStart?: string;
}

/** A change by the other client or by the bot's own write, with when it was on the server. */
interface Change {
  user: "caldav" | "todoist";
  what: string;
  /** From when the change may be in flight until it is certainly on the server. */
  from: number;
  until: number;
  apply: (state: ServerState) => void;
}

export interface SyncFigures {
  /** Syncs seen at the wire (one sync-collection REPORT per collection, or one Todoist read sync). */
  syncs: number;
  /** Those with nothing changed on the server since the sync before (and no write near). */
  quietSyncs: number;
  /** Requests of each quiet sync, distinct values. */
  requestsPerQuietSync: number[];
  /** Objects the quiet syncs fetched, all together (0 expected). */
  objectsInQuietSyncs: number;
  /** Objects every sync fetched, all together. */
  objectsFetched: number;
  collections: number;
}

export interface AccountsResult {
  /** Scheduled slots of the two account users that fell due. */
  slots: number;
  briefings: { correct: number; total: number; wrong: string[] };
  /** Chat asks that completed an account task, and whether the server holds it completed. */
  writeThroughs: { asked: number; onServer: number; failures: string[] };
  caldav: SyncFigures;
  todoist: SyncFigures;
  /** Where a password, token or the secret key appeared (log lines, CLI output, /metrics). */
  secretsSeen: string[];
  timeline: string[];
}

export interface AccountsSoakOptions {
  withDatabase: WithDatabase;
  database: DatabaseConfig;
  scratch: string;
  cli: Cli;
  platform: "telegram" | "slack";
  /** The two users' platform accounts (made known to the platform by the caller). */
  platformAccounts: { caldav: string; todoist: string };
  userSays: (account: string, text: string) => Promise<void>;
  say: (line: string) => void;
}

export interface AccountsSoak {
  /** What the bot's environment and config file need: the key, loopback servers, the sync interval. */
  env: Record<string, string>;
  config: Record<string, unknown>;
  secrets: string[];
  /** Before the first start: users, links, server contents, the accounts added with the CLI. */
  prepare(): Promise<void>;
  /**
   * Rounds of changes while the bot runs, until no round fits before `roundsUntil` (one always runs);
   * the chat ask once `settled` has resolved. Resolves when the last slot is set.
   */
  client(roundsUntil: number, settled: Promise<void>): Promise<void>;
  /** The latest slot minute set (for the run's "due" window). */
  lastSlotMinute(): number;
  result(logs: string[], metricsLeaks: string[]): Promise<AccountsResult>;
  /** Every request the recorders saw, as JSON lines (SOAK_KEEP_LOGS keeps them). */
  wireLog(): string;
  close(): Promise<void>;
}

export async function startAccountsSoak(options: AccountsSoakOptions): Promise<AccountsSoak> {
  const { withDatabase, database, cli } = options;
  const password = `soak-dav-${randomBytes(9).toString("hex")}`;
  const key = randomBytes(32).toString("base64");
  const radicale: Radicale = await startRadicale({ users: { [DAV_LOGIN]: password } });
  const todoist: TodoistServer = await startTodoistServer({
    token: `soak-todoist-${randomBytes(12).toString("hex")}`,
  });
  const davWire: WireRecorder = await startWireRecorder(radicale.directUrl, "caldav");
  const todoistWire: WireRecorder = await startWireRecorder(todoist.url, "todoist");
  const timeline: string[] = [];
  const note = (line: string) => {
    timeline.push(`${new Date().toISOString().slice(11, 19)} ${line}`);
    options.say(`accounts: ${line}`);
  };

  const today = new Date().toISOString().slice(0, 10);
  const compact = today.replaceAll("-", "");
  const initial = (): ServerState => ({
    open: new Set(["Pay the electricity bill", "Renew the passport", LIBRARY]),
    eventStart: "20:00",
  });
  const changes: Change[] = [];
  const slotMinutes = new Map<SlotName, number>();
  const projectId = todoist.addProject("Soak");
  const todoistIds = new Map<string, string>();
  const chats: { asked: number; onServer: number; failures: string[] } = {
    asked: 0,
    onServer: 0,
    failures: [],
  };

  const dueToday = () => ({
    date: today,
    datetime: null,
    timezone: null,
    string: today,
    lang: "en",
    is_recurring: false,
  });
  const davTask = (uid: string, title: string, done = false) =>
    radicale.put(
      DAV_LOGIN,
      "tasks",
      `${uid}.ics`,
      todo(uid, title, [
        `DUE;VALUE=DATE:${compact}`,
        ...(done ? ["STATUS:COMPLETED", `COMPLETED:${compact}T120000Z`] : ["STATUS:NEEDS-ACTION"]),
      ]),
    );
  const moveDentist = (start: string) => {
    const [hours, minutes] = start.split(":").map(Number) as [number, number];
    const end = hours * 60 + minutes + 30;
    const stamp = (total: number) =>
      `${compact}T${String(Math.floor(total / 60)).padStart(2, "0")}${String(total % 60).padStart(2, "0")}00Z`;
    return radicale.put(
      DAV_LOGIN,
      "calendar",
      "dentist.ics",
      event("dentist", "Dentist", stamp(hours * 60 + minutes), stamp(end)),
    );
  };
  const addTodoist = (title: string) => {
    const made = todoist.addTask(projectId, { content: title, due: dueToday() } as TodoistJson);
    todoistIds.set(title, String(made.id));
  };

  /** Each round: what the other client does on both servers. */
  const rounds: Array<{
    caldav: () => Promise<unknown>;
    todoist: () => void;
    what: string;
    apply: (state: ServerState, user: "caldav" | "todoist") => void;
  }> = [
    {
      what: 'added "Call the plumber", completed "Renew the passport", Dentist 20:00 → 21:15',
      caldav: async () => {
        await davTask("plumber", "Call the plumber");
        await davTask("passport", "Renew the passport", true);
        await moveDentist("21:15");
      },
      todoist: () => {
        addTodoist("Call the plumber");
        todoist.completeTask(todoistIds.get("Renew the passport") ?? "");
      },
      apply: (state, user) => {
        state.open.add("Call the plumber");
        state.open.delete("Renew the passport");
        if (user === "caldav") state.eventStart = "21:15";
      },
    },
    {
      what: 'added "Water the plants", Dentist → 19:30',
      caldav: async () => {
        await davTask("plants", "Water the plants");
        await moveDentist("19:30");
      },
      todoist: () => addTodoist("Water the plants"),
      apply: (state, user) => {
        state.open.add("Water the plants");
        if (user === "caldav") state.eventStart = "19:30";
      },
    },
    {
      what: 'completed "Pay the electricity bill", Dentist → 20:45',
      caldav: async () => {
        await davTask("electricity", "Pay the electricity bill", true);
        await moveDentist("20:45");
      },
      todoist: () => todoist.completeTask(todoistIds.get("Pay the electricity bill") ?? ""),
      apply: (state, user) => {
        state.open.delete("Pay the electricity bill");
        if (user === "caldav") state.eventStart = "20:45";
      },
    },
  ];

  const userIds = async () =>
    withDatabase(database, async ({ db }) => {
      const rows = await db
        .select({ id: users.id, name: users.name, slots: users.slots })
        .from(users)
        .where(inArray(users.name, [CALDAV_USER, TODOIST_USER]));
      return rows;
    });

  /** Every slot of the two users due by now has a briefing written (or is past writing). */
  // Polled through restarts and the kill: a query that finds no database answers "not yet".
  const dueWritten = async () =>
    withDatabase(database, async ({ db }) => {
      const owners = await db
        .select({ id: users.id, name: users.name })
        .from(users)
        .where(inArray(users.name, [CALDAV_USER, TODOIST_USER]));
      const runs = await db
        .select({
          userId: briefingRuns.userId,
          slot: briefingRuns.slot,
          state: briefingRuns.state,
          trigger: briefingRuns.trigger,
        })
        .from(briefingRuns)
        .where(
          inArray(
            briefingRuns.userId,
            owners.map((owner) => owner.id),
          ),
        );
      const now = Date.now();
      for (const [slot, minute] of slotMinutes) {
        if (minute > now) return false;
        for (const owner of owners) {
          const run = runs.find(
            (entry) => entry.userId === owner.id && entry.slot === slot && entry.trigger === "schedule",
          );
          if (!run || run.state === "claimed" || run.state === "generating") return false;
        }
      }
      return true;
    }).catch(() => false);

  const setSlot = async (slot: SlotName, minute: number) => {
    slotMinutes.set(slot, minute);
    await Promise.all(
      [CALDAV_USER, TODOIST_USER].map((name) =>
        cli("user", "set", name, "--slot", `${slot}=${hhmm(minute)}`),
      ),
    );
    note(`${slot} of both users at ${hhmm(minute)}`);
  };

  /** The chat ask, and a wait until both servers hold the task completed. */
  const chatDone = async () => {
    const from = Date.now();
    chats.asked += 2;
    await options.userSays(options.platformAccounts.caldav, `${DONE_ASK} ${LIBRARY}`);
    await options.userSays(options.platformAccounts.todoist, `${DONE_ASK} ${LIBRARY}`);
    const deadline = Date.now() + 90_000;
    let dav = false;
    let tod = false;
    while ((!dav || !tod) && Date.now() < deadline) {
      if (!dav)
        dav = /^STATUS:COMPLETED\r?$/m.test(
          (await radicale.get(DAV_LOGIN, "tasks", "library.ics"))?.body ?? "",
        );
      if (!tod) tod = todoist.task(todoistIds.get(LIBRARY) ?? "")?.checked === true;
      if (!dav || !tod) await pause(500);
    }
    const until = Date.now();
    chats.onServer += (dav ? 1 : 0) + (tod ? 1 : 0);
    if (!dav) chats.failures.push(`CalDAV: "${LIBRARY}" not COMPLETED on Radicale 90 s after the ask`);
    if (!tod) chats.failures.push(`Todoist: "${LIBRARY}" not closed on the server 90 s after the ask`);
    for (const user of ["caldav", "todoist"] as const)
      changes.push({
        user,
        what: `chat completed "${LIBRARY}"`,
        from,
        until,
        apply: (state) => state.open.delete(LIBRARY),
      });
    note(
      `chat completion written through: CalDAV ${dav ? "COMPLETED" : "NOT"}, Todoist ${tod ? "closed" : "NOT"} (${((until - from) / 1000).toFixed(1)} s)`,
    );
  };

  return {
    env: { BRIEFBOT_SECRET_KEY: key },
    config: { sync: { calendar_minutes: 0.5 }, sources: { allow_private_networks: true } },
    secrets: [password, todoist.token, key],

    async prepare() {
      await radicale.makeCalendar(DAV_LOGIN, "tasks", { name: "Tasks", components: ["VTODO"] });
      await radicale.makeCalendar(DAV_LOGIN, "calendar", { name: "Personal", components: ["VEVENT"] });
      await davTask("electricity", "Pay the electricity bill");
      await davTask("passport", "Renew the passport");
      await davTask("library", LIBRARY);
      await moveDentist("20:00");
      for (const title of initial().open) addTodoist(title);

      const passwordFile = join(options.scratch, "dav-password");
      const tokenFile = join(options.scratch, "todoist-token");
      writeFileSync(passwordFile, `${password}\n`);
      writeFileSync(tokenFile, `${todoist.token}\n`);
      // The users as the seeded ones are (the CLI's user commands are the main soak's); their first slot
      // the next minute at least 40 s away: the first start takes its time, and a slot that falls due
      // meanwhile is written once the bot is up.
      const morning = slotAfter(40_000);
      slotMinutes.set("morning", morning);
      await withDatabase(database, async ({ db }) => {
        const created = await db
          .insert(users)
          .values(
            [CALDAV_USER, TODOIST_USER].map((name) => ({
              name,
              timeZone: "UTC",
              slots: { morning: hhmm(morning), midday: null, afternoon: null, evening: null },
              createdAt: new Date(Date.now() - 86_400_000),
            })),
          )
          .returning({ id: users.id, name: users.name });
        await db.insert(identities).values(
          created.map((user) => {
            const account =
              user.name === CALDAV_USER ? options.platformAccounts.caldav : options.platformAccounts.todoist;
            return {
              userId: user.id,
              platform: options.platform,
              externalUserId: account,
              ...(options.platform === "telegram" ? { chatId: account } : {}),
            };
          }),
        );
      });
      note(`morning of both users at ${hhmm(morning)}`);
      await cli(
        "account",
        "add",
        "caldav",
        "--user",
        CALDAV_USER,
        `${davWire.url}/`,
        "--username",
        DAV_LOGIN,
        "--password-file",
        passwordFile,
        "--label",
        "Radicale",
      );
      await cli(
        "account",
        "add",
        "todoist",
        "--user",
        TODOIST_USER,
        "--token-file",
        tokenFile,
        "--url",
        todoistWire.url,
      );
    },

    async client(roundsUntil, settled) {
      let platformSettled = false;
      void settled.then(() => {
        platformSettled = true;
      });
      let chatted = false;
      for (const [index, round] of rounds.entries()) {
        const slot = SLOT_ORDER[index + 1] as SlotName;
        if (index > 0 && Date.now() + 2 * MINUTE > roundsUntil) break;
        // A moment 3–18 s past a minute with every due briefing of the two users written.
        for (;;) {
          const second = new Date().getUTCSeconds();
          if (second >= 3 && second <= 18 && (await dueWritten())) break;
          await pause(1_000);
        }
        const from = Date.now();
        await round.caldav();
        round.todoist();
        const until = Date.now();
        for (const user of ["caldav", "todoist"] as const)
          changes.push({ user, what: round.what, from, until, apply: (state) => round.apply(state, user) });
        note(`round ${index + 1}: ${round.what}`);
        if (platformSettled && !chatted) {
          chatted = true;
          await chatDone();
        }
        await setSlot(slot, slotAfter(40_000));
      }
      if (!chatted) {
        // After the last slot is written: no later briefing to check, the servers still are.
        for (;;) {
          if (await dueWritten()) break;
          await pause(1_000);
        }
        await settled;
        await chatDone();
      }
    },

    lastSlotMinute: () => Math.max(0, ...slotMinutes.values()),

    async result(logs, metricsLeaks) {
      const owners = await userIds();
      const briefings = { correct: 0, total: 0, wrong: [] as string[] };
      let slots = 0;
      await withDatabase(database, async ({ db }) => {
        const runs = await db
          .select()
          .from(briefingRuns)
          .where(
            inArray(
              briefingRuns.userId,
              owners.map((owner) => owner.id),
            ),
          );
        for (const owner of owners) {
          const kind = owner.name === CALDAV_USER ? "caldav" : "todoist";
          for (const [slot, minute] of slotMinutes) {
            slots += 1;
            const run = runs.find(
              (entry) => entry.userId === owner.id && entry.slot === slot && entry.trigger === "schedule",
            );
            briefings.total += 1;
            if (!run) {
              briefings.wrong.push(`${owner.name} ${slot}: no run`);
              continue;
            }
            const results = await toolResults(db, run.id);
            const expected = initial();
            for (const change of changes.filter((entry) => entry.user === kind && entry.until < minute))
              change.apply(expected);
            // The calls the briefing asked for (an evening's runner also looks at tomorrow and at what
            // was completed; those are not this check's).
            const tasks = results.findLast(
              (entry) => entry.name === "list_tasks" && entry.args.filter === "due_today",
            );
            const events = results.findLast(
              (entry) => entry.name === "list_events" && entry.args.range === "today",
            );
            const shown = new Set(
              (
                (JSON.parse(tasks?.content ?? "{}") as { tasks?: Array<{ title: string; from?: string }> })
                  .tasks ?? []
              )
                .filter((task) => task.from !== undefined)
                .map((task) => task.title),
            );
            const dentist = (
              (
                JSON.parse(events?.content ?? "{}") as {
                  events?: Array<{ title: string; start?: string | null }>;
                }
              ).events ?? []
            ).find((entry) => entry.title === "Dentist")?.start;
            const problems: string[] = [];
            const want = [...expected.open].sort();
            const got = [...shown].sort();
            if (want.join("|") !== got.join("|"))
              problems.push(`tasks ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
            if (kind === "caldav" && dentist !== expected.eventStart)
              problems.push(`Dentist at ${dentist ?? "nothing"}, expected ${expected.eventStart}`);
            if (problems.length === 0) briefings.correct += 1;
            else briefings.wrong.push(`${owner.name} ${slot} (${hhmm(minute)}): ${problems.join("; ")}`);
          }
        }
      });
      const secretsSeen: string[] = [...metricsLeaks];
      for (const line of logs)
        for (const secret of [password, todoist.token, key])
          if (line.includes(secret)) secretsSeen.push(line.slice(0, 300));
      return {
        slots,
        briefings,
        writeThroughs: chats,
        caldav: syncFigures(
          davWire.requests,
          2,
          changes.filter((change) => change.user === "caldav"),
        ),
        todoist: syncFigures(
          todoistWire.requests,
          1,
          changes.filter((change) => change.user === "todoist"),
        ),
        secretsSeen,
        timeline,
      };
    },

    wireLog: () =>
      [
        ...davWire.requests.map((entry) => ({ server: "radicale", ...entry })),
        ...todoistWire.requests.map((entry) => ({ server: "todoist", ...entry })),
        ...changes.map(({ apply: _apply, ...change }) => ({ server: "change", ...change })),
      ]
        .map((entry) => JSON.stringify(entry))
        .join("\n"),

    async close() {
      await Promise.allSettled([davWire.close(), todoistWire.close(), todoist.close()]);
      await radicale.stop();
    },
  };
}

/**
 * The syncs among what the recorder saw: a sync is the read-sync requests (one per collection) and the
 * fetches that follow them; a new one starts when a collection is synced again or 10 s pass. A sync is
 * quiet when no change of the run falls between the sync before it and its end, and it wrote nothing.
 */
function syncFigures(
  requests: readonly WireRequest[],
  collections: number,
  changes: readonly Change[],
): SyncFigures {
  const groups: WireRequest[][] = [];
  let current: WireRequest[] | undefined;
  for (const request of requests) {
    const last = current?.at(-1);
    const gap = last ? request.at - last.endedAt : Number.POSITIVE_INFINITY;
    if (request.kind === "sync") {
      const again = current?.some((entry) => entry.kind === "sync" && entry.path === request.path);
      if (!current || again || gap > 10_000) {
        current = [request];
        groups.push(current);
        continue;
      }
      current.push(request);
    } else if (current && gap <= 10_000 && request.kind !== "other") current.push(request);
  }
  let quietSyncs = 0;
  let objectsInQuietSyncs = 0;
  let objectsFetched = 0;
  const perQuiet = new Set<number>();
  for (const [index, group] of groups.entries()) {
    const end = Math.max(...group.map((entry) => entry.endedAt));
    const previousStart = index === 0 ? Number.NEGATIVE_INFINITY : (groups[index - 1]?.[0]?.at ?? 0);
    const objects = group.reduce((sum, entry) => sum + entry.objects, 0);
    objectsFetched += objects;
    const changed = changes.some((change) => change.until >= previousStart && change.from <= end);
    const wrote = requests.some(
      (entry) => entry.kind === "write" && entry.endedAt >= previousStart && entry.at <= end,
    );
    if (index === 0 || changed || wrote) continue;
    quietSyncs += 1;
    objectsInQuietSyncs += objects;
    perQuiet.add(group.length);
  }
  return {
    syncs: groups.length,
    quietSyncs,
    requestsPerQuietSync: [...perQuiet].sort(),
    objectsInQuietSyncs,
    objectsFetched,
    collections,
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const hhmm = (at: number) => {
  const date = new Date(at);
  return `${String(date.getUTCHours()).padStart(2, "0")}:${String(date.getUTCMinutes()).padStart(2, "0")}`;
};

/** The first whole minute at least `leadMs` from now. */
const slotAfter = (leadMs: number) => Math.ceil((Date.now() + leadMs) / MINUTE) * MINUTE;

/** A run's tool results with the call each answered (by call id, or in order where the model gave none). */
async function toolResults(
  db: OpenDb["db"],
  runId: number,
): Promise<Array<{ name: string; args: Record<string, unknown>; content: string }>> {
  const rows = await db.select().from(messages).where(eq(messages.runId, runId)).orderBy(asc(messages.id));
  const pending: Array<{ id?: string | undefined; name: string; args: Record<string, unknown> }> = [];
  const answered: Array<{ name: string; args: Record<string, unknown>; content: string }> = [];
  for (const row of rows) {
    if (row.role === "assistant")
      for (const call of row.toolCalls ?? [])
        pending.push({ id: call.id, name: call.function.name, args: call.function.arguments });
    if (row.role !== "tool") continue;
    const index = pending.findIndex((call) =>
      row.toolCallId && call.id ? call.id === row.toolCallId : call.name === row.toolName,
    );
    const [call] = index >= 0 ? pending.splice(index, 1) : [];
    answered.push({ name: row.toolName ?? call?.name ?? "", args: call?.args ?? {}, content: row.content });
  }
  return answered;
}
