import { Ollama } from "ollama";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OllamaTestServer, startOllamaServer } from "./ollama-server.ts";

let server: OllamaTestServer;
let ollama: Ollama;
beforeEach(async () => {
  server = await startOllamaServer({
    models: {
      "qwen2.5:7b": {},
      "llama3:8b": { capabilities: ["completion"], architecture: "llama", contextLength: 8192 },
    },
  });
  ollama = new Ollama({ host: server.url });
});
afterEach(async () => {
  await server.close();
});

describe("the fake Ollama server, through the official client", () => {
  it("answers non-streaming chats with concatenated content, tool calls and nanosecond timings", async () => {
    server.script("qwen2.5:7b", {
      content: "Checking.",
      toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }],
      latency: { timeToFirstTokenMs: 5 },
    });
    const response = await ollama.chat({
      model: "qwen2.5:7b",
      messages: [{ role: "user", content: "weather?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
    });
    expect(response.message.content).toBe("Checking.");
    expect(response.message.tool_calls?.[0]?.function).toMatchObject({ name: "get_weather", index: 0 });
    expect(response.done_reason).toBe("stop");
    expect(response.prompt_eval_duration).toBeGreaterThanOrEqual(5_000_000);
    expect(response.total_duration).toBeGreaterThanOrEqual(response.prompt_eval_duration);
  });

  it("streams NDJSON that ends with a done chunk carrying the metrics", async () => {
    const stream = await ollama.chat({
      model: "qwen2.5:7b",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.message.content)).toEqual(["Hello", " from", " qwen2.5:7b.", ""]);
    expect(chunks.slice(0, -1).every((chunk) => !chunk.done && chunk.eval_count === undefined)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ done: true, done_reason: "stop", eval_count: 3 });
  });

  it("sends real status codes with JSON error bodies", async () => {
    type Failure = Error & { status_code?: number };
    const failure = (promise: Promise<unknown>): Promise<Failure> =>
      promise.then(
        () => new Error("expected a failure"),
        (error: unknown) => error as Failure,
      );
    const unknown = await failure(ollama.chat({ model: "nope", messages: [] }));
    expect([unknown.name, unknown.status_code, unknown.message]).toEqual([
      "ResponseError",
      404,
      "model 'nope' not found",
    ]);
    const toolless = await failure(
      ollama.chat({
        model: "llama3:8b",
        messages: [{ role: "user", content: "x" }],
        tools: [{ type: "function", function: { name: "t" } }],
      }),
    );
    expect([toolless.status_code, toolless.message]).toEqual([
      400,
      "registry.ollama.ai/library/llama3:8b does not support tools",
    ]);
    server.script("qwen2.5:7b", {
      error: { status: 503, message: "server busy, please try again.  maximum pending requests exceeded" },
    });
    const busy = await failure(
      ollama.chat({ model: "qwen2.5:7b", messages: [{ role: "user", content: "x" }] }),
    );
    expect([busy.status_code, busy.message]).toEqual([
      503,
      "server busy, please try again.  maximum pending requests exceeded",
    ]);
  });

  it("describes models on /api/show, /api/tags, /api/ps, /api/version and /", async () => {
    const show = (await ollama.show({ model: "llama3:8b" })) as unknown as Record<string, unknown>;
    expect(show.capabilities).toEqual(["completion"]);
    expect(show.model_info).toMatchObject({ "general.architecture": "llama", "llama.context_length": 8192 });
    expect((await ollama.list()).models.map((model) => model.name)).toEqual(["qwen2.5:7b", "llama3:8b"]);
    await ollama.chat({ model: "qwen2.5:7b", messages: [], keep_alive: -1, options: { num_ctx: 2048 } });
    const ps = (await ollama.ps()).models as unknown as Array<Record<string, unknown>>;
    expect(ps).toEqual([
      expect.objectContaining({
        name: "qwen2.5:7b",
        context_length: 2048,
        expires_at: "2318-01-01T00:00:00.000Z",
      }),
    ]);
    expect((await ollama.version()).version).toBe("0.12.10");
    expect(await (await fetch(server.url)).text()).toBe("Ollama is running");
  });
});
