import { describe, expect, it } from "vitest";
import { startPeriodicSync } from "../../src/sources/periodic-sync.ts";

describe("startPeriodicSync", () => {
  it("runs at start, joins a run in progress, runs again on demand and logs failures", async () => {
    let runs = 0;
    const warnings: object[] = [];
    const loop = startPeriodicSync({
      name: "test",
      intervalMs: 60 * 60_000,
      logger: { info: () => {}, warn: (details) => warnings.push(details) },
      run: async () => {
        runs++;
        if (runs === 2) throw new Error("boom");
      },
    });
    await loop.runNow();
    expect(runs).toBe(1);
    await loop.runNow();
    expect(runs).toBe(2);
    expect(warnings).toEqual([{ sync: "test", error: "boom" }]);
    await loop.stop();
    await loop.runNow();
    expect(runs).toBe(2);
  });
});
