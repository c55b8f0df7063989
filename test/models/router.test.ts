import { afterEach, describe, expect, it } from "vitest";
import { ModelError } from "../../src/core/model.ts";
import {
  createGate,
  type OllamaTestServer,
  refusedUrl,
  startOllamaServer,
} from "../servers/ollama-server.ts";
import { ask, routesFrom, singleRoute, testClient, until } from "./fixtures.ts";

const servers: OllamaTestServer[] = [];
async function server(models: Record<string, object> = { "qwen2.5:7b": {} }) {
  const started = await startOllamaServer({ models });
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((started) => started.close()));
});

const lastUserText = (body: { messages: Array<{ content?: unknown }> }) =>
  String(body.messages.at(-1)?.content);

describe("routing by role", () => {
  it("sends each role to its endpoint and model", async () => {
    const gpu0 = await server({ "qwen2.5:7b": {} });
    const gpu1 = await server({ "qwen2.5:14b": {}, "qwen2.5:3b": {} });
    const { client } = testClient(
      routesFrom({
        endpoints: [
          { name: "gpu0", url: gpu0.url },
          { name: "gpu1", url: gpu1.url },
        ],
        routes: {
          interactive: { endpoint: "gpu0", model: "qwen2.5:7b" },
          briefing: { endpoint: "gpu1", model: "qwen2.5:14b" },
          background: { endpoint: "gpu1", model: "qwen2.5:3b" },
        },
      }),
    );

    const chat = await client.chat(ask("interactive", "question"));
    const briefing = await client.chat(ask("briefing", "morning"));
    const background = await client.chat(ask("background", "title"));

    expect([chat.endpoint, chat.model]).toEqual(["gpu0", "qwen2.5:7b"]);
    expect([briefing.endpoint, briefing.model]).toEqual(["gpu1", "qwen2.5:14b"]);
    expect([background.endpoint, background.model]).toEqual(["gpu1", "qwen2.5:3b"]);
    expect(gpu0.chatRequests().map(lastUserText)).toEqual(["question"]);
    expect(gpu1.chatRequests().map((body) => `${body.model}:${lastUserText(body)}`)).toEqual([
      "qwen2.5:14b:morning",
      "qwen2.5:3b:title",
    ]);
    expect(chat.content).toBe("Hello from qwen2.5:7b.");
  });
});

describe("per-endpoint queue", () => {
  it("lets interactive work overtake queued background work without preempting the running request", async () => {
    const gpu0 = await server();
    const gate = createGate();
    gpu0.script("qwen2.5:7b", { content: "first background done", waitFor: gate.promise });
    const { client } = testClient(singleRoute(gpu0.url));

    const running = client.chat(ask("background", "background 1"));
    await until(() => gpu0.events.some((event) => event.type === "started"), "background 1 to start");
    const queuedBackground = client.chat(ask("background", "background 2"));
    const queuedBriefing = client.chat(ask("briefing", "briefing 1"));
    const interactive = client.chat(ask("interactive", "question"));
    await until(() => client.stats()[0]?.queued === 3, "three queued requests");
    expect(client.stats()[0]?.queuedByRole).toEqual({ interactive: 1, briefing: 1, background: 1 });

    gate.open();
    const results = await Promise.all([running, queuedBackground, queuedBriefing, interactive]);

    expect(results[0].content).toBe("first background done");
    expect(gpu0.chatRequests().map(lastUserText)).toEqual([
      "background 1",
      "question",
      "background 2",
      "briefing 1",
    ]);
    // Never preempted: the server finished the running request before the question arrived.
    const firstFinished = gpu0.events.findIndex((event) => event.type === "finished" && event.request === 0);
    const questionReceived = gpu0.events.findIndex(
      (event) => event.type === "received" && event.request === 1,
    );
    expect(firstFinished).toBeGreaterThanOrEqual(0);
    expect(firstFinished).toBeLessThan(questionReceived);
    const stats = client.stats()[0];
    expect(stats?.waits.count).toBe(4);
    expect(stats?.queued).toBe(0);
    expect(stats?.running).toBe(0);
  });

  it("does not delay a chat on endpoint A while a briefing runs on endpoint B", async () => {
    const gpu0 = await server();
    const gpu1 = await server();
    const gate = createGate();
    gpu1.script("qwen2.5:7b", { content: "long briefing", waitFor: gate.promise });
    const { client, events } = testClient(
      routesFrom({
        endpoints: [
          { name: "gpu0", url: gpu0.url },
          { name: "gpu1", url: gpu1.url },
        ],
        routes: {
          interactive: { endpoint: "gpu0", model: "qwen2.5:7b" },
          briefing: { endpoint: "gpu1", model: "qwen2.5:7b" },
          background: { endpoint: "gpu1", model: "qwen2.5:7b" },
        },
      }),
    );

    let briefingDone = false;
    const briefing = client.chat(ask("briefing", "morning")).then((result) => {
      briefingDone = true;
      return result;
    });
    await until(() => gpu1.events.some((event) => event.type === "started"), "briefing to start on gpu1");

    const chat = await client.chat(ask("interactive", "quick question"));

    expect(chat.endpoint).toBe("gpu0");
    expect(briefingDone).toBe(false);
    expect(gpu1.events.some((event) => event.type === "finished")).toBe(false);
    const chatStarted = events.find((event) => event.type === "started" && event.role === "interactive");
    expect(chatStarted).toMatchObject({ endpoint: "gpu0" });
    gate.open();
    expect((await briefing).content).toBe("long briefing");
  });

  it("removes a request from the queue when its caller aborts, without sending it", async () => {
    const gpu0 = await server();
    const gate = createGate();
    gpu0.script("qwen2.5:7b", { content: "done", waitFor: gate.promise });
    const { client } = testClient(singleRoute(gpu0.url));
    const running = client.chat(ask("briefing", "running"));
    await until(() => gpu0.events.some((event) => event.type === "started"), "first request to start");
    const controller = new AbortController();
    const abandoned = client.chat({ ...ask("interactive", "never mind"), signal: controller.signal });
    await until(() => client.stats()[0]?.queued === 1, "the question to queue");

    controller.abort(new Error("user left"));

    await expect(abandoned).rejects.toThrow("user left");
    expect(client.stats()[0]?.queued).toBe(0);
    gate.open();
    await running;
    expect(gpu0.chatRequests().map(lastUserText)).toEqual(["running"]);
  });
});

describe("recovery", () => {
  it("retries a 500 with backoff, then succeeds", async () => {
    const gpu0 = await server();
    gpu0.script("qwen2.5:7b", [
      { error: { status: 500, message: "llama runner process has terminated: exit status 2" } },
      {
        error: { status: 503, message: "server busy, please try again.  maximum pending requests exceeded" },
      },
      { content: "warm now" },
    ]);
    const { client, sleeps, events } = testClient(singleRoute(gpu0.url));

    const result = await client.chat(ask("briefing"));

    expect(result.content).toBe("warm now");
    expect(gpu0.chatRequests()).toHaveLength(3);
    expect(sleeps).toEqual([100, 200]);
    expect(
      events.filter((event) => event.type === "retry").map((event) => event.type === "retry" && event.error),
    ).toEqual([
      "HTTP 500 llama runner process has terminated: exit status 2",
      "HTTP 503 server busy, please try again.  maximum pending requests exceeded",
    ]);
  });

  it("retries a dropped connection", async () => {
    const gpu0 = await server();
    gpu0.script("qwen2.5:7b", [{ dropConnection: true }, { content: "back" }]);
    const { client, sleeps } = testClient(singleRoute(gpu0.url));
    expect((await client.chat(ask("interactive"))).content).toBe("back");
    expect(sleeps).toEqual([100]);
  });

  it.each([
    [400, "registry.ollama.ai/library/qwen2.5:7b does not support thinking"],
    [404, "model 'qwen2.5:7b' not found"],
  ])("does not retry a %i", async (status, message) => {
    const gpu0 = await server();
    gpu0.script("qwen2.5:7b", { error: { status, message } });
    const { client, sleeps } = testClient(singleRoute(gpu0.url));

    const failure = await client.chat(ask("briefing")).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).code).toBe("MODEL_REJECTED");
    expect((failure as ModelError).message).toContain(message);
    expect(gpu0.chatRequests()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("reports a model the server does not have as rejected (real 404 path), even with a fallback", async () => {
    const gpu0 = await server({ "other:1b": {} });
    const gpu1 = await server();
    const route = { endpoint: "gpu0", model: "qwen2.5:7b", fallback: "gpu1" };
    const { client } = testClient(
      routesFrom({
        endpoints: [
          { name: "gpu0", url: gpu0.url },
          { name: "gpu1", url: gpu1.url },
        ],
        routes: { interactive: route, briefing: route, background: route },
      }),
    );
    await expect(client.chat(ask("interactive"))).rejects.toMatchObject({
      code: "MODEL_REJECTED",
      message: expect.stringContaining("404 model 'qwen2.5:7b' not found"),
    });
    expect(gpu1.chatRequests()).toHaveLength(0);
  });

  it("uses the route's fallback endpoint when the primary refuses connections", async () => {
    const gpu1 = await server();
    const down = await refusedUrl();
    const route = { endpoint: "gpu0", model: "qwen2.5:7b", fallback: "gpu1" };
    const { client, events, sleeps } = testClient(
      routesFrom({
        endpoints: [
          { name: "gpu0", url: down },
          { name: "gpu1", url: gpu1.url },
        ],
        routes: { interactive: route, briefing: route, background: route },
      }),
    );

    const result = await client.chat(ask("briefing", "morning"));

    expect(result.endpoint).toBe("gpu1");
    expect(gpu1.chatRequests().map(lastUserText)).toEqual(["morning"]);
    expect(sleeps).toEqual([100, 200]);
    expect(events).toContainEqual({
      type: "fallback",
      role: "briefing",
      from: "gpu0",
      to: "gpu1",
      model: "qwen2.5:7b",
    });
  });

  it("never spills background work onto the interactive endpoint without a fallback", async () => {
    const gpu0 = await server();
    const { client } = testClient(
      routesFrom({
        endpoints: [
          { name: "gpu0", url: gpu0.url },
          { name: "gpu1", url: await refusedUrl() },
        ],
        routes: {
          interactive: { endpoint: "gpu0", model: "qwen2.5:7b" },
          briefing: { endpoint: "gpu1", model: "qwen2.5:7b" },
          background: { endpoint: "gpu1", model: "qwen2.5:7b" },
        },
      }),
    );
    await expect(client.chat(ask("background"))).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE" });
    expect(gpu0.chatRequests()).toHaveLength(0);
  });

  it("gives MODEL_UNAVAILABLE when the endpoint stays down and there is no fallback", async () => {
    const { client } = testClient(singleRoute(await refusedUrl()));
    const failure = await client.chat(ask("briefing")).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).code).toBe("MODEL_UNAVAILABLE");
    expect((failure as ModelError).message).toMatch(/gpu0: fetch failed.*ECONNREFUSED/);
  });

  it("surfaces a mid-stream error line as an error, without retrying", async () => {
    const gpu0 = await server();
    gpu0.script("qwen2.5:7b", {
      content: "The weather today",
      midStreamError: "model runner has unexpectedly stopped, this may be due to resource limitations",
    });
    const { client, sleeps } = testClient(singleRoute(gpu0.url));
    const fragments: string[] = [];

    const failure = await client
      .chat({ ...ask("interactive"), onToken: (fragment) => fragments.push(fragment) })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).code).toBe("MODEL_UNAVAILABLE");
    expect((failure as ModelError).message).toContain(
      "failed mid-stream: model runner has unexpectedly stopped",
    );
    expect(fragments.join("")).toBe("The weather today");
    expect(gpu0.chatRequests()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("aborts a request that stalls before the first chunk and tries the fallback", async () => {
    const gpu0 = await server();
    const gpu1 = await server();
    gpu0.script("qwen2.5:7b", { stallMs: 60_000 });
    const route = { endpoint: "gpu0", model: "qwen2.5:7b", fallback: "gpu1" };
    const { client, sleeps } = testClient(
      routesFrom({
        endpoints: [
          { name: "gpu0", url: gpu0.url },
          { name: "gpu1", url: gpu1.url },
        ],
        routes: { interactive: route, briefing: route, background: route },
      }),
      { stallTimeoutMs: 1500 },
    );

    const result = await client.chat(ask("interactive"));

    expect(result.endpoint).toBe("gpu1");
    expect(sleeps).toEqual([]);
    await until(() => gpu0.events.some((event) => event.type === "disconnected"), "gpu0 to see the abort");
  });

  it("aborts a stream that goes silent mid-answer", async () => {
    const gpu0 = await server();
    gpu0.script("qwen2.5:7b", { content: "one two three", stallMs: 60_000, stallAfterTokens: 1 });
    const { client } = testClient(singleRoute(gpu0.url), { stallTimeoutMs: 1500 });
    const fragments: string[] = [];

    const failure = await client
      .chat({ ...ask("interactive"), onToken: (fragment) => fragments.push(fragment) })
      .catch((error: unknown) => error);

    expect((failure as ModelError).code).toBe("MODEL_UNAVAILABLE");
    expect((failure as ModelError).message).toContain("no data from Ollama for 1500 ms");
    expect(fragments).toEqual(["one"]);
    expect(gpu0.chatRequests()).toHaveLength(1);
  });
});

describe("work-conserving routing", () => {
  const spreadRoutes = (gpu0: string, gpu1: string) =>
    routesFrom({
      endpoints: [
        { name: "gpu0", url: gpu0 },
        { name: "gpu1", url: gpu1 },
      ],
      routes: {
        interactive: { endpoint: "gpu0", model: "qwen2.5:7b" },
        briefing: { endpoints: ["gpu1", "gpu0"], model: "qwen2.5:7b" },
        background: { endpoint: "gpu1", model: "qwen2.5:7b" },
      },
    });

  it("spreads many due briefings over both endpoints while a question waits behind at most one", async () => {
    const latency = { timeToFirstTokenMs: 15, perTokenMs: 1 };
    const gpu0 = await startOllamaServer({ models: { "qwen2.5:7b": {} }, latency });
    const gpu1 = await startOllamaServer({ models: { "qwen2.5:7b": {} }, latency });
    servers.push(gpu0, gpu1);
    const { client, events } = testClient(spreadRoutes(gpu0.url, gpu1.url));

    const briefings = Array.from({ length: 40 }, (_, index) =>
      client.chat(ask("briefing", `briefing ${index}`)),
    );
    const questions: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const before = gpu0.chatRequests().filter((body) => lastUserText(body).startsWith("briefing")).length;
      await until(
        () => gpu0.chatRequests().filter((body) => lastUserText(body).startsWith("briefing")).length > before,
        "a briefing to run on the chat endpoint",
      );
      const answer = await client.chat(ask("interactive", `question ${index}`));
      expect(answer.endpoint).toBe("gpu0");
      questions.push(answer.content);
    }
    const results = await Promise.all(briefings);

    const briefingsOn = (server: OllamaTestServer) =>
      server.chatRequests().filter((body) => lastUserText(body).startsWith("briefing")).length;
    expect(briefingsOn(gpu0)).toBeGreaterThan(0);
    expect(briefingsOn(gpu1)).toBeGreaterThan(0);
    expect(briefingsOn(gpu0) + briefingsOn(gpu1)).toBe(40);
    expect(new Set(results.map((result) => result.endpoint))).toEqual(new Set(["gpu0", "gpu1"]));
    expect(gpu1.chatRequests().some((body) => lastUserText(body).startsWith("question"))).toBe(false);

    // From the router's own event order: when each question queued, at most one briefing held gpu0, and
    // none started there until the question did.
    const onGpu0 = (type: string) => (event: (typeof events)[number]) =>
      event.type === type && event.role === "briefing" && "endpoint" in event && event.endpoint === "gpu0";
    const queuedAt = events.flatMap((event, index) =>
      event.type === "queued" && event.role === "interactive" ? [index] : [],
    );
    const startedAt = events.flatMap((event, index) =>
      event.type === "started" && event.role === "interactive" ? [index] : [],
    );
    expect(queuedAt).toHaveLength(3);
    for (const [question, queued] of queuedAt.entries()) {
      const started = startedAt[question] ?? -1;
      const before = events.slice(0, queued);
      const running = before.filter(onGpu0("started")).length - before.filter(onGpu0("finished")).length;
      expect(running).toBeLessThanOrEqual(1);
      expect(events.slice(queued, started).filter(onGpu0("started"))).toEqual([]);
    }
    const stats = client.stats();
    expect(stats.find((entry) => entry.endpoint === "gpu0")?.spilledIn.briefing).toBe(briefingsOn(gpu0));
    expect(stats.every((entry) => entry.busyMsByRole.briefing > 0)).toBe(true);
  });

  it("sends a briefing's next turn back to the endpoint that has its prompt, when that one is free", async () => {
    const gpu0 = await server();
    const gpu1 = await server();
    const gate = createGate();
    gpu1.script("qwen2.5:7b", { content: "someone else's briefing", waitFor: gate.promise });
    const { client } = testClient(spreadRoutes(gpu0.url, gpu1.url));
    const occupying = client.chat(ask("briefing", "other user"));
    await until(() => gpu1.events.some((event) => event.type === "started"), "gpu1 to be busy");
    const opening = [
      { role: "system" as const, content: "You are the user's assistant giving their morning briefing." },
      { role: "user" as const, content: "Generate the morning briefing." },
    ];
    const first = await client.chat({ role: "briefing", messages: opening });
    gate.open();
    await occupying;
    const second = await client.chat({
      role: "briefing",
      messages: [
        ...opening,
        { role: "assistant", content: first.content },
        { role: "user", content: "go on" },
      ],
    });
    expect([first.endpoint, second.endpoint]).toEqual(["gpu0", "gpu0"]);
  });

  it("keeps a user's preferred model on the route's own endpoint", async () => {
    const gpu0 = await server({ "qwen2.5:7b": {}, "llama3.1:8b": {} });
    const gpu1 = await server({ "qwen2.5:7b": {}, "llama3.1:8b": {} });
    const gate = createGate();
    gpu1.script("llama3.1:8b", { content: "first", waitFor: gate.promise });
    const { client } = testClient(spreadRoutes(gpu0.url, gpu1.url));
    const first = client.chat({ ...ask("briefing", "one"), model: "llama3.1:8b" });
    await until(() => gpu1.events.some((event) => event.type === "started"), "the first to start");
    const second = client.chat({ ...ask("briefing", "two"), model: "llama3.1:8b" });
    await until(() => client.stats()[1]?.queued === 1, "the second to queue for gpu1");
    gate.open();
    expect((await Promise.all([first, second])).map((result) => result.endpoint)).toEqual(["gpu1", "gpu1"]);
    expect(gpu0.chatRequests()).toHaveLength(0);
  });

  it("moves spread work to the route's other endpoint when one refuses, and avoids it for a while", async () => {
    const gpu0 = await server();
    const { client, events, sleeps } = testClient(spreadRoutes(gpu0.url, await refusedUrl()));
    const first = await client.chat(ask("briefing", "first"));
    const second = await client.chat(ask("briefing", "second"));
    expect([first.endpoint, second.endpoint]).toEqual(["gpu0", "gpu0"]);
    // Only the first paid for the retries on gpu1.
    expect(sleeps).toEqual([100, 200]);
    expect(events).toContainEqual({
      type: "fallback",
      role: "briefing",
      from: "gpu1",
      to: "gpu0",
      model: "qwen2.5:7b",
    });
    expect(client.stats().find((entry) => entry.endpoint === "gpu1")?.down).toBe(true);
  });
});
