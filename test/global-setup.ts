/**
 * Before the run: compiles dist/ if it is missing or stale (the tests that spawn `briefbot` run it), and
 * builds one migrated PGlite data directory; every PGlite test suite starts from a copy of it instead of
 * running initdb and the migrations again (seconds per suite on a two-core machine).
 */
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import type { TestProject } from "vitest/node";
import { ensureBuilt } from "../bin/build.js";
import { migrationsFolder } from "../db/client.ts";

export default async function setup(project: TestProject): Promise<() => void> {
  // Tests that run the real binary run dist/: compile it first if the sources changed since.
  await ensureBuilt((line) => process.stdout.write(`${line}\n`));
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
