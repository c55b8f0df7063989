/**
 * The one composition function: ports, a model, a clock (and optionally ids, a tool registry and the
 * check-in hook) in; the `Assistant` facade and the scheduler's briefing generator out. The app, the CLI,
 * the bench and the tests all build the core here.
 */

import type { AccountService } from "./accounts/service.ts";
import { writeThroughRecords } from "./accounts/write-through.ts";
import type { Assistant, BriefingOutcome } from "./assistant.ts";
import { createAssistant } from "./assistant-service.ts";
import { runBriefing } from "./briefing/run-briefing.ts";
import type { Clock } from "./clock.ts";
import { type AssistantConfig, resolveConfig } from "./config.ts";
import type { CoreDeps } from "./deps.ts";
import type { SlotName, User } from "./domain.ts";
import type { BriefingObserver } from "./events.ts";
import type { Geocoder } from "./geocoder.ts";
import { type Ids, sequentialIds } from "./ids.ts";
import { createLinking, type Linking } from "./linking/linking.ts";
import type { Logger } from "./logger.ts";
import type { ModelClient } from "./model.ts";
import type { Ports } from "./ports.ts";
import { createSettings, type Settings } from "./settings/index.ts";
import { createDefaultToolRegistry } from "./tools/catalog.ts";
import type { PromptEstimator } from "./tools/prompt-budget.ts";
import type { ToolRegistry } from "./tools/registry.ts";
import { createUserDataService, type UserDataService } from "./user-data/service.ts";

export interface CoreOptions {
  ports: Ports;
  model: ModelClient;
  clock: Clock;
  /** Call ids of runner-made tool calls. Default: `runner_1`, `runner_2`, … per process. */
  ids?: Ids | undefined;
  /** Default: every tool the product has. */
  tools?: ToolRegistry | undefined;
  config: Partial<AssistantConfig>;
  logger: Logger;
  /** This process, as the owner of the runs it works on. Default: one name for the whole process. */
  owner?: string | undefined;
  /** Monotonic milliseconds for timings. Default `performance.now`. */
  timer?: (() => number) | undefined;
  /** `/start` without a code creates a user (`--allow-self-signup`). Default false. */
  selfSignup?: boolean | undefined;
  /** Place names → places, for /settings; without it a place cannot be changed in chat. */
  geocoder?: Geocoder | undefined;
  /**
   * CalDAV and Todoist accounts: with it, a change to an account's task (in a tool, a confirmation or an
   * Undo) is written to the server first. Without it, account tasks are read-only mirrors like any row.
   */
  accounts?: AccountService | undefined;
  /**
   * The model layer's estimate of a prompt's tokens. With it, each request's long lists are cut to fit a
   * share of the route's num_ctx (`config.contextTokens`); without it, only at their usual limits.
   */
  estimatePromptTokens?: PromptEstimator | undefined;
}

/** A run the scheduler claimed, to generate now. */
export interface BriefingRequest {
  user: User;
  slot: SlotName;
  runId: number;
  onEvent?: BriefingObserver | undefined;
}

export interface Core {
  assistant: Assistant;
  /** Generates a claimed scheduled run: claimed → generating → generated (or failed). */
  generateBriefing(request: BriefingRequest): Promise<BriefingOutcome>;
  /** One-time link codes: issuing them and redeeming them for platform accounts. */
  linking: Linking;
  /** Export and forget (the CLI and the chat adapters). */
  userData: UserDataService;
  /** /settings: the user's zone, place, slots and mode, shown and changed. */
  settings: Settings;
}

export function composeCore(options: CoreOptions): Core {
  const ports: Ports = options.accounts
    ? {
        ...options.ports,
        records: writeThroughRecords(options.ports.records, options.accounts, options.ports.users),
      }
    : options.ports;
  const deps: CoreDeps = {
    ports,
    model: options.model,
    clock: options.clock,
    ids: options.ids ?? sequentialIds("runner"),
    tools: options.tools ?? createDefaultToolRegistry(),
    config: resolveConfig(options.config),
    logger: options.logger,
    timer: options.timer ?? (() => performance.now()),
    owner: options.owner ?? "briefbot",
    estimatePromptTokens: options.estimatePromptTokens,
  };
  return {
    assistant: createAssistant(deps),
    generateBriefing: (request) => runBriefing(deps, request),
    linking: createLinking({
      invites: options.ports.invites,
      platformState: options.ports.platformState,
      clock: options.clock,
      selfSignup: options.selfSignup,
    }),
    userData: createUserDataService(options.ports.userData, options.ports.forgetQuestions, options.clock, {
      ids: deps.ids,
    }),
    settings: createSettings({
      users: deps.ports.users,
      runs: deps.ports.runs,
      clock: deps.clock,
      geocoder: options.geocoder,
      staleAfterMinutes: deps.config.staleAfterMinutes,
    }),
  };
}
