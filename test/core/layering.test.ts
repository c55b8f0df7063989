/**
 * The two layering rules this refactor made true, checked on resolved paths (relative specifiers, `import
 * type`, re-exports and dynamic imports alike): the core imports only itself, zod and luxon; `db/` imports
 * nothing from `src/` or `bots/`. (The full rule set lives in the dependency-cruiser configuration.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join(folder, file));
}

/** Every import of a file, as TypeScript reads it: packages by name, relative ones from the repository root. */
function importsOf(file: string, source = readFileSync(join(ROOT, file), "utf8")): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map(({ fileName }) =>
      fileName.startsWith(".") ? relative(ROOT, resolve(ROOT, dirname(file), fileName)) : fileName,
    );
}

function violations(folder: string, allowed: (target: string) => boolean): string[] {
  return sourceFiles(folder).flatMap((file) =>
    importsOf(file)
      .filter((target) => !allowed(target))
      .map((target) => `${file} → ${target}`),
  );
}

const inside = (folder: string) => (target: string) => target === folder || target.startsWith(`${folder}/`);

describe("layering", () => {
  it("src/core imports only itself, zod and luxon", () => {
    expect(
      violations("src/core", (target) => inside("src/core")(target) || ["zod", "luxon"].includes(target)),
    ).toEqual([]);
  });

  it("db/ imports nothing from src/ or bots/", () => {
    expect(violations("db", (target) => !inside("src")(target) && !inside("bots")(target))).toEqual([]);
  });

  it("sees imports the way they are written: type-only, re-exports, dynamic, and climbing out by ../", () => {
    const planted = [
      'import type { Database } from "../../db/client.ts";',
      'export * from "../scheduler/scheduler.ts";',
      'const grammy = await import("grammy/types");',
      'import { x } from "./tools/../../cli/run.ts";',
    ].join("\n");
    expect(importsOf("src/core/planted.ts", planted)).toEqual([
      "db/client.ts",
      "src/scheduler/scheduler.ts",
      "grammy/types",
      "src/cli/run.ts",
    ]);
  });
});
