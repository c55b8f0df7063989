import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestUser, describeInMemory, getRun } from "../helpers/test-store.ts";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";
import { LONDON, MODEL, modelClientFor, seedTasks, seedWeather, testCore } from "./fixture.ts";

const LARGE = "qwen2.5:14b";
const SMALL = "llama3.2:3b";

let server: OllamaTestServer;
beforeAll(async () => {
  server = await startOllamaServer({
    models: { [MODEL]: {}, [LARGE]: { parameterSize: "14.8B" }, [SMALL]: { parameterSize: "3.2B" } },
  });
});
afterAll(async () => {
  await server.close();
});

const PROSE = '"Renew passport" is due at 14:30 and "File expenses" is overdue.';

// Over the HTTP server: the preferred model must reach the wire, and its own capabilities decide the mode.
describeInMemory("a user's preferred model", (getStore) => {
  async function userPreferring(preferredModel: string | null) {
    const store = getStore();
    const user = await createTestUser(store, { ...LONDON, preferredModel });
    await seedTasks(store, user);
    await seedWeather(store);
    return { store, user };
  }

  it("is the model every briefing request asks for, and the one the run records", async () => {
    const { store, user } = await userPreferring(LARGE);
    const routeBefore = server.chatRequests(MODEL).length;
    server.script(LARGE, [{ content: PROSE }]);

    const outcome = await testCore(store, modelClientFor(server.url)).assistant.brief(user.id, {
      slot: "morning",
    });

    expect(outcome.mode).toBe("agentic");
    expect(outcome.prose).toBe(PROSE);
    expect(server.chatRequests(MODEL)).toHaveLength(routeBefore);
    expect((await getRun(store, outcome.runId))?.model).toBe(LARGE);
  });

  it("is checked for agentic capability: a 3B preferred model gives a legacy briefing", async () => {
    const { store, user } = await userPreferring(SMALL);
    const before = server.chatRequests(SMALL).length;
    server.script(SMALL, { content: PROSE });

    const outcome = await testCore(store, modelClientFor(server.url)).assistant.brief(user.id, {
      slot: "morning",
    });

    expect(outcome.mode).toBe("legacy");
    const requests = server.chatRequests(SMALL).slice(before);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.tools).toBeUndefined();
    expect((await getRun(store, outcome.runId))?.reason).toMatch(/llama3\.2:3b has 3\.2B parameters/);
  });

  it("answers chat", async () => {
    const { store, user } = await userPreferring(LARGE);
    const { assistant } = testCore(store, modelClientFor(server.url));
    server.script(LARGE, { content: "Hello." });
    const before = server.chatRequests(LARGE).length;

    const reply = await assistant.reply(user.id, { platform: "telegram", threadKey: `tg:${user.id}` }, "hi");

    expect(reply.text).toBe("Hello.");
    expect(server.chatRequests(LARGE).slice(before)).toHaveLength(1);
  });

  it("leaves the route's model in place when unset", async () => {
    const { store, user } = await userPreferring(null);
    const before = server.chatRequests(MODEL).length;
    server.script(MODEL, [{ content: PROSE }]);

    const outcome = await testCore(store, modelClientFor(server.url)).assistant.brief(user.id, {
      slot: "morning",
    });

    expect(server.chatRequests(MODEL).length).toBeGreaterThan(before);
    expect((await getRun(store, outcome.runId))?.model).toBe(MODEL);
  });
});
