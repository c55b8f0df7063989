/**
 * The pre-warm step, data side: a few minutes before a user's slot the scheduler refreshes their stale
 * sources (the production `Sources.refresh`, against the Open-Meteo test server) with the slot time as the
 * deadline, once; the slot's own refresh step then finds them fresh and makes no network call.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { listRunReceipts } from "../../db/queries/messages.ts";
import { briefingRuns, users } from "../../db/schema/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import type { BriefingGenerator } from "../../src/scheduler/scheduler.ts";
import { createSourceRefresher } from "../../src/sources/refresh-sources.ts";
import { testCore } from "../core/fixture.ts";
import { describeEachDatabase } from "../helpers/database.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../servers/open-meteo-server.ts";
import { MODEL, modelFor, nextOwner, startModel, startRig, telegramUser } from "./rig.ts";

const MORNING_ONLY = { morning: "07:00", midday: null, afternoon: null, evening: null };
const MINUTE = 60_000;

describeEachDatabase("pre-warm refresh", (getDb) => {
  let ollama: OllamaTestServer;
  let meteo: OpenMeteoServer;
  let place = 0;
  beforeAll(async () => {
    ollama = await startModel();
    meteo = await startOpenMeteoServer({ firstDay: "2025-06-02" });
  });
  afterAll(async () => {
    await ollama.close();
    await meteo.close();
  });
  // The suite shares a database: earlier users must not come due in later tests.
  beforeEach(async () => {
    await getDb()
      .update(users)
      .set({ slots: { morning: null, midday: null, afternoon: null, evening: null } });
  });

  it("refreshes a user's stale forecast ahead of the slot, once, so the slot's briefing makes no network call", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T05:56:00Z"); // 06:56 in London
    place += 1;
    const latitude = 48 + place / 10;
    const { user } = await telegramUser(db, {
      slots: MORNING_ONLY,
      latitude,
      longitude: 2.35,
      locationName: `Town ${place}`,
    });
    const refresh = createSourceRefresher({
      db,
      fetch,
      clock,
      forecastUrl: meteo.url,
      maxAgeMinutes: { calendar: 15, feeds: 30, weather: 30 },
    });
    const forecastsFor = () =>
      meteo
        .forecastRequests()
        .filter((request) => request.query.get("latitude") === String(Math.round(latitude * 100) / 100))
        .length;
    // The scheduler's runner over the same production refresh, as the app wires it.
    const owner = nextOwner();
    const { generateBriefing } = testCore(db, modelFor(ollama), { clock, refresh, owner });
    const runner = Object.assign(
      async (request: Parameters<BriefingGenerator>[0]) => generateBriefing(request),
      {
        calls: [] as number[],
      },
    );
    const deadlines: Date[] = [];
    const rig = await startRig(db, clock, modelFor(ollama), {
      owner,
      runner,
      scheduler: {
        refreshSources: (who, deadline) => {
          deadlines.push(deadline);
          return refresh(who, deadline);
        },
      },
    });

    const ahead = await rig.scheduler.tick();
    await rig.scheduler.drain();
    expect(ahead).toMatchObject({ claimed: 0, refreshing: 1 });
    expect(deadlines).toEqual([new Date("2025-06-02T06:00:00Z")]);
    expect(forecastsFor()).toBe(1);

    clock.advance(MINUTE);
    expect((await rig.scheduler.tick()).refreshing).toBe(0);

    clock.set("2025-06-02T06:00:20Z");
    ollama.script(MODEL, [{ content: "Partly cloudy, 12 to 21 degrees." }]);
    const due = await rig.scheduler.tick();
    await rig.scheduler.drain();
    expect(due.claimed).toBe(1);
    const [run] = await db.select().from(briefingRuns).where(eq(briefingRuns.userId, user.id));
    expect(run?.state).toBe("delivered");
    expect(run?.prose).toBe("Partly cloudy, 12 to 21 degrees.");
    // The slot's refresh found the forecast fresh: still one request, and the receipt has it.
    expect(forecastsFor()).toBe(1);
    const weather = (await listRunReceipts(db, run?.id ?? 0)).find(
      (receipt) => receipt.toolName === "get_weather",
    );
    expect(weather?.error).toBe(false);
    expect(weather?.result).toMatchObject({ as_of: "06:56", today: { low: 12, high: 21 } });
  });
});
