/**
 * What a test of the composed bot (`startApp`) stands on: a PGlite database, the Ollama test server with the
 * default model, and the Telegram test server, started before the file's first test and closed after its last.
 */
import { afterAll, beforeAll } from "vitest";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";
import { startTelegramServer, type TelegramTestServer } from "../servers/telegram-server.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";

export interface AppSuite {
  database: TestDatabase;
  ollama: OllamaTestServer;
  telegram: TelegramTestServer;
}

/** Call at the top of a file; the fields are set once `beforeAll` has run. */
export function appSuite(): AppSuite {
  const suite = {} as AppSuite;
  beforeAll(async () => {
    suite.database = await createTestDatabase("pglite");
    suite.ollama = await startOllamaServer({ models: { "qwen2.5:7b": {} } });
    suite.telegram = await startTelegramServer();
  });
  afterAll(async () => {
    await suite.telegram?.close();
    await suite.ollama?.close();
    await suite.database?.dispose();
  });
  return suite;
}
