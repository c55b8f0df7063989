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
}

export const DEFAULT_ASSISTANT_CONFIG: AssistantConfig = {
  receiptMaxAgeMinutes: 60,
  retentionDays: 7,
  confirmationMinutes: 10,
  refreshDeadlineSeconds: 5,
};

export function resolveConfig(config: Partial<AssistantConfig> | undefined): AssistantConfig {
  return { ...DEFAULT_ASSISTANT_CONFIG, ...config };
}
