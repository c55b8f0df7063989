import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** briefbot's version from its package.json, found upwards from this file (in src/ and in dist/src/). */
export function packageVersion(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth += 1) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === "briefbot" && manifest.version) return manifest.version;
    } catch {
      // Not here; look one folder up.
    }
    folder = dirname(folder);
  }
  return "unknown";
}
