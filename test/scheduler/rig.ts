/**
 * A scheduler "process" for tests: the real runner (`composeCore`'s generator) over the Ollama test server, the real
 * outbox, and a recording platform sender (a stand-in for Telegram/Slack, not for our code), all under one
 * owner name whose process lease the rig holds. Several rigs can share one database to play replicas or a
 * restarted process; `die()` drops a rig's lease, as a killed process's lapses.
 */
import type { Database } from "../../db/client.ts";
import { linkIdentity } from "../../db/queries/users.ts";
import type { NewUser, User } from "../../db/schema/index.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import { resolveModelRoutes } from "../../src/config/model-routes.ts";
import { type BriefingMessage, DeliveryError, type PlatformSender } from "../../src/core/assistant.ts";
import type { Clock } from "../../src/core/clock.ts";
import type { ModelClient } from "../../src/core/model.ts";
import { createOutbox, type Outbox, type OutboxOptions } from "../../src/delivery/outbox.ts";
import { createModelClient } from "../../src/models/router.ts";
import {
  type BriefingGenerator,
  createScheduler,
  type Scheduler,
  type SchedulerOptions,
} from "../../src/scheduler/scheduler.ts";
import { testCore } from "../core/fixture.ts";
import { createTestUser } from "../helpers/database.ts";
import type { TestStore } from "../helpers/test-store.ts";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";

export const MODEL = "qwen2.5:7b";

export function startModel(): Promise<OllamaTestServer> {
  return startOllamaServer({ models: { [MODEL]: {} }, latency: { timeToFirstTokenMs: 0, perTokenMs: 0 } });
}

export function modelFor(server: OllamaTestServer) {
  return createModelClient({
    routes: resolveModelRoutes(undefined, { ollamaHost: server.url, model: MODEL }),
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  });
}

let rigCounter = 0;

/** A fresh process name. */
export function nextOwner(): string {
  rigCounter += 1;
  return `rig-${process.pid}-${rigCounter}`;
}

/** The production wiring of the runner, counting calls. */
export function realRunner(
  db: TestStore,
  model: ModelClient,
  clock: Clock,
  owner: string,
): BriefingGenerator & { calls: number[] } {
  const { generateBriefing } = testCore(db, model, { clock, owner });
  const calls: number[] = [];
  const runner = async (request: Parameters<BriefingGenerator>[0]) => {
    calls.push(request.runId);
    return generateBriefing(request);
  };
  return Object.assign(runner, { calls });
}

export type SendBehaviour =
  | { kind: "ok" }
  | { kind: "fail"; error: Error }
  /** Records the post as done on the "platform", then never answers: the process dies mid-call. */
  | { kind: "post-then-hang" };

export interface RecordingSender extends PlatformSender {
  /** Every call, including ones that failed. */
  calls: Array<{ target: string; runId: number }>;
  /** What actually reached the "platform". */
  posted: Array<{ target: string; message: BriefingMessage; messageId: string }>;
  /** Behaviours for the next calls, in order; afterwards every call succeeds. */
  plan: SendBehaviour[];
}

let messageCounter = 1000;

export function recordingSender(platform: "telegram" | "slack" = "telegram"): RecordingSender {
  const sender: RecordingSender = {
    platform,
    calls: [],
    posted: [],
    plan: [],
    async deliver({ recipient, message, begin }) {
      if (!(await begin())) return undefined;
      const target = recipient.chatId ?? recipient.externalUserId;
      sender.calls.push({ target, runId: message.runId });
      const behaviour = sender.plan.shift() ?? { kind: "ok" };
      if (behaviour.kind === "fail") throw behaviour.error;
      messageCounter += 1;
      const messageId = String(messageCounter);
      sender.posted.push({ target, message, messageId });
      if (behaviour.kind === "post-then-hang") return new Promise<never>(() => {});
      return { platformMessageId: messageId, target };
    },
  };
  return sender;
}

export const transient = (retryAfterMs?: number) =>
  new DeliveryError("Too Many Requests: retry after 1", false, retryAfterMs);
export const permanent = () => new DeliveryError("Forbidden: bot was blocked by the user", true);

export interface Rig {
  owner: string;
  scheduler: Scheduler;
  worker: Outbox;
  runner: BriefingGenerator & { calls: number[] };
  sender: RecordingSender;
  /** The process dies: its lease goes, so what it owned is another process's to reclaim. */
  die(): Promise<void>;
}

/** Long enough that no test's clock outruns it: a rig's lease ends only when it dies. */
const RIG_LEASE_MS = 365 * 86_400_000;

/** One scheduler process. The recording sender does not pace (tests are not about the platform limits). */
export async function startRig(
  db: Database,
  clock: Clock,
  model: ModelClient,
  options: {
    owner?: string;
    runner?: BriefingGenerator & { calls: number[] };
    sender?: RecordingSender;
    senders?: PlatformSender[];
    worker?: Partial<OutboxOptions>;
    scheduler?: Partial<SchedulerOptions>;
  } = {},
): Promise<Rig> {
  const owner = options.owner ?? nextOwner();
  const ports = createDbPorts(db);
  await ports.leases.acquire(`process:${owner}`, owner, RIG_LEASE_MS, clock.now());
  const sender = options.sender ?? recordingSender();
  const senders = options.senders ?? [sender];
  const worker = createOutbox({ ports, clock, owner, senders, ...options.worker });
  const runner = options.runner ?? realRunner(db, model, clock, owner);
  const scheduler = createScheduler({ ports, clock, owner, runner, deliver: worker, ...options.scheduler });
  return {
    owner,
    scheduler,
    worker,
    runner,
    sender,
    die: () => ports.leases.release(`process:${owner}`, owner),
  };
}

let chatCounter = 5_000_000 + Math.floor(Math.random() * 1_000_000);

/** A user in `timeZone`, created long ago (so past slots count as missed), linked to a Telegram chat. */
export async function telegramUser(
  db: Database,
  overrides: Partial<NewUser> = {},
  options: { link?: boolean } = {},
): Promise<{ user: User; chatId: string }> {
  const user = await createTestUser(db, {
    timeZone: "Europe/London",
    createdAt: new Date("2024-01-01T00:00:00Z"),
    ...overrides,
  });
  chatCounter += 1;
  const chatId = String(chatCounter);
  if (options.link !== false) {
    await linkIdentity(db, user.id, { platform: "telegram", externalUserId: chatId, chatId });
  }
  return { user, chatId };
}

/** Polls until `probe` returns something (for work that runs detached, e.g. a frozen process). */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
