/**
 * The core's ports over one database. The stores speak the core's domain types (db/ may read only its
 * vocabulary, domain.ts and errors.ts), and the composition root assigns `createDbPorts(db)` to `Ports`, so
 * the compiler checks the fit.
 */
import type { Database } from "../client.ts";
import { createAccounts } from "./accounts.ts";
import { createConfirmations } from "./confirmations.ts";
import { createConversations } from "./conversations.ts";
import { createForgetQuestions } from "./forget-questions.ts";
import { createInboundUpdates } from "./inbound-updates.ts";
import { createInvites } from "./invites.ts";
import { createPlatformState } from "./platform-state.ts";
import { createReceiptLog } from "./receipts.ts";
import { createRecords } from "./records.ts";
import { createLeases, createRunLifecycle, createRunQueue } from "./run-lifecycle.ts";
import { createRunStore } from "./runs.ts";
import { createSources } from "./sources.ts";
import { createUserData } from "./user-data.ts";
import { createUsers } from "./users.ts";

export function createDbPorts(db: Database) {
  return {
    users: createUsers(db),
    runs: createRunStore(db),
    lifecycle: createRunLifecycle(db),
    runQueue: createRunQueue(db),
    leases: createLeases(db),
    receipts: createReceiptLog(db),
    conversations: createConversations(db),
    records: createRecords(db),
    confirmations: createConfirmations(db),
    sources: createSources(db),
    platformState: createPlatformState(db),
    inboundUpdates: createInboundUpdates(db),
    invites: createInvites(db),
    userData: createUserData(db),
    forgetQuestions: createForgetQuestions(db),
    accounts: createAccounts(db),
  };
}

export { createAccounts } from "./accounts.ts";
export { createConfirmations } from "./confirmations.ts";
export { createConversations } from "./conversations.ts";
export { createForgetQuestions } from "./forget-questions.ts";
export { createInboundUpdates } from "./inbound-updates.ts";
export { createInvites } from "./invites.ts";
export { createMetricsReadings } from "./metrics.ts";
export { createPlatformState } from "./platform-state.ts";
export { createRateBuckets } from "./rate-buckets.ts";
export { createReceiptLog } from "./receipts.ts";
export { createRecords } from "./records.ts";
export { createLeases, createRunLifecycle, createRunQueue } from "./run-lifecycle.ts";
export { createRunStore } from "./runs.ts";
export { createSources } from "./sources.ts";
export { createUserData } from "./user-data.ts";
export { createUsers } from "./users.ts";
