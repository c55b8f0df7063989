/** The `Leases` port in memory: one holder per name until its TTL runs out on the caller's clock. */
import type { Leases } from "../../../src/core/ports.ts";
import type { MemoryTables } from "./tables.ts";

export function createMemoryLeases(tables: MemoryTables): Leases {
  return {
    async acquire(name, holder, ttlMs, at) {
      const current = tables.leases.get(name);
      if (current && current.holder !== holder && current.expiresAt > at) return false;
      tables.leases.set(name, {
        name,
        holder,
        acquiredAt: current && current.holder === holder ? current.acquiredAt : at,
        expiresAt: new Date(at.getTime() + ttlMs),
      });
      return true;
    },
    async release(name, holder) {
      if (tables.leases.get(name)?.holder === holder) tables.leases.delete(name);
    },
    holder: async (name, at) => {
      const current = tables.leases.get(name);
      return current && current.expiresAt > at ? current.holder : undefined;
    },
    async voidOthers(holder) {
      let voided = 0;
      for (const [name, lease] of tables.leases) {
        if (lease.holder !== holder) {
          tables.leases.delete(name);
          voided += 1;
        }
      }
      return voided;
    },
  };
}

/**
 * Whether the process that `owner` names is gone at `at`: every process renews `process:<id>` while it
 * lives (src/runtime/process-lease.ts), and `everyOtherOwner` (the embedded database) counts any owner but
 * `self` as gone. `self` is never gone, even with its lease lapsed: it is the one asking.
 */
export function ownerIsGone(
  tables: MemoryTables,
  owner: string | null,
  self: string,
  at: Date,
  everyOtherOwner: boolean,
): boolean {
  if (everyOtherOwner) return owner !== self;
  if (owner === null) return true;
  if (owner === self) return false;
  const lease = tables.leases.get(`process:${owner}`);
  return !(lease && lease.expiresAt > at);
}
