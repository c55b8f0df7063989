/**
 * The core's ports in memory, over one set of tables: what the core's unit tests compose the core with, in
 * milliseconds and without a database. `test/contracts/` holds them to the same rules as `db/stores`.
 */
import type { Ports } from "../../../src/core/ports.ts";
import { createMemoryForgetQuestions } from "../../../src/core/user-data/forget-flow.ts";
import { createMemoryAccounts } from "./accounts.ts";
import { createMemoryConfirmations } from "./confirmations.ts";
import { createMemoryConversations } from "./conversations.ts";
import { createMemoryChatEvents } from "./events.ts";
import { createMemoryInboundUpdates } from "./inbound-updates.ts";
import { createMemoryInvites } from "./invites.ts";
import { createMemoryLeases } from "./leases.ts";
import { createMemoryPlatformState } from "./platform-state.ts";
import { createMemoryProjectsAndNotes } from "./projects-and-notes.ts";
import { createMemoryReceiptLog } from "./receipts.ts";
import { createMemoryRunLifecycle } from "./run-lifecycle.ts";
import { createMemoryRunQueue } from "./run-queue.ts";
import { createMemoryRunStore } from "./run-store.ts";
import { createMemorySources } from "./sources.ts";
import { createMemoryTables, type MemoryTables } from "./tables.ts";
import { createMemoryTasks } from "./tasks.ts";
import { createMemoryUserData } from "./user-data.ts";
import { createMemoryUsers } from "./users.ts";

export function createMemoryPorts(tables: MemoryTables = createMemoryTables()): Ports {
  return {
    users: createMemoryUsers(tables),
    runs: createMemoryRunStore(tables),
    lifecycle: createMemoryRunLifecycle(tables),
    runQueue: createMemoryRunQueue(tables),
    leases: createMemoryLeases(tables),
    receipts: createMemoryReceiptLog(tables),
    conversations: createMemoryConversations(tables),
    records: {
      ...createMemoryTasks(tables),
      ...createMemoryProjectsAndNotes(tables),
      ...createMemoryChatEvents(tables),
    },
    confirmations: createMemoryConfirmations(tables),
    sources: createMemorySources(tables),
    platformState: createMemoryPlatformState(tables),
    inboundUpdates: createMemoryInboundUpdates(tables),
    invites: createMemoryInvites(tables),
    forgetQuestions: createMemoryForgetQuestions(),
    userData: createMemoryUserData(tables),
    accounts: createMemoryAccounts(tables),
  };
}

export { createMemoryTables, type MemoryTables } from "./tables.ts";
