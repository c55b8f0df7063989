/**
 * The enum value lists are written once, in the core (src/core/domain.ts), and the schema's pgEnums take
 * them from there. What can still drift is the migrated database: a list changed without a migration. This
 * reads the enums the committed migrations created and holds them against the core's lists.
 */
import { sql } from "drizzle-orm";
import { isPgEnum } from "drizzle-orm/pg-core";
import { expect, it } from "vitest";
import * as enums from "../../db/schema/enums.ts";
import { users } from "../../db/schema/index.ts";
import { DEFAULT_SLOT_TIMES, RUN_STATES, SLOT_NAMES } from "../../src/core/domain.ts";
import { describeEachDatabase } from "../helpers/database.ts";

const schemaEnums: { enumName: string; enumValues: readonly string[] }[] = Object.values(enums).filter(
  (value) => isPgEnum(value),
);

describeEachDatabase("the migrated database's enums are the core's value lists", (getDb) => {
  it("holds every enum of the schema with the same values in the same order", async () => {
    const result = await getDb().execute(sql`
      select t.typname as name, e.enumlabel as label
      from pg_type t join pg_enum e on e.enumtypid = t.oid
      order by t.typname, e.enumsortorder`);
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
      name: string;
      label: string;
    }[];
    const migrated = new Map<string, string[]>();
    for (const row of rows) migrated.set(row.name, [...(migrated.get(row.name) ?? []), row.label]);

    expect(schemaEnums.length).toBeGreaterThanOrEqual(16);
    for (const pgEnum of schemaEnums) {
      expect({ name: pgEnum.enumName, values: migrated.get(pgEnum.enumName) }).toEqual({
        name: pgEnum.enumName,
        values: [...pgEnum.enumValues],
      });
    }
    expect(migrated.get("run_state")).toEqual([...RUN_STATES]);
    expect(migrated.get("slot_name")).toEqual([...SLOT_NAMES]);
  });

  it("gives a new user the core's default slot times", async () => {
    const [user] = await getDb()
      .insert(users)
      .values({ name: `enums_${Date.now()}`, timeZone: "UTC" })
      .returning();
    expect(user?.slots).toEqual(DEFAULT_SLOT_TIMES);
  });
});
