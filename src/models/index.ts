export { DEFAULT_RETRY, type RetryPolicy, type Sleep } from "./backoff.ts";
export type { Utilisation } from "./busy-meter.ts";
export {
  agenticProblem,
  capabilitiesFromShow,
  type ModelCapabilities,
  parseParameterSize,
  SMALLEST_AGENTIC_PARAMETERS,
} from "./capabilities.ts";
export {
  EndpointPool,
  type EndpointStats,
  type Lease,
  type LeaseRequest,
  type WaitTotals,
} from "./endpoint-pool.ts";
export type { EndpointInspection, LoadedModel, ModelsInspection, RouteInspection } from "./inspect.ts";
export { estimatePromptTokens, looksTruncated } from "./prompt-size.ts";
export {
  createModelClient,
  type ModelClientOptions,
  type ModelEvent,
  type ModelLogger,
  type ModelRouter,
} from "./router.ts";
export { recoverToolCalls } from "./tool-call-recovery.ts";
