/** The assistant's settings; the composition root fills them from the configuration. */
export interface AssistantConfig {
  /** Receipts older than this may be refreshed by read-only tools in follow-ups. Default 60. */
  receiptMaxAgeMinutes: number;
  /** Runs older than this are rolled up out of every context. Default 7. */
  retentionDays: number;
  /** How long a destructive call waits for Confirm. Default 10. */
  confirmationMinutes: number;
  /** How long a briefing waits for its stale sources before going ahead on the last good data. Default 5. */
  refreshDeadlineSeconds: number;
  /** A briefing's whole budget: model turns, tool calls, corrections. Past it, the digest. Default 600. */
  runDeadlineSeconds: number;
  /** A chat answer's whole budget; past it, an apology. Default 180. */
  chatDeadlineSeconds: number;
  /** How long the Undo button under a change made in chat works. Default 1440 (a day). */
  undoMinutes: number;
  /** Minutes after a slot's time during which the scheduler still runs it late (as /settings reports). Default 90. */
  staleAfterMinutes: number;
  /**
   * The `num_ctx` each route's model runs with (the composition root copies the model routes'), which the
   * prompt budget is a share of. Default 8192, the routes' own default.
   */
  contextTokens: { briefing: number; interactive: number };
}

export const DEFAULT_ASSISTANT_CONFIG: AssistantConfig = {
  receiptMaxAgeMinutes: 60,
  retentionDays: 7,
  confirmationMinutes: 10,
  refreshDeadlineSeconds: 5,
  runDeadlineSeconds: 600,
  chatDeadlineSeconds: 180,
  undoMinutes: 24 * 60,
  staleAfterMinutes: 90,
  contextTokens: { briefing: 8192, interactive: 8192 },
};

export function resolveConfig(config: Partial<AssistantConfig> | undefined): AssistantConfig {
  return { ...DEFAULT_ASSISTANT_CONFIG, ...config };
}
