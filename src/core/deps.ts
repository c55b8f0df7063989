/** What the briefing runner, chat and confirmations share; `composeCore` builds it once. */
import type { Clock } from "./clock.ts";
import type { AssistantConfig } from "./config.ts";
import type { Ids } from "./ids.ts";
import type { Logger } from "./logger.ts";
import type { ModelClient } from "./model.ts";
import type { Ports } from "./ports.ts";
import type { PromptEstimator } from "./tools/prompt-budget.ts";
import type { ToolRegistry } from "./tools/registry.ts";

export interface CoreDeps {
  ports: Ports;
  model: ModelClient;
  clock: Clock;
  /** Call ids of runner-made tool calls. */
  ids: Ids;
  tools: ToolRegistry;
  config: AssistantConfig;
  logger: Logger;
  /** Monotonic milliseconds, for timings only. */
  timer: () => number;
  /** This process, as the owner of the runs it claims or creates (`BriefingRun.claimedBy`). */
  owner: string;
  /** The model layer's prompt-size estimate: with it, every request is kept inside its prompt budget. */
  estimatePromptTokens?: PromptEstimator | undefined;
}
