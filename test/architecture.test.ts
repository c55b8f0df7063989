import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

function sourcesUnder(folder: string): { file: string; code: string }[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => {
      const path = join(root, folder, file);
      // Comments may mention what the code must not do; only code counts.
      const code = readFileSync(path, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/(^|[^:])\/\/.*$/gm, "$1");
      return { file: relative(root, path), code };
    });
}

describe("architecture", () => {
  const core = sourcesUnder("src/core");

  it("keeps the core free of platforms, database drivers and the scheduler", () => {
    const forbidden = [
      "grammy",
      "@slack/bolt",
      "@slack/web-api",
      "@electric-sql/pglite",
      "postgres",
      "node-cron",
      "ollama",
    ];
    for (const { file, code } of core) {
      for (const pkg of forbidden)
        expect(code, `${file} imports ${pkg}`).not.toMatch(new RegExp(`from ["']${pkg}["']`));
    }
  });

  it("never lets the core read the environment, the clock or the network by itself", () => {
    for (const { file, code } of core) {
      // clock.ts is where the system clock is defined, for the edges to pass in.
      if (file === "src/core/clock.ts") continue;
      expect(code, `${file} reads process.env`).not.toMatch(/process\.env/);
      expect(code, `${file} reads the clock`).not.toMatch(/Date\.now\(\)|new Date\(\)/);
      expect(code, `${file} calls the global fetch`).not.toMatch(/(^|[^.\w])fetch\(/m);
    }
  });

  it("reads process.env only in the CLI's composition root", () => {
    const readers = ["src", "db", "bots"]
      .flatMap(sourcesUnder)
      .filter(({ code }) => /process\.env/.test(code))
      .map(({ file }) => file);
    expect(readers).toEqual(["src/cli/main.ts"]);
  });

  it("keeps platform adapters out of each other", () => {
    for (const { file, code } of sourcesUnder("bots/telegram"))
      expect(code, file).not.toMatch(/@slack\/|bots\/slack|\.\.\/slack\//);
    for (const { file, code } of sourcesUnder("bots/slack"))
      expect(code, file).not.toMatch(/grammy|bots\/telegram|\.\.\/telegram\//);
  });
});
