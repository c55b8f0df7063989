/**
 * The program itself: `--help` lists every family without loading them, `--version` answers, errors share
 * the "briefbot: " prefix, and each lazily listed family describes itself as its module does.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { COMMAND_FAMILIES } from "../../src/cli/commands/index.ts";
import { runCli } from "../../src/cli/run.ts";

const root = join(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "briefbot-program-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function run(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    argv,
    COMMAND_FAMILIES,
    () => Promise.reject(new Error("no command here needs a context")),
    { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) },
    { version: "9.9.9" },
  );
  return { code, stdout, stderr };
}

describe("briefbot program", () => {
  it("lists every family in --help", async () => {
    const help = await run("--help");
    expect(help.code).toBe(0);
    for (const family of COMMAND_FAMILIES) {
      const line = help.stdout.split("\n").find((text) => text.startsWith(`  ${family.name} `));
      expect(line, family.name).toContain(family.description.slice(0, 15));
    }
  });

  it("prints the version", async () => {
    expect(await run("--version")).toEqual({ code: 0, stdout: "9.9.9\n", stderr: "" });
  });

  it('prefixes commander\'s own errors with "briefbot: " and suggests the command meant', async () => {
    const unknown = await run("usr", "list");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("briefbot: unknown command 'usr' (Did you mean user?)\n");
    const missing = await run("task", "list");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("briefbot: required option '--user <name>' not specified\n");
  });

  it("describes each lazily listed family exactly as its own module does", async () => {
    for (const family of COMMAND_FAMILIES) {
      const program = new Command("briefbot");
      (await family.load())(program, () => Promise.reject(new Error("unused")));
      expect(program.commands.find((command) => command.name() === family.name)?.description()).toBe(
        family.description,
      );
    }
  });

  it("answers --help from the built program without loading a single command family or database module", () => {
    const log = join(scratch, "loaded.txt");
    const hook = join(scratch, "hook.mjs");
    writeFileSync(
      hook,
      `import { appendFileSync } from "node:fs";
       export async function resolve(specifier, context, next) {
         const resolved = await next(specifier, context);
         appendFileSync(${JSON.stringify(log)}, resolved.url + "\\n");
         return resolved;
       }`,
    );
    const register = join(scratch, "register.mjs");
    writeFileSync(
      register,
      `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hook).href)});`,
    );
    const result = spawnSync(
      process.execPath,
      ["--import", register, join(root, "dist/src/cli/main.js"), "--help"],
      {
        encoding: "utf8",
      },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("calendar");
    const loaded = readFileSync(log, "utf8");
    expect(loaded).toContain("commander");
    for (const heavy of [
      "/cli/commands/user.js",
      "/db/",
      "@electric-sql",
      "grammy",
      "@slack",
      "zod",
      "drizzle-orm",
    ]) {
      expect(loaded, heavy).not.toContain(heavy);
    }
  });
});
