/**
 * A real Radicale (Debian package `radicale`, 3.1) on a free loopback port, with a throwaway storage
 * folder and htpasswd auth, for the CalDAV tests and the bench. Radicale is the server; the helpers here
 * play "another client" (Nextcloud Tasks, Thunderbird) changing things behind the bot's back with plain
 * HTTP, and a counting proxy in front shows what the bot sent.
 *
 * ```ts
 * const radicale = await startRadicale({ users: { ann: "secret" } });
 * await radicale.makeCalendar("ann", "tasks", { name: "Tasks", components: ["VTODO"] });
 * await radicale.put("ann", "tasks", "a.ics", icsText);
 * radicale.proxy.requests;   // what went through the proxy at radicale.url
 * await radicale.stop();
 * ```
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CountingProxy, startCountingProxy } from "./counting-proxy.ts";

export interface Radicale {
  /** The proxy's address, what the bot is given: `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Radicale's own address, for requests that must not be counted. */
  directUrl: string;
  proxy: CountingProxy;
  /** The storage folder (`collection-root/<user>/<collection>/<file>.ics`). */
  storage: string;
  makeCalendar(user: string, collection: string, options: CalendarOptions): Promise<void>;
  /** PUT as another client would; resolves to the new ETag. */
  put(user: string, collection: string, file: string, body: string): Promise<string>;
  /** GET the object as stored, with its ETag; undefined when there is none. */
  get(user: string, collection: string, file: string): Promise<{ body: string; etag: string } | undefined>;
  delete(user: string, collection: string, file: string): Promise<void>;
  stop(): Promise<void>;
}

export interface CalendarOptions {
  name: string;
  components: readonly ("VEVENT" | "VTODO")[];
}

const BINARY = ["/usr/bin/radicale", "/usr/local/bin/radicale"].find((path) => existsSync(path));

/** Why the tests cannot run here, or undefined when Radicale is installed. */
export const radicaleMissing = BINARY
  ? undefined
  : "Radicale is not installed (apt-get install -y radicale; .ci/run does it)";

export async function startRadicale(options: { users: Record<string, string> }): Promise<Radicale> {
  if (!BINARY) throw new Error(radicaleMissing);
  const folder = await mkdtemp(join(tmpdir(), "briefbot-radicale-"));
  const port = await freePort();
  const htpasswd = join(folder, "users");
  // Radicale 3.1 reads "plain" htpasswd lines as user:password; a throwaway server needs nothing more.
  await writeFile(
    htpasswd,
    Object.entries(options.users)
      .map(([user, password]) => `${user}:${password}\n`)
      .join(""),
  );
  const storage = join(folder, "storage");
  const config = join(folder, "config");
  await writeFile(
    config,
    [
      "[server]",
      `hosts = 127.0.0.1:${port}`,
      "[auth]",
      "type = htpasswd",
      `htpasswd_filename = ${htpasswd}`,
      "htpasswd_encryption = plain",
      // Radicale sleeps after a failed login to slow guessing; the tests log in wrongly on purpose.
      "delay = 0",
      "[rights]",
      "type = owner_only",
      "[storage]",
      `filesystem_folder = ${storage}`,
      "[logging]",
      "level = warning",
      "",
    ].join("\n"),
  );
  const child = spawn(BINARY, ["--config", config], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  const directUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForAnswer(directUrl, child, () => stderr);
  } catch (error) {
    child.kill("SIGKILL");
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  const proxy = await startCountingProxy(port);

  const auth = (user: string) => ({
    authorization: `Basic ${Buffer.from(`${user}:${options.users[user] ?? ""}`).toString("base64")}`,
  });
  const objectUrl = (user: string, collection: string, file: string) =>
    `${directUrl}/${user}/${collection}/${file}`;

  return {
    url: proxy.url,
    directUrl,
    proxy,
    storage,
    async makeCalendar(user, collection, calendar) {
      const components = calendar.components.map((name) => `<C:comp name="${name}"/>`).join("");
      const response = await fetch(`${directUrl}/${user}/${collection}/`, {
        method: "MKCALENDAR",
        headers: { ...auth(user), "content-type": "application/xml; charset=utf-8" },
        body: `<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:set><D:prop>
    <D:displayname>${calendar.name}</D:displayname>
    <C:supported-calendar-component-set>${components}</C:supported-calendar-component-set>
  </D:prop></D:set>
</C:mkcalendar>`,
      });
      if (response.status !== 201) {
        throw new Error(`MKCALENDAR /${user}/${collection}/: ${response.status} ${await response.text()}`);
      }
    },
    async put(user, collection, file, body) {
      const response = await fetch(objectUrl(user, collection, file), {
        method: "PUT",
        headers: { ...auth(user), "content-type": "text/calendar; charset=utf-8" },
        body,
      });
      if (response.status !== 201 && response.status !== 204) {
        throw new Error(`PUT ${file}: ${response.status} ${await response.text()}`);
      }
      return response.headers.get("etag") ?? "";
    },
    async get(user, collection, file) {
      const response = await fetch(objectUrl(user, collection, file), { headers: auth(user) });
      if (response.status === 404) return undefined;
      if (response.status !== 200) throw new Error(`GET ${file}: ${response.status}`);
      return { body: await response.text(), etag: response.headers.get("etag") ?? "" };
    },
    async delete(user, collection, file) {
      const response = await fetch(objectUrl(user, collection, file), {
        method: "DELETE",
        headers: auth(user),
      });
      if (response.status !== 200 && response.status !== 204) {
        throw new Error(`DELETE ${file}: ${response.status}`);
      }
    },
    async stop() {
      await proxy.close();
      await stopChild(child);
      await rm(folder, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}

/** Polls until Radicale answers anything over HTTP; it takes about a second to import its modules. */
async function waitForAnswer(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`radicale exited (${child.exitCode}): ${stderr()}`);
    try {
      const response = await fetch(`${url}/.web/`);
      await response.body?.cancel();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`radicale did not answer at ${url} within 30 s: ${stderr()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}
