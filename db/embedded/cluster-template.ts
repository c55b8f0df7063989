/**
 * The empty cluster a new embedded folder starts from, made once by `npm run build` instead of at every
 * first start. PGlite's own first start on a folder runs initdb in a second, in-memory PGlite, dumps that
 * cluster and unpacks the dump into the folder: seconds of CPU and a second copy of PostgreSQL in memory
 * (the bot peaked at about 720 MB on a new folder; about 310 MB when it unpacks a dump). The dump initdb
 * makes is the same on every machine but for its system identifier, so the build makes it here and a first
 * start unpacks it (`loadDataDir`), the step PGlite itself ends with.
 *
 * The dump is named after the PGlite version that made it: a build next to another PGlite (an upgraded
 * node_modules) finds none and the start runs initdb as before.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The version of the installed PGlite (its package.json is not among the package's exports). */
export function pgliteVersion(): string {
  let folder = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  for (;;) {
    const manifest = join(folder, "package.json");
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string };
      if (parsed.name === "@electric-sql/pglite" && parsed.version) return parsed.version;
    }
    const parent = dirname(folder);
    if (parent === folder) throw new Error("cannot find the version of @electric-sql/pglite");
    folder = parent;
  }
}

export function clusterTemplatePath(folder: string, version = pgliteVersion()): string {
  return join(folder, `pglite-${version}-cluster.tar.gz`);
}

/** The dump made by this PGlite in `folder`, or undefined when the build made none (sources run by tsx). */
export function readClusterTemplate(folder: string): Blob | undefined {
  const path = clusterTemplatePath(folder);
  return existsSync(path) ? new Blob([readFileSync(path)]) : undefined;
}

/** Runs initdb in memory and writes its cluster, compressed, to `folder`; the path written. */
export async function writeClusterTemplate(folder: string): Promise<string> {
  const { PGlite } = await import("@electric-sql/pglite");
  const client = await PGlite.create("memory://");
  try {
    // On disk, not only in the WAL: the first start then has nothing to replay.
    await client.query("checkpoint");
    const dump = await client.dumpDataDir("gzip");
    const path = clusterTemplatePath(folder);
    writeFileSync(path, Buffer.from(await dump.arrayBuffer()));
    return path;
  } finally {
    await client.close();
  }
}
