/** Todoist's refusals through the provider: rate limits waited out within a bound, a wrong token named. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AccountProvider } from "../../../../src/core/accounts/ports.ts";
import { createTodoistProvider } from "../../../../src/sources/accounts/todoist/todoist-provider.ts";
import { LOOPBACK, type TodoistFixture, todoistFixture } from "./todoist-fixture.ts";

let todoist: TodoistFixture;
let waits: number[];
let provider: AccountProvider;

beforeEach(async () => {
  waits = [];
  // The waits are recorded, and kept short so the test does not sit out Todoist's real minute.
  provider = createTodoistProvider({
    ...LOOPBACK,
    maxWaitMs: 10_000,
    sleep: async (ms) => {
      waits.push(ms);
      await new Promise((resolve) => setTimeout(resolve, 10));
    },
  });
  todoist = await todoistFixture(provider);
});
afterEach(() => todoist.server.close());

async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof Error)) throw new Error("expected the call to fail");
  return error;
}

describe("Todoist limits and refusals", () => {
  it("waits out a 429 for its Retry-After, then syncs", async () => {
    todoist.server.addTask(todoist.collection.remoteId, { content: "After the wait" });
    todoist.server.throttle(2, 4);
    const changes = await todoist.sync();
    expect(waits).toEqual([4000, 4000]);
    expect(changes.changed).toHaveLength(1);
    expect(changes.requests).toBe(3);
    expect(todoist.server.requests.map((request) => request.status)).toEqual([429, 429, 200]);
  });

  it("gives up with a clear error when Retry-After asks for more than the bound", async () => {
    todoist.server.throttle(1, 60);
    const error = await failure(todoist.sync());
    expect(waits).toEqual([]);
    expect(error.code).toBe("todoist_rate_limited");
    expect(error.message).toMatch(/rate limit.*wait 60 s/);
    expect(todoist.collection.syncState).toBeNull();
  });

  it("names the token when Todoist refuses it, without showing it", async () => {
    const error = await failure(provider.discover({ ...todoist.connection, secret: "not-the-token-4f1c9e" }));
    expect(error.code).toBe("todoist_token");
    expect(error.message).toMatch(/refused the API token while listing the projects \(401/);
    expect(error.message).not.toContain("not-the-token-4f1c9e");
  });

  it("refuses an API URL on a private network unless the operator allowed it", async () => {
    const guarded = createTodoistProvider();
    const error = await failure(guarded.discover(todoist.connection));
    expect(error.code).toBe("todoist_unreachable");
    expect(error.message).toMatch(/listing the projects: .*127\.0\.0\.1.*BRIEFBOT_CONFIG/);
    expect(todoist.server.requests).toEqual([]);
  });
});
