import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Proves the boundary check in `npm run check` can fail. It runs `npm run boundaries` on a copy of the tree
// with forbidden imports of every rule planted in new files (static, type-only, package subpaths, dynamic
// import(), process.getBuiltinModule) and allowed ones beside them, and expects each plant reported under its
// rule and file, and nothing else: the tree itself has no violations (`npm run check` holds it there), so
// every line the copy reports must be a plant.

const root = join(import.meta.dirname, "..", "..");
const copied = [
  "src",
  "db",
  "bots",
  "bin",
  "tools",
  "package.json",
  "tsconfig.json",
  ".dependency-cruiser.cjs",
];

interface Violation {
  rule: string;
  from: string;
  to: string;
}

interface Plant {
  rule: string;
  /** The importing module; a pattern only for a cycle, which is reported once, from any of its modules. */
  from: string | RegExp;
  /** The imported module: a path in the tree, or a pattern for a package or a builtin. */
  to: string | RegExp;
  how: string;
}

interface CheckRun {
  exitCode: number;
  output: string;
  violations: Violation[];
}

function copyTree(): string {
  const copy = mkdtempSync(join(tmpdir(), "briefbot-boundaries-"));
  for (const entry of copied) cpSync(join(root, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
  return copy;
}

/** The first TypeScript module under a folder, so the plants follow the tree as its files change. */
function someModule(copy: string, folder: string, except: string[] = []): string {
  const found = readdirSync(join(copy, folder), { recursive: true, encoding: "utf8" })
    .map((file) => posix.join(folder, file.split("\\").join("/")))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && !except.includes(file))
    .sort()[0];
  if (!found) throw new Error(`no module under ${folder} to plant an import of`);
  return found;
}

/** The specifier that imports `to` from `from`, both relative to the tree's root. */
function specifier(from: string, to: string): string {
  const path = posix.relative(posix.dirname(from), to);
  return path.startsWith(".") ? path : `./${path}`;
}

/**
 * Writes a forbidden import of every rule into new files of the copy, and files of allowed imports next to
 * them. Returns what the check must report, and the files it must leave alone.
 */
function plantEveryRule(copy: string): { plants: Plant[]; allowedFiles: string[] } {
  const plants: Plant[] = [];
  const allowedFiles: string[] = [];
  const write = (file: string, lines: string[]) => writeFileSync(join(copy, file), `${lines.join("\n")}\n`);
  const forbid = (rule: string, from: string | RegExp, to: string | RegExp, how: string) =>
    plants.push({ rule, from, to, how });
  const allow = (file: string, lines: string[]) => {
    write(file, lines);
    allowedFiles.push(file);
  };

  const core = someModule(copy, "src/core", [
    "src/core/index.ts",
    "src/core/domain.ts",
    "src/core/errors.ts",
  ]);
  const scheduler = someModule(copy, "src/scheduler");
  const delivery = someModule(copy, "src/delivery");
  const cli = someModule(copy, "src/cli");
  const db = someModule(copy, "db");
  const telegram = someModule(copy, "bots/telegram");
  const slack = someModule(copy, "bots/slack");

  const coreFile = "src/core/planted-violations.ts";
  write(coreFile, [
    `import type { Update } from "grammy/types";`,
    `import { createHash } from "node:crypto";`,
    `import type * as Scheduler from "${specifier(coreFile, scheduler)}";`,
    `export type Planted = [Update, typeof Scheduler];`,
    `export const hash = createHash;`,
    `export const postgres = () => import("drizzle-orm/postgres-js");`,
    `export const files = () => process.getBuiltinModule("node:fs");`,
  ]);
  const coreRule = "core-imports-only-core-zod-luxon";
  forbid(coreRule, coreFile, /(^|\/)node_modules\/grammy\//, "type-only import of a package subpath");
  forbid(coreRule, coreFile, /^(node:)?crypto$/, "a node: builtin");
  forbid(coreRule, coreFile, scheduler, "type-only import of another src folder");
  forbid(coreRule, coreFile, /(^|\/)node_modules\/drizzle-orm\//, "dynamic import() of a package subpath");
  forbid(coreRule, coreFile, /^(node:)?fs$/, "process.getBuiltinModule()");

  write("src/core/planted-cycle-a.ts", [
    `import { b } from "./planted-cycle-b.ts";`,
    "export const a = () => b;",
  ]);
  write("src/core/planted-cycle-b.ts", [
    `import type { a } from "./planted-cycle-a.ts";`,
    "export const b: typeof a | null = null;",
  ]);
  const eitherOfTheCycle = /^src\/core\/planted-cycle-[ab]\.ts$/;
  forbid("core-has-no-cycles", eitherOfTheCycle, eitherOfTheCycle, "a value import and a type-only one");

  const dbFile = "db/planted-violations.ts";
  write(dbFile, [
    `import type * as Core from "${specifier(dbFile, core)}";`,
    "export type Planted = typeof Core;",
    `export const adapter = () => import("${specifier(dbFile, telegram)}");`,
  ]);
  forbid("db-imports-only-the-core-vocabulary", dbFile, core, "type-only import of the core's logic");
  forbid("db-imports-only-the-core-vocabulary", dbFile, telegram, "dynamic import() of an adapter");

  const telegramFile = "bots/telegram/planted-violations.ts";
  write(telegramFile, [
    `import * as Core from "${specifier(telegramFile, core)}";`,
    `import type * as Delivery from "${specifier(telegramFile, delivery)}";`,
    `import type * as Slack from "${specifier(telegramFile, slack)}";`,
    `import type { App } from "@slack/bolt";`,
    "export type Planted = [typeof Core, typeof Delivery, typeof Slack, App];",
    `export const database = await import("${specifier(telegramFile, db)}");`,
  ]);
  forbid("bots-use-only-core-public-surface", telegramFile, core, "a deep core path");
  forbid("bots-use-only-core-public-surface", telegramFile, delivery, "an edge service, type-only");
  forbid("bots-adapters-stay-apart", telegramFile, slack, "the other adapter, type-only");
  forbid(
    "telegram-adapter-uses-no-slack-library",
    telegramFile,
    /(^|\/)node_modules\/@slack\/bolt\//,
    "Bolt",
  );
  forbid("bots-stay-out-of-db", telegramFile, db, "top-level await import() of db/");

  const slackFile = "bots/slack/planted-violations.ts";
  write(slackFile, [
    `import type { Context } from "grammy";`,
    "export type Planted = Context;",
    `export const telegram = () => import("${specifier(slackFile, telegram)}");`,
  ]);
  forbid("slack-adapter-uses-no-telegram-library", slackFile, /(^|\/)node_modules\/grammy\//, "grammY");
  forbid("bots-adapters-stay-apart", slackFile, telegram, "dynamic import() of the other adapter");

  const deliveryFile = "src/delivery/planted-violations.ts";
  write(deliveryFile, [
    `import type * as Cli from "${specifier(deliveryFile, cli)}";`,
    "export type Planted = typeof Cli;",
    `export const slotTime = () => import("${specifier(deliveryFile, scheduler)}");`,
    `export const missing = () => import("./planted-no-such-module.ts");`,
  ]);
  forbid("nothing-imports-the-cli", deliveryFile, cli, "type-only import of the CLI");
  forbid("delivery-never-imports-scheduler", deliveryFile, scheduler, "dynamic import() of the scheduler");
  forbid("every-import-resolves", deliveryFile, "./planted-no-such-module.ts", "import() of a missing file");

  const dbQuery = someModule(copy, "db/queries");
  const dbSchema = someModule(copy, "db/schema");
  const portsRule = "scheduler-delivery-server-use-ports-not-the-database";
  const schedulerFile = "src/scheduler/planted-violations.ts";
  write(schedulerFile, [
    `import type * as Schema from "${specifier(schedulerFile, dbSchema)}";`,
    "export type Planted = typeof Schema;",
  ]);
  forbid(portsRule, schedulerFile, dbSchema, "type-only import of the schema");
  const outboxFile = "src/delivery/planted-database.ts";
  write(outboxFile, [`export const queries = () => import("${specifier(outboxFile, dbQuery)}");`]);
  forbid(portsRule, outboxFile, dbQuery, "dynamic import() of a query module");
  const serverFile = "src/server/planted-violations.ts";
  write(serverFile, [
    `import { sql } from "${specifier(serverFile, dbQuery)}";`,
    "export const planted = sql;",
  ]);
  forbid(portsRule, serverFile, dbQuery, "a value import of a query module");

  // The other side of each rule: a rule that forbade everything would pass the checks above just as well.
  // The adapters' door is the core's index; until the core refactor writes it, an empty one stands in.
  if (!existsSync(join(copy, "src/core/index.ts"))) write("src/core/index.ts", ["export {};"]);
  allow("src/core/planted-allowed.ts", [
    `import { z } from "zod";`,
    `import type { DateTime } from "luxon";`,
    `import { Duration } from "luxon";`,
    `import type * as Core from "${specifier("src/core/planted-allowed.ts", core)}";`,
    "export type Planted = [DateTime, typeof Core];",
    "export const planted = [z.string(), Duration];",
  ]);
  allow("db/planted-allowed.ts", [
    `import type { Task } from "../src/core/domain.ts";`,
    `import { NotFoundError } from "../src/core/errors.ts";`,
    "export type Planted = Task;",
    "export const planted = NotFoundError;",
  ]);
  allow("bots/telegram/planted-allowed.ts", [
    `import type * as Core from "../../src/core/index.ts";`,
    `import { Bot } from "grammy";`,
    "export type Planted = typeof Core;",
    "export const planted = Bot;",
  ]);
  allow("bots/slack/planted-allowed.ts", [
    `import type * as Core from "../../src/core/index.ts";`,
    `import type { App } from "@slack/bolt";`,
    "export type Planted = [typeof Core, App];",
  ]);
  allow("src/cli/planted-allowed.ts", [
    `export const command = () => import("${specifier("src/cli/planted-allowed.ts", cli)}");`,
  ]);
  allow("src/scheduler/planted-allowed.ts", [
    `import type * as Delivery from "${specifier("src/scheduler/planted-allowed.ts", delivery)}";`,
    "export type Planted = typeof Delivery;",
  ]);
  return { plants, allowedFiles };
}

/** Runs the `boundaries` script of the copy's package.json, the one `npm run check` runs. */
function runBoundaries(copy: string): Promise<CheckRun> {
  const scripts = JSON.parse(readFileSync(join(copy, "package.json"), "utf8")).scripts;
  const [command, ...args] = String(scripts.boundaries).split(/\s+/);
  if (!command) throw new Error("package.json has no boundaries script");
  const options = { cwd: copy, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 16 * 1024 * 1024 };
  return new Promise((resolve) => {
    execFile(join(root, "node_modules", ".bin", command), args, options, (error, stdout, stderr) => {
      const exitCode = error ? Number(error.code ?? 1) : 0;
      resolve({ exitCode, output: `${stdout}${stderr}`, violations: parseViolations(stdout) });
    });
  });
}

/**
 * Reads the lines `error <rule>: <from> → <to>` of dependency-cruiser's err report; a cycle names its next
 * module on the line after. Checks the count against the report's own summary, so no line goes unread.
 */
function parseViolations(report: string): Violation[] {
  const lines = report.split("\n");
  const violations: Violation[] = [];
  lines.forEach((line, index) => {
    const match = /^\s*error ([\w-]+): (\S+) →(.*)$/.exec(line);
    if (!match) return;
    const [, rule = "", from = "", rest = ""] = match;
    const to = rest.trim() || (lines[index + 1] ?? "").trim().replace(/ →$/, "");
    violations.push({ rule, from, to });
  });
  const summary = /(\d+) dependency violations \((\d+) errors/.exec(report);
  const reported = summary ? Number(summary[2]) : 0;
  if (reported !== violations.length)
    throw new Error(`read ${violations.length} violations of the ${reported} reported:\n${report}`);
  return violations;
}

function matchesPath(path: string, expected: string | RegExp): boolean {
  return typeof expected === "string" ? path === expected : expected.test(path);
}

function reports(violation: Violation, plant: Plant): boolean {
  return (
    violation.rule === plant.rule &&
    matchesPath(violation.from, plant.from) &&
    matchesPath(violation.to, plant.to)
  );
}

const line = ({ rule, from, to }: Violation) => `${rule}: ${from} → ${to}`;

describe("the boundary check", () => {
  let copy: string | undefined;
  let planted: ReturnType<typeof plantEveryRule>;
  let plantedRun: CheckRun;

  beforeAll(async () => {
    copy = copyTree();
    planted = plantEveryRule(copy);
    plantedRun = await runBoundaries(copy);
  });

  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it("is part of npm run check", () => {
    const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts;
    expect(scripts.check).toMatch(/&& npm run boundaries$/);
  });

  it("exits non-zero when it reports a violation", () => {
    expect(plantedRun.exitCode, plantedRun.output).toBe(1);
  });

  it("reports every planted import under its rule and file", () => {
    for (const plant of planted.plants) {
      const label = `${plant.rule}: ${plant.from} → ${plant.to} (${plant.how})`;
      expect(
        plantedRun.violations.some((v) => reports(v, plant)),
        `not reported: ${label}`,
      ).toBe(true);
    }
  });

  it("has a plant for every rule of the configuration", async () => {
    const { default: config } = await import(join(root, ".dependency-cruiser.cjs"));
    const rules = (config.forbidden as { name: string }[]).map(({ name }) => name).sort();
    expect([...new Set(planted.plants.map(({ rule }) => rule))].sort()).toEqual(rules);
  });

  it("reports nothing else: the allowed imports pass, and the tree around the plants has no violation", () => {
    const unplanted = plantedRun.violations.filter((v) => !planted.plants.some((plant) => reports(v, plant)));
    expect(unplanted.map(line)).toEqual([]);
    expect(plantedRun.violations).toHaveLength(planted.plants.length);
    for (const file of planted.allowedFiles) expect(plantedRun.output).not.toContain(`: ${file} →`);
  });
});
