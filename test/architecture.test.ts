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

// Which modules may import which is the boundary check's job (.dependency-cruiser.cjs, proven by
// test/architecture/boundaries.test.ts); these are the rules about what code does that no import graph shows.
describe("architecture", () => {
  const core = sourcesUnder("src/core");

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

  it("raises its own errors as BriefbotError subclasses, each with a code, and tells them apart by code", () => {
    const product = ["src", "db", "bots"].flatMap(sourcesUnder);
    const classes = product.flatMap(({ file, code }) =>
      [...code.matchAll(/class (\w+) extends (\w+)/g)]
        .filter(([, name]) => name?.endsWith("Error"))
        .map(([, name, base]) => ({ file, name, base })),
    );
    expect(classes.length).toBeGreaterThan(20);
    const onPlainError = classes.filter(({ name, base }) => name !== "BriefbotError" && base === "Error");
    expect(onPlainError).toEqual([]);
    const namesCompared = product
      .filter(({ code }) => /\.name === "\w+Error"/.test(code))
      .filter(({ code }) => {
        const ours = classes.map(({ name }) => name);
        return [...code.matchAll(/\.name === "(\w+Error)"/g)].some(([, name]) => ours.includes(name ?? ""));
      })
      .map(({ file }) => file);
    expect(namesCompared, "our errors are told apart by code, not by name").toEqual([]);
  });
});

describe("a repository that stands alone", () => {
  it("reads no file outside the repository: fixtures live in test/fixtures/", () => {
    // The team's shared folder sits beside this checkout on our machines only; a clone elsewhere has none.
    const readsOutside = ["test", "bench", "tools", "src", "db", "bots"]
      .flatMap(sourcesUnder)
      .filter(({ code }) => /(\.\.\/)+shared\b|["'`]\/work\//.test(code))
      .map(({ file }) => file);
    expect(readsOutside).toEqual([]);
  });

  it("keeps the provenance and licences of every real-world fixture beside them", () => {
    const folder = join(root, "test/fixtures/real-world");
    const sources = readFileSync(join(folder, "SOURCES.md"), "utf8");
    const files = ["ics", "feeds"].flatMap((kind) =>
      readdirSync(join(folder, kind)).map((name) => `${kind}/${name}`),
    );
    expect(files.length).toBeGreaterThan(25);
    for (const file of files) expect(sources, `${file} has no entry in SOURCES.md`).toContain(`\`${file}\``);
  });
});
