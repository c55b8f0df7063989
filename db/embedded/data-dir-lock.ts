/**
 * Who owns an embedded data directory. PGlite is single-process: two processes writing one directory
 * corrupt it. The owner holds `briefbot.lock` (its pid, role and socket), created atomically; everyone else
 * reads it and talks to the owner through its socket.
 *
 * A lock is live while its socket answers. One left by a killed process is recovered: its pid is gone (or
 * is our own pid again, as in a restarted container), or the pid lives on in an unrelated process and the
 * socket has stayed silent past a short grace for an owner still starting. Recovery happens under a second,
 * short-lived lock file, so two processes finding the same stale lock cannot both take over.
 */
import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";

export type OwnerRole = "bot" | "cli";

/** What the lock file says about its owner. */
export interface LockHolder {
  pid: number;
  hostname: string;
  role: OwnerRole;
  /** The command line of the owner, e.g. "start" or "user list", for messages. */
  command: string;
  /** Where the owner's wire-protocol socket listens. */
  socketPath: string;
  startedAt: string;
  /** Tells this lock from a later one with the same pid. */
  nonce: string;
}

export interface DataDirLock {
  readonly holder: LockHolder;
  /** Removes the lock file if it is still ours. Synchronous, so it also runs on `process.exit`. */
  release(): void;
}

export type LockOutcome = { kind: "acquired"; lock: DataDirLock } | { kind: "held"; holder: LockHolder };

export interface LockOptions {
  role: OwnerRole;
  command: string;
  socketPath: string;
  /** An owner whose socket is still silent this long after taking the lock is presumed gone. Default 15 s. */
  startingGraceMs?: number;
  /** Default: connects to the socket. */
  socketAnswers?: (socketPath: string) => Promise<boolean>;
}

export const LOCK_FILE = "briefbot.lock";
const RECOVERY_FILE = "briefbot.lock.recovering";
/** A recovery lock older than this was left by a process that died mid-recovery. */
const STALE_RECOVERY_MS = 10_000;
/** Locks this process holds: a lock with our pid and one of these nonces is live, not a previous life. */
const heldHere = new Set<string>();

export function lockPath(dataDir: string): string {
  return join(dataDir, LOCK_FILE);
}

/** Takes the lock, or says who holds it. Retries on its own through races and stale locks. */
export async function acquireDataDirLock(dataDir: string, options: LockOptions): Promise<LockOutcome> {
  const path = lockPath(dataDir);
  const socketAnswers = options.socketAnswers ?? probeSocket;
  const graceMs = options.startingGraceMs ?? 15_000;
  const holder: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    role: options.role,
    command: options.command,
    socketPath: options.socketPath,
    startedAt: new Date().toISOString(),
    nonce: randomBytes(8).toString("hex"),
  };

  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (tryCreate(path, holder)) return { kind: "acquired", lock: ownedLock(path, holder) };
    const current = readHolder(path);
    if (current === "missing") continue;
    if (current !== "unreadable") {
      const verdict = await judge(current, path, socketAnswers, graceMs);
      if (verdict === "live") return { kind: "held", holder: current };
      if (verdict === "starting") {
        await sleep(100);
        continue;
      }
    } else if (ageMs(path) < 2_000) {
      // Another process is writing its lock right now (we never see a half-written file, but be safe).
      await sleep(50);
      continue;
    }
    await removeStale(dataDir, path, current === "unreadable" ? undefined : current.nonce);
  }
  throw new Error(`could not take the lock ${path}: it keeps changing hands`);
}

/** The lock's holder if it is live; undefined when there is no owner. */
export async function currentOwner(
  dataDir: string,
  options: { socketAnswers?: (socketPath: string) => Promise<boolean> } = {},
): Promise<LockHolder | undefined> {
  const current = readHolder(lockPath(dataDir));
  if (current === "missing" || current === "unreadable") return undefined;
  const verdict = await judge(current, lockPath(dataDir), options.socketAnswers ?? probeSocket, 15_000);
  return verdict === "stale" ? undefined : current;
}

/** Written to a private file and then hard-linked into place: the lock appears whole, or not at all. */
function tryCreate(path: string, holder: LockHolder): boolean {
  const draft = `${path}.${holder.pid}.${holder.nonce}`;
  writeFileSync(draft, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

function ownedLock(path: string, holder: LockHolder): DataDirLock {
  heldHere.add(holder.nonce);
  const release = () => {
    const current = readHolder(path);
    if (typeof current === "object" && current.nonce === holder.nonce) rmSync(path, { force: true });
    heldHere.delete(holder.nonce);
    process.off("exit", release);
  };
  // A crash that still runs exit handlers leaves no stale lock behind.
  process.on("exit", release);
  return { holder, release };
}

function readHolder(path: string): LockHolder | "missing" | "unreadable" {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid === "number" && typeof parsed.socketPath === "string" && parsed.nonce) {
      return parsed as LockHolder;
    }
  } catch {
    // Garbage in the lock file is treated like a stale lock.
  }
  return "unreadable";
}

async function judge(
  holder: LockHolder,
  path: string,
  socketAnswers: (socketPath: string) => Promise<boolean>,
  graceMs: number,
): Promise<"live" | "starting" | "stale"> {
  const sameHost = holder.hostname === hostname();
  // Our own pid in someone else's lock: a previous life of this process id (a restarted container).
  if (sameHost && holder.pid === process.pid && !heldHere.has(holder.nonce)) return "stale";
  if (sameHost && !pidAlive(holder.pid)) return "stale";
  if (await socketAnswers(holder.socketPath)) return "live";
  // The pid is alive (or on another host) but the socket is silent: an owner still starting, or a
  // recycled pid. Only time tells them apart.
  return ageMs(path) < graceMs ? "starting" : "stale";
}

async function removeStale(dataDir: string, path: string, staleNonce: string | undefined): Promise<void> {
  const guard = join(dataDir, RECOVERY_FILE);
  const token = `${process.pid}.${randomBytes(4).toString("hex")}`;
  if (!tryCreateGuard(guard, token)) {
    if (ageMs(guard) > STALE_RECOVERY_MS) rmSync(guard, { force: true });
    await sleep(50);
    return;
  }
  try {
    // Under the guard, remove the lock only if it is still the stale one we judged.
    const current = readHolder(path);
    const unchanged =
      current === "unreadable"
        ? staleNonce === undefined
        : typeof current === "object" && current.nonce === staleNonce;
    if (unchanged) rmSync(path, { force: true });
  } finally {
    rmSync(guard, { force: true });
  }
}

function tryCreateGuard(guard: string, token: string): boolean {
  try {
    writeFileSync(guard, token, { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Whether something accepts connections on the socket (the kernel accepts even while its owner is busy). */
export function probeSocket(socketPath: string, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
