/**
 * The embedded data directory's lock: one owner at a time, found by others through its socket, and a lock
 * left by a killed process recovered — by exactly one of several processes racing for it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireDataDirLock, type LockHolder, lockPath } from "../../db/embedded/data-dir-lock.ts";

const folders: string[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function freshFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "briefbot-lock-"));
  folders.push(folder);
  return folder;
}

async function listeningSocket(path: string): Promise<void> {
  const server = createServer((socket) => socket.destroy());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

/** A lock file as a process that no longer exists (or never listened) would have left it. */
function plantLock(folder: string, holder: Partial<LockHolder>, ageSeconds = 0): LockHolder {
  const planted: LockHolder = {
    pid: 999_999,
    hostname: hostname(),
    role: "bot",
    command: "start",
    socketPath: join(folder, "gone.sock"),
    startedAt: new Date().toISOString(),
    nonce: "planted",
    ...holder,
  };
  writeFileSync(lockPath(folder), JSON.stringify(planted));
  if (ageSeconds > 0) {
    const then = new Date(Date.now() - ageSeconds * 1000);
    utimesSync(lockPath(folder), then, then);
  }
  return planted;
}

const lockOptions = (folder: string) => ({
  role: "cli" as const,
  command: "test",
  socketPath: join(folder, "s"),
});

describe("embedded data directory lock", () => {
  it("gives the directory to one owner; the next process is told who holds it while its socket answers", async () => {
    const folder = freshFolder();
    const first = await acquireDataDirLock(folder, { ...lockOptions(folder), role: "bot", command: "start" });
    expect(first.kind).toBe("acquired");
    await listeningSocket(join(folder, "s"));
    const second = await acquireDataDirLock(folder, lockOptions(folder));
    expect(second).toMatchObject({
      kind: "held",
      holder: { pid: process.pid, role: "bot", command: "start" },
    });
    if (first.kind === "acquired") first.lock.release();
    const third = await acquireDataDirLock(folder, lockOptions(folder));
    expect(third.kind).toBe("acquired");
    if (third.kind === "acquired") third.lock.release();
  });

  it("recovers a lock whose process is gone", async () => {
    const folder = freshFolder();
    plantLock(folder, { pid: 999_999 });
    const outcome = await acquireDataDirLock(folder, lockOptions(folder));
    expect(outcome.kind).toBe("acquired");
    expect(JSON.parse(readFileSync(lockPath(folder), "utf8"))).toMatchObject({ pid: process.pid });
    if (outcome.kind === "acquired") outcome.lock.release();
  });

  it("recovers a lock carrying this very pid from a previous life (a restarted container)", async () => {
    const folder = freshFolder();
    plantLock(folder, { pid: process.pid, nonce: "previous-life" });
    const outcome = await acquireDataDirLock(folder, lockOptions(folder));
    expect(outcome.kind).toBe("acquired");
    if (outcome.kind === "acquired") outcome.lock.release();
  });

  it("waits out an owner that is still starting, and takes over once its recycled pid stays silent", async () => {
    const folder = freshFolder();
    // A live process that is not briefbot: the parent test runner's pid.
    plantLock(folder, { pid: process.ppid });
    const outcome = await acquireDataDirLock(folder, { ...lockOptions(folder), startingGraceMs: 600 });
    expect(outcome.kind).toBe("acquired");
    if (outcome.kind === "acquired") outcome.lock.release();

    plantLock(folder, { pid: process.ppid, nonce: "answering" });
    await listeningSocket(join(folder, "gone.sock"));
    const held = await acquireDataDirLock(folder, lockOptions(folder));
    expect(held).toMatchObject({ kind: "held", holder: { nonce: "answering" } });
  });

  it("lets exactly one of several processes racing for a stale lock take it", async () => {
    const folder = freshFolder();
    plantLock(folder, { pid: 999_999 }, 60);
    const script = join(folder, "race.mts");
    const lockModule = join(import.meta.dirname, "../../db/embedded/data-dir-lock.ts");
    writeFileSync(
      script,
      `import { acquireDataDirLock } from ${JSON.stringify(lockModule)};
       import { createServer } from "node:net";
       const socketPath = ${JSON.stringify(folder)} + "/racer-" + process.pid;
       const outcome = await acquireDataDirLock(${JSON.stringify(folder)}, { role: "cli", command: "race", socketPath });
       if (outcome.kind === "acquired") {
         const server = createServer(() => {}).listen(socketPath);
         console.log("acquired");
         setTimeout(() => { server.close(); outcome.lock.release(); }, 3000);
       } else console.log("held by " + outcome.holder.pid);`,
    );
    const racers = Array.from({ length: 4 }, () =>
      spawn(process.execPath, ["--import", "tsx", script], { stdio: ["ignore", "pipe", "inherit"] }),
    );
    const outputs = await Promise.all(
      racers.map(
        (child) =>
          new Promise<string>((resolve) => {
            let output = "";
            child.stdout?.on("data", (chunk: Buffer) => {
              output += chunk.toString();
            });
            child.on("exit", () => resolve(output.trim()));
          }),
      ),
    );
    expect(outputs.filter((output) => output === "acquired")).toHaveLength(1);
    const winner = racers.find((_, index) => outputs[index] === "acquired")?.pid;
    for (const output of outputs.filter((line) => line !== "acquired"))
      expect(output).toBe(`held by ${winner}`);
  }, 60_000);
});
