import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/config.ts";

const noFile = () => {
  throw Object.assign(new Error("missing"), { code: "ENOENT" });
};

function problemsOf(env: Record<string, string>, files: Record<string, string> = {}): string[] {
  try {
    loadConfig(env, (path) => {
      const text = files[path];
      if (text === undefined) return noFile();
      return text;
    });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("loadConfig", () => {
  it("runs with nothing configured: embedded database, one Ollama endpoint, no platforms", () => {
    const config = loadConfig({}, noFile);
    expect(config.database).toEqual({ url: undefined, dataDir: "./.briefbot" });
    expect(config.telegram).toBeUndefined();
    expect(config.slack).toBeUndefined();
    expect(config.port).toBe(3000);
    expect(config.models.endpoints).toEqual([
      { name: "default", url: "http://127.0.0.1:11434", concurrency: 1 },
    ]);
    expect(config.models.routes.briefing.model).toBe("qwen2.5:7b");
    expect(config.briefing.staleAfterMinutes).toBe(90);
    expect(config.briefing.refreshDeadlineSeconds).toBe(5);
  });

  it("reads every variable of the contract", () => {
    const config = loadConfig(
      {
        DATABASE_URL: "postgres://u:secret@db:5432/briefbot",
        BRIEFBOT_DATA_DIR: "/var/lib/briefbot",
        OLLAMA_HOST: ":11435",
        BRIEFBOT_MODEL: "llama3.1:8b",
        TELEGRAM_BOT_TOKEN: "123:abc",
        TELEGRAM_API_ROOT: "http://127.0.0.1:8081/",
        SLACK_BOT_TOKEN: "xoxb-1",
        SLACK_SIGNING_SECRET: "s3cret",
        SLACK_API_URL: "http://127.0.0.1:4010/api",
        OPEN_METEO_URL: "http://127.0.0.1:9000",
        PORT: "8080",
      },
      noFile,
    );
    expect(config.database.url).toBe("postgres://u:secret@db:5432/briefbot");
    expect(config.models.endpoints[0]?.url).toBe("http://127.0.0.1:11435");
    expect(config.models.routes.interactive.model).toBe("llama3.1:8b");
    expect(config.telegram).toEqual({
      token: "123:abc",
      apiRoot: "http://127.0.0.1:8081",
      webhookUrl: undefined,
      webhookSecret: undefined,
    });
    expect(config.slack?.apiUrl).toBe("http://127.0.0.1:4010/api/");
    expect(config.openMeteo.forecastUrl).toBe("http://127.0.0.1:9000");
    expect(config.port).toBe(8080);
  });

  it("lists every environment problem, one line each", () => {
    const problems = problemsOf({
      PORT: "eighty",
      DATABASE_URL: "mysql://x",
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
      SLACK_BOT_TOKEN: "xoxb-1",
    });
    expect(problems).toEqual([
      "DATABASE_URL: must start with postgres:// or postgresql://",
      "PORT: must be a port number",
      "SLACK_SIGNING_SECRET: required with SLACK_BOT_TOKEN in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)",
      "TELEGRAM_BOT_TOKEN: required when TELEGRAM_WEBHOOK_URL is set",
      "TELEGRAM_WEBHOOK_SECRET: required in webhook mode, so forged updates are refused",
    ]);
  });

  it("reads routes from a YAML file and names a route's unknown endpoint", () => {
    const yaml = [
      "endpoints:",
      "  - { name: gpu0, url: 'http://10.0.0.5:11434' }",
      "  - { name: gpu1, url: 'http://10.0.0.5:11435' }",
      "routes:",
      "  interactive: { endpoint: gpu0, model: 'qwen2.5:7b' }",
      "  briefing: { endpoint: gpu9, model: 'qwen2.5:7b' }",
      "  background: { endpoint: gpu1, model: 'qwen2.5:7b', fallback: gpu0 }",
    ].join("\n");
    expect(problemsOf({ BRIEFBOT_CONFIG: "/etc/briefbot.yml" }, { "/etc/briefbot.yml": yaml })).toEqual([
      'BRIEFBOT_CONFIG: routes.briefing.endpoint "gpu9" is not a defined endpoint',
    ]);
    const fixed = yaml.replace("gpu9", "gpu1");
    const config = loadConfig({ BRIEFBOT_CONFIG: "/etc/briefbot.yml" }, () => fixed);
    expect(config.models.routes.briefing.endpoint).toBe("gpu1");
    expect(config.models.routes.background.fallback).toBe("gpu0");
    expect(config.configFile).toBe("/etc/briefbot.yml");
  });

  it("reads a JSON config file with sync and briefing settings", () => {
    const json = JSON.stringify({ sync: { calendar_minutes: 5 }, briefing: { stale_after_minutes: 30 } });
    const config = loadConfig({ BRIEFBOT_CONFIG: "c.json" }, () => json);
    expect(config.sync.calendarMinutes).toBe(5);
    expect(config.sync.feedMinutes).toBe(30);
    expect(config.briefing.staleAfterMinutes).toBe(30);
    // Keys left out keep their defaults, including the refresh deadline.
    expect(config.briefing.refreshDeadlineSeconds).toBe(5);
  });

  it("reads the refresh deadline and refuses one a briefing could not sensibly wait", () => {
    const config = loadConfig(
      { BRIEFBOT_CONFIG: "c.yml" },
      () => "briefing:\n  refresh_deadline_seconds: 2.5\n",
    );
    expect(config.briefing.refreshDeadlineSeconds).toBe(2.5);
    for (const bad of ["0", "-1", "600", "soon"]) {
      expect(
        problemsOf(
          { BRIEFBOT_CONFIG: "d.yml" },
          { "d.yml": `briefing:\n  refresh_deadline_seconds: ${bad}\n` },
        )[0],
      ).toMatch(/^BRIEFBOT_CONFIG: briefing\.refresh_deadline_seconds /);
    }
  });

  it("says clearly when the file is missing, unparseable or has unknown keys", () => {
    expect(problemsOf({ BRIEFBOT_CONFIG: "/nope.yml" })).toEqual([
      "BRIEFBOT_CONFIG: cannot read /nope.yml (ENOENT)",
    ]);
    expect(problemsOf({ BRIEFBOT_CONFIG: "b.json" }, { "b.json": "{ nope" })[0]).toMatch(
      /^BRIEFBOT_CONFIG: b.json is not valid JSON/,
    );
    expect(problemsOf({ BRIEFBOT_CONFIG: "c.yml" }, { "c.yml": "colour: blue" })[0]).toMatch(
      /^BRIEFBOT_CONFIG: .*colour/,
    );
  });

  it("refuses an unusable OLLAMA_HOST", () => {
    expect(problemsOf({ OLLAMA_HOST: "http://" })).toEqual([
      'OLLAMA_HOST: "http://" is not an Ollama address (like 127.0.0.1:11434 or http://gpu0:11434)',
    ]);
  });
});
