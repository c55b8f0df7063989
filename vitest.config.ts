import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
    // Two shared cores: a few workers, generous timeouts for PGlite start-up and real HTTP servers.
    pool: "forks",
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 180_000,
  },
});
