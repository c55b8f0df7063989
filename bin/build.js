// Compiles the TypeScript sources to dist/ (`npm run build`), and tells whether dist/ is current.
// The `briefbot` bin and the test setup call `ensureBuilt()`, so a fresh clone or a changed source tree is
// compiled once before it runs — nobody runs yesterday's build by accident.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const dist = join(root, "dist");
const stamp = join(dist, ".build-stamp");
const lock = join(root, ".build-lock");
const SOURCES = ["src", "db", "bots", "tsconfig.json", "tsconfig.build.json"];

/** The newest modification time under the sources, or undefined when they are not here (the image). */
function newestSource() {
  let newest;
  const visit = (path) => {
    const info = statSync(path, { throwIfNoEntry: false });
    if (!info) return;
    if (info.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else if (newest === undefined || info.mtimeMs > newest) {
      newest = info.mtimeMs;
    }
  };
  if (!existsSync(join(root, "src"))) return undefined;
  for (const source of SOURCES) visit(join(root, source));
  return newest;
}

/** "missing", "stale" or "current". */
export function buildState() {
  const built = statSync(stamp, { throwIfNoEntry: false });
  if (!built) return "missing";
  const newest = newestSource();
  return newest !== undefined && newest > built.mtimeMs ? "stale" : "current";
}

/**
 * Compiles with tsc, copies the migrations and makes the empty cluster a new embedded folder starts from
 * (db/embedded/cluster-template.ts). Throws with tsc's output when compilation fails.
 */
export function build() {
  const require = createRequire(import.meta.url);
  const tsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
    cwd: root,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`tsc failed:\n${result.stdout}${result.stderr}`);
  mkdirSync(join(dist, "db"), { recursive: true });
  cpSync(join(root, "db", "migrations"), join(dist, "db", "migrations"), { recursive: true });
  writeClusterTemplate();
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

/**
 * initdb runs in a process of its own: PGlite's memory (hundreds of MB while it runs) must not stay with
 * the process that builds, which is the bot itself when `briefbot start` finds the sources changed.
 */
function writeClusterTemplate() {
  const folder = join(dist, "db");
  for (const entry of readdirSync(folder))
    if (/^pglite-.*-cluster\.tar\.gz$/.test(entry)) rmSync(join(folder, entry));
  const module = pathToFileURL(join(folder, "embedded", "cluster-template.js")).href;
  const script = `const { writeClusterTemplate } = await import(${JSON.stringify(module)}); await writeClusterTemplate(${JSON.stringify(folder)});`;
  const result = spawnSync(process.execPath, ["--input-type=module", "--eval", script], {
    cwd: root,
    encoding: "utf8",
  });
  if (result.status !== 0)
    throw new Error(`making the embedded cluster template failed:\n${result.stdout}${result.stderr}`);
}

/**
 * Builds when dist/ is missing or older than the sources. One process builds at a time; the others wait
 * and find it current. `say` reports that a build is happening (it takes a while).
 */
export async function ensureBuilt(say = () => {}) {
  for (let waited = 0; buildState() !== "current"; waited += 1) {
    let mine = false;
    try {
      mkdirSync(lock);
      mine = true;
    } catch {
      const held = statSync(lock, { throwIfNoEntry: false });
      // A build that died leaves its lock; nothing takes five minutes.
      if (held && Date.now() - held.mtimeMs > 5 * 60_000) rmSync(lock, { recursive: true, force: true });
      if (waited === 0) say("briefbot: waiting for another process to finish compiling…");
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (buildState() === "current") return;
      let typescript = true;
      try {
        createRequire(import.meta.url).resolve("typescript/package.json");
      } catch {
        typescript = false;
      }
      if (!typescript) {
        if (buildState() === "missing")
          throw new Error(
            "dist/ is missing and TypeScript is not installed: run `npm ci` then `npm run build`",
          );
        say("briefbot: sources are newer than dist/ but TypeScript is not installed; running the old build");
        return;
      }
      say(`briefbot: compiling to dist/ (${buildState() === "missing" ? "first run" : "sources changed"})…`);
      build();
    } finally {
      if (mine) rmSync(lock, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    build();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
