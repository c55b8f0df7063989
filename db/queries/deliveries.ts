/** Counts of the delivery outbox for `/metrics`; its rows change only in `run-lifecycle.ts`. */
import { sql } from "drizzle-orm";
import type { DeliveryPlatform } from "../../src/core/domain.ts";
import type { Database } from "../client.ts";
import { deliveries } from "../schema/index.ts";

export type { DeliveryPlatform };

export interface DeliveryTarget {
  platform: DeliveryPlatform;
  target: string;
}

export async function countDeliveriesByState(
  db: Database,
): Promise<Array<{ platform: string; state: string; count: number }>> {
  const rows = await db
    .select({ platform: deliveries.platform, state: deliveries.state, count: sql<number>`count(*)::int` })
    .from(deliveries)
    .groupBy(deliveries.platform, deliveries.state);
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}
