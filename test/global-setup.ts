/**
 * Builds one migrated PGlite data directory before the run; every PGlite test suite starts from a copy of
 * it instead of running initdb and the migrations again (seconds per suite on a two-core machine).
 */
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import type { TestProject } from "vitest/node";
import { migrationsFolder } from "../db/client.ts";

export default async function setup(project: TestProject): Promise<() => void> {
  const client = await PGlite.create("memory://");
  await migrate(drizzle(client), { migrationsFolder });
  const dump = await client.dumpDataDir("none");
  await client.close();
  const path = join(tmpdir(), `briefbot-pglite-template-${process.pid}.tar`);
  writeFileSync(path, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteTemplate", path);
  return () => rmSync(path, { force: true });
}

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}
