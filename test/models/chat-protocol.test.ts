import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/core/model.ts";
import { ModelError } from "../../src/core/model.ts";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";
import { ask, eventsTool, routesFrom, singleRoute, testClient, weatherTool } from "./fixtures.ts";

let gpu0: OllamaTestServer;
beforeEach(async () => {
  gpu0 = await startOllamaServer({ models: { "qwen2.5:7b": {} } });
});
afterEach(async () => {
  await gpu0.close();
});

const withTools = (content = "weather?") => ({
  ...ask("interactive", content),
  tools: [weatherTool, eventsTool],
});

describe("tool calls", () => {
  it("reads tool calls sent in a done:false chunk (template path)", async () => {
    gpu0.script("qwen2.5:7b", {
      toolCalls: [{ name: "get_weather", arguments: { city: "Toronto" } }],
      toolCallsIn: "chunk",
    });
    const { client } = testClient(singleRoute(gpu0.url));

    const result = await client.chat(withTools());

    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]?.function).toEqual({
      index: 0,
      name: "get_weather",
      arguments: { city: "Toronto" },
    });
    expect(result.toolCalls[0]?.id).toMatch(/^call_[a-z0-9]{8}$/);
    expect(result.recoveredToolCalls).toBe(false);
  });

  it("reads parallel tool calls sent only on the final done chunk (llama-server path)", async () => {
    gpu0.script("qwen2.5:7b", {
      content: "Checking both.",
      toolCalls: [
        { name: "get_weather", arguments: { city: "Oslo" }, id: "call_aaaaaaaa" },
        { name: "list_events", arguments: { day: "2025-06-01" }, id: "call_bbbbbbbb" },
      ],
      toolCallsIn: "final",
    });
    const { client } = testClient(singleRoute(gpu0.url));

    const result = await client.chat(withTools());

    expect(result.content).toBe("Checking both.");
    expect(result.toolCalls.map((call) => [call.id, call.function.index, call.function.name])).toEqual([
      ["call_aaaaaaaa", 0, "get_weather"],
      ["call_bbbbbbbb", 1, "list_events"],
    ]);
  });

  it("sends tool results with tool_name and tool_call_id, and echoes the call id on the assistant turn", async () => {
    const { client } = testClient(singleRoute(gpu0.url));
    const messages: ChatMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_k3j4h5g6", function: { index: 0, name: "get_weather", arguments: { city: "Oslo" } } },
        ],
      },
      {
        role: "tool",
        content: "11 degrees celsius",
        tool_name: "get_weather",
        tool_call_id: "call_k3j4h5g6",
      },
    ];

    await client.chat({ role: "interactive", messages, tools: [weatherTool] });

    const sent = gpu0.chatRequests()[0];
    expect(sent?.messages[3]).toEqual({
      role: "tool",
      content: "11 degrees celsius",
      tool_name: "get_weather",
      tool_call_id: "call_k3j4h5g6",
    });
    expect(sent?.messages[2]?.tool_calls).toEqual([
      { id: "call_k3j4h5g6", function: { index: 0, name: "get_weather", arguments: { city: "Oslo" } } },
    ]);
    expect(sent?.tools).toEqual([weatherTool]);
    expect(sent?.stream).toBe(true);
  });

  it.each([
    ["bare JSON", '{"name": "get_weather", "arguments": {"city": "Oslo"}}', ""],
    ["parameters key", '{"name":"get_weather","parameters":{"city":"Oslo"}}', ""],
    [
      "<tool_call> tags",
      'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
      "Let me check.",
    ],
    ["a json fence", '```json\n{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}\n```', ""],
    ["an array", '[{"name": "get_weather", "arguments": {"city": "Oslo"}}]', ""],
  ])("recovers a tool call written as text (%s)", async (_label, content, remaining) => {
    gpu0.script("qwen2.5:7b", { content });
    const { client } = testClient(singleRoute(gpu0.url));

    const result = await client.chat(withTools());

    expect(result.recoveredToolCalls).toBe(true);
    expect(result.toolCalls.map((call) => call.function)).toEqual([
      { index: 0, name: "get_weather", arguments: { city: "Oslo" } },
    ]);
    expect(result.content).toBe(remaining);
  });

  it("keeps only offered names when recovering several text calls", async () => {
    gpu0.script("qwen2.5:7b", {
      content:
        '[{"name":"delete_everything","arguments":{}},{"name":"list_events","arguments":{"day":"today"}}]',
    });
    const { client } = testClient(singleRoute(gpu0.url));
    const result = await client.chat(withTools());
    expect(result.toolCalls.map((call) => call.function.name)).toEqual(["list_events"]);
  });

  it.each([
    ["a name that was not offered", '{"name": "send_email", "arguments": {"to": "boss"}}', true],
    [
      "JSON quoted inside prose",
      'You could call {"name": "get_weather", "arguments": {"city": "Oslo"}} later.',
      true,
    ],
    ["a reply when no tools were offered", '{"name": "get_weather", "arguments": {"city": "Oslo"}}', false],
  ])("does not recover %s", async (_label, content, offerTools) => {
    gpu0.script("qwen2.5:7b", { content });
    const { client } = testClient(singleRoute(gpu0.url));

    const result = await client.chat(offerTools ? withTools() : ask("interactive"));

    expect(result.toolCalls).toEqual([]);
    expect(result.recoveredToolCalls).toBe(false);
    expect(result.content).toBe(content);
  });
});

describe("request options", () => {
  it("always sends the route's num_ctx and keep_alive, on chats and on warm-up", async () => {
    const route = { endpoint: "gpu0", model: "qwen2.5:7b", num_ctx: 16384, keep_alive: "30m" };
    const { client } = testClient(
      routesFrom({
        endpoints: [{ name: "gpu0", url: gpu0.url }],
        routes: {
          interactive: route,
          briefing: route,
          background: { endpoint: "gpu0", model: "qwen2.5:7b" },
        },
      }),
    );

    await client.warm("briefing");
    await client.chat(ask("interactive"));
    await client.chat(withTools());
    await client.chat(ask("background"));

    const sent = gpu0.chatRequests();
    expect(sent.map((body) => body.options?.num_ctx)).toEqual([16384, 16384, 16384, 8192]);
    expect(sent.map((body) => body.keep_alive)).toEqual(["30m", "30m", "30m", undefined]);
    expect(sent[0]?.messages).toEqual([]);
    expect(gpu0.loadedModels()).toEqual([expect.objectContaining({ name: "qwen2.5:7b", numCtx: 8192 })]);
  });

  it("streams content fragments to onToken and reports the server's counts", async () => {
    gpu0.script("qwen2.5:7b", { content: "No events today.", evalCount: 5 });
    const { client } = testClient(singleRoute(gpu0.url));
    const fragments: string[] = [];

    const result = await client.chat({
      ...ask("interactive"),
      onToken: (fragment) => fragments.push(fragment),
    });

    expect(fragments).toEqual(["No", " events", " today."]);
    expect(result.content).toBe("No events today.");
    expect(result.evalCount).toBe(5);
    expect(result.promptEvalCount).toBeGreaterThan(0);
  });
});

describe("silent context truncation", () => {
  const longHistory = (): ChatMessage[] => [
    { role: "system", content: "You write briefings." },
    ...Array.from(
      { length: 12 },
      (_, index): ChatMessage => ({
        role: "tool",
        content: `result ${index}: ${"lorem ipsum dolor sit amet ".repeat(40)}`,
        tool_name: "list_events",
      }),
    ),
    { role: "user", content: "summarise" },
  ];

  it("is detected when the server evaluated about half of an overlong prompt", async () => {
    const route = { endpoint: "gpu0", model: "qwen2.5:7b", num_ctx: 1024 };
    const { client } = testClient(
      routesFrom({
        endpoints: [{ name: "gpu0", url: gpu0.url }],
        routes: { interactive: route, briefing: route, background: route },
      }),
    );

    const failure = await client
      .chat({ role: "briefing", messages: longHistory() })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).code).toBe("CONTEXT_TRUNCATED");
    expect((failure as ModelError).message).toContain("evaluated 514 prompt tokens");
  });

  it("is detected from a scripted low prompt_eval_count", async () => {
    gpu0.script("qwen2.5:7b", { content: "fine", promptEvalCount: 300 });
    const { client } = testClient(singleRoute(gpu0.url));
    await expect(client.chat({ role: "briefing", messages: longHistory() })).rejects.toMatchObject({
      code: "CONTEXT_TRUNCATED",
    });
  });

  it("is not reported when the whole prompt fits", async () => {
    const { client } = testClient(singleRoute(gpu0.url));
    const result = await client.chat({ role: "briefing", messages: longHistory() });
    expect(result.content).toBe("Hello from qwen2.5:7b.");
  });
});
