/**
 * The owner's door to the embedded database: a PostgreSQL wire-protocol server on a Unix socket, so every
 * other briefbot process (the CLI) works on the one PGlite instance the owner has open, through postgres.js
 * like a PostgreSQL server.
 *
 * PGlite is one backend session. Its in-process `query`/`exec`/`transaction` serialise on PGlite's
 * transaction mutex; this server takes that same mutex for each client's unit of work: from its first
 * message until the backend is idle again (ReadyForQuery "I"), so a whole client transaction — or a whole
 * Parse…Sync exchange — runs with nothing of the owner's in between, and an owner transaction never sees
 * a client statement. A client that holds the session idle too long, or vanishes, is rolled back.
 *
 * Why not `@electric-sql/pglite-socket`: its 0.2.x multiplexer takes PGlite's lock per message only, so an
 * owner's in-process query runs inside a client's open transaction (and is lost when the client rolls
 * back); and it pins `@electric-sql/pglite` to exactly 0.5.14 with every extension package as a peer.
 */
import { chmodSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import {
  authenticationOk,
  backendKeyData,
  CANCEL_REQUEST,
  errorResponse,
  type FrontendMessage,
  GSSENC_REQUEST,
  lastReadyStatus,
  PROTOCOL_V3,
  parameterStatus,
  parsedStatementName,
  queryMessage,
  readyForQuery,
  SSL_REQUEST,
  syncMessage,
  takeMessage,
  takeStartupPacket,
} from "./wire-protocol.ts";

export interface WireServerLogger {
  warn(details: object, message: string): void;
}

export interface WireServerOptions {
  socketPath: string;
  /** A client that holds the session with nothing to run for this long is rolled back and cut off. */
  holdTimeoutMs?: number;
  logger?: WireServerLogger;
}

export interface WireServer {
  readonly socketPath: string;
  /** Client connections open right now. */
  readonly connections: number;
  /** Starts answering clients over `db`; clients that connected earlier have been waiting for this. */
  serve(db: PGlite): Promise<void>;
  /**
   * Stops listening, rolls back and disconnects every client, and removes the socket file. With `lingerMs`,
   * first keeps serving until no client is connected (or that long has passed), so a command that owns the
   * folder does not cut off another command working through it.
   */
  close(options?: { lingerMs?: number }): Promise<void>;
}

export const DEFAULT_HOLD_TIMEOUT_MS = 30_000;

/** The parameters a driver expects to be told at start-up; their values are the session's own. */
const REPORTED_SETTINGS = [
  "server_version",
  "server_encoding",
  "client_encoding",
  "DateStyle",
  "IntervalStyle",
  "TimeZone",
  "integer_datetimes",
  "standard_conforming_strings",
];

/** Listens on `socketPath` (replacing a leftover socket file: the caller holds the data-directory lock). */
export async function listenWireServer(options: WireServerOptions): Promise<WireServer> {
  const holdTimeoutMs = options.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS;
  const connections = new Set<Connection>();
  let session: Session | undefined;
  let markReady: (session: Session) => void = () => {};
  const ready = new Promise<Session>((resolve) => {
    markReady = resolve;
  });

  const server: Server = createServer((socket) => {
    const connection = new Connection(socket, ready, holdTimeoutMs, options.logger);
    connections.add(connection);
    connection.closed.then(() => connections.delete(connection));
  });
  rmSync(options.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // The socket is as private as the data it serves: only this OS user may connect.
  chmodSync(options.socketPath, 0o600);

  return {
    socketPath: options.socketPath,
    get connections() {
      return connections.size;
    },
    async serve(db) {
      if (session) return;
      const rows = await db.query<{ name: string; setting: string }>(
        "select name, setting from pg_settings where name = any($1)",
        [REPORTED_SETTINGS],
      );
      session = { db, settings: rows.rows.map((row) => [row.name, row.setting] as const) };
      markReady(session);
    },
    async close(closeOptions = {}) {
      const deadline = Date.now() + (closeOptions.lingerMs ?? 0);
      while (connections.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...connections].map((connection) => connection.terminate()));
      rmSync(options.socketPath, { force: true });
    },
  };
}

interface Session {
  db: PGlite;
  settings: ReadonlyArray<readonly [string, string]>;
}

let nextProcessId = 1;

/** One client: bytes in, messages run one at a time, replies out. */
class Connection {
  readonly closed: Promise<void>;
  private buffer: Buffer = Buffer.alloc(0);
  private phase: "startup" | "ready" | "closed" = "startup";
  private work: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;
  private holdTimer: NodeJS.Timeout | undefined;
  private usedNamedStatements = false;
  private markClosed: () => void = () => {};
  private readonly processId = nextProcessId++;

  constructor(
    private readonly socket: Socket,
    private readonly ready: Promise<Session>,
    private readonly holdTimeoutMs: number,
    private readonly logger: WireServerLogger | undefined,
  ) {
    this.closed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", () => this.end());
    socket.on("close", () => this.end());
  }

  /** Ends the connection from the server side and waits until its session state is cleaned up. */
  async terminate(): Promise<void> {
    this.socket.destroy();
    this.end();
    await this.closed;
  }

  private receive(chunk: Buffer): void {
    if (this.phase === "closed") return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    try {
      for (;;) {
        if (this.phase === "startup") {
          const taken = takeStartupPacket(this.buffer);
          if (!taken) return;
          this.buffer = taken.rest;
          this.startup(taken.packet.code);
        } else if (this.phase === "ready") {
          const taken = takeMessage(this.buffer);
          if (!taken) return;
          this.buffer = taken.rest;
          const message = taken.message;
          this.enqueue(() => this.run(message));
        } else {
          return;
        }
      }
    } catch (error) {
      this.fail("08P01", error instanceof Error ? error.message : String(error));
    }
  }

  private startup(code: number): void {
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      // No encryption on a local socket; the client goes on in plain text.
      this.socket.write("N");
      return;
    }
    if (code === CANCEL_REQUEST) {
      // PGlite cannot interrupt a running statement; the request is dropped as the protocol allows.
      this.socket.destroy();
      return;
    }
    if (code !== PROTOCOL_V3) {
      this.fail("08P01", `unsupported protocol version ${code}`);
      return;
    }
    this.phase = "ready";
    // The client's start-up parameters never reach the shared session: they would change the owner's too.
    this.enqueue(async () => {
      const session = await this.ready;
      this.socket.write(
        Buffer.concat([
          authenticationOk(),
          ...session.settings.map(([name, value]) => parameterStatus(name, value)),
          parameterStatus("application_name", ""),
          backendKeyData(this.processId, 0),
          readyForQuery("I"),
        ]),
      );
    });
  }

  private async run(message: FrontendMessage): Promise<void> {
    if (this.phase === "closed") return;
    if (message.type === "X") {
      this.socket.end();
      this.end();
      return;
    }
    const { db } = await this.ready;
    clearTimeout(this.holdTimer);
    if (!this.release) this.release = await acquireSession(db);
    if (message.type === "P" && parsedStatementName(message) !== "") this.usedNamedStatements = true;
    const reply = await db.runExclusive(() => db.execProtocolRaw(message.bytes));
    if (!this.isClosed()) this.socket.write(reply);
    if (message.type === "S" || message.type === "Q") {
      if (lastReadyStatus(reply) === "I") this.releaseSession();
    }
    if (this.holding() && !this.isClosed()) {
      this.holdTimer = setTimeout(() => this.holdExpired(), this.holdTimeoutMs);
      this.holdTimer.unref();
    }
  }

  private holding(): boolean {
    return this.release !== undefined;
  }

  /** A method, not a field test: the phase changes while `run` awaits. */
  private isClosed(): boolean {
    return this.phase === "closed";
  }

  private holdExpired(): void {
    this.logger?.warn(
      { holdTimeoutMs: this.holdTimeoutMs },
      "embedded database: a client held the session idle too long; rolled back and disconnected",
    );
    this.fail(
      "25P03",
      `terminating connection: it held the embedded database idle for more than ${this.holdTimeoutMs / 1000} s while others waited`,
    );
  }

  private fail(code: string, text: string): void {
    if (this.phase === "closed") return;
    this.socket.end(errorResponse("FATAL", code, text));
    this.end();
  }

  /** Once: stop taking messages, then leave the session as the next user expects it. */
  private end(): void {
    if (this.phase === "closed") return;
    this.phase = "closed";
    clearTimeout(this.holdTimer);
    this.enqueue(async () => {
      try {
        await this.cleanUp();
      } finally {
        this.releaseSession();
        this.markClosed();
      }
    });
  }

  private async cleanUp(): Promise<void> {
    if (!this.release && !this.usedNamedStatements) return;
    const { db } = await this.ready;
    if (!this.release) this.release = await acquireSession(db);
    const raw = (bytes: Buffer) => db.runExclusive(() => db.execProtocolRaw(bytes));
    // A half-done Parse…Sync exchange is closed first; then an open transaction is rolled back.
    const status = lastReadyStatus(await raw(syncMessage()));
    if (status !== "I") await raw(queryMessage("ROLLBACK"));
    if (this.usedNamedStatements) await raw(queryMessage("DEALLOCATE ALL"));
  }

  private releaseSession(): void {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  private enqueue(step: () => Promise<void>): void {
    this.work = this.work.then(step).catch((error: unknown) => {
      this.logger?.warn(
        { error: error instanceof Error ? error.message : String(error) },
        "embedded database: a client request failed",
      );
      this.fail("XX000", error instanceof Error ? error.message : String(error));
    });
  }
}

/**
 * Holds PGlite's transaction mutex — the one its own `query`, `exec` and `transaction` wait on — until the
 * returned function is called.
 */
function acquireSession(db: PGlite): Promise<() => void> {
  return new Promise((acquired) => {
    void db._runExclusiveTransaction(
      () =>
        new Promise<void>((release) => {
          acquired(release);
        }),
    );
  });
}
