/** Secrets from files (`NAME_FILE`), as Docker and Kubernetes secrets deliver them. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/config.ts";

const files: Record<string, string> = {
  "/run/secrets/telegram": "123456:from-a-file\n",
  "/run/secrets/database": "postgres://briefbot:p%40ss@postgres:5432/briefbot\n",
};
const readFile = (path: string) => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error("missing"), { code: "ENOENT" });
  return text;
};

describe("secrets from files", () => {
  it("reads NAME_FILE into NAME, without the trailing newline", () => {
    const config = loadConfig(
      { TELEGRAM_BOT_TOKEN_FILE: "/run/secrets/telegram", DATABASE_URL_FILE: "/run/secrets/database" },
      readFile,
    );
    expect(config.telegram?.token).toBe("123456:from-a-file");
    expect(config.database.url).toBe("postgres://briefbot:p%40ss@postgres:5432/briefbot");
  });

  it("names an unreadable file and a variable set both ways, one line each", () => {
    let problems: string[] = [];
    try {
      loadConfig(
        {
          SLACK_BOT_TOKEN_FILE: "/run/secrets/nope",
          TELEGRAM_BOT_TOKEN: "1:x",
          TELEGRAM_BOT_TOKEN_FILE: "/run/secrets/telegram",
        },
        readFile,
      );
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems).toEqual([
      "TELEGRAM_BOT_TOKEN_FILE: set TELEGRAM_BOT_TOKEN or TELEGRAM_BOT_TOKEN_FILE, not both",
      "SLACK_BOT_TOKEN_FILE: cannot read /run/secrets/nope (ENOENT)",
    ]);
  });
});
