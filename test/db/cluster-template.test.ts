/**
 * `npm run build` makes the empty cluster a new embedded folder starts from (db/embedded/cluster-template.ts),
 * and the compiled program unpacks it instead of running initdb. initdb gives every cluster a system
 * identifier of its own; a folder unpacked from the dump has the dump's. So two new folders that share the
 * dump's identifier were made from it, and the data written through the CLI shows they work.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../../bin/build.js";
import { clusterTemplatePath } from "../../db/embedded/cluster-template.ts";
import { realBriefbot } from "../helpers/real-briefbot.ts";

const scratch = mkdtempSync(join(tmpdir(), "briefbot-cluster-template-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function systemIdentifier(client: PGlite): Promise<string> {
  try {
    const { rows } = await client.query<{ id: string }>(
      "select system_identifier::text as id from pg_control_system()",
    );
    return rows[0]?.id ?? "";
  } finally {
    await client.close();
  }
}

describe("a new embedded folder", { timeout: 240_000 }, () => {
  it("starts from the cluster the build made, not from initdb, and works", async () => {
    const template = clusterTemplatePath(join(root, "dist", "db"));
    expect(existsSync(template)).toBe(true);
    const made = await systemIdentifier(
      await PGlite.create({ loadDataDir: new Blob([readFileSync(template)]) }),
    );
    expect(made).toMatch(/^\d+$/);

    for (const name of ["first", "second"]) {
      const folder = join(scratch, name);
      const briefbot = realBriefbot(folder);
      const added = await briefbot.command("user", "add", "ann", "--tz", "Europe/Lisbon");
      expect(added.code, added.stderr).toBe(0);
      expect((await briefbot.command("user", "list")).stdout).toContain("ann  Europe/Lisbon");
      expect(await systemIdentifier(await PGlite.create({ dataDir: folder }))).toBe(made);
    }
  });
});
