/**
 * The refresh step: when `Sources` can refresh, a briefing asks it first, with the configured deadline,
 * reports what happened as events, and never fails because of it. (The edge's refresh itself is tested in
 * test/sources/refresh-sources.test.ts.)
 */
import { expect, it } from "vitest";
import { fixedClock } from "../../../src/core/clock.ts";
import { composeCore } from "../../../src/core/compose.ts";
import type { BriefingEvent } from "../../../src/core/events.ts";
import type { Sources } from "../../../src/core/ports.ts";

type SourceRefreshFn = Sources["refresh"];

import { scriptedModel } from "../../helpers/scripted-model.ts";
import { createTestUser, describeInMemory, portsOf } from "../../helpers/test-store.ts";
import { LONDON, recordingLogger, START } from "../fixture.ts";

describeInMemory("the refresh step", (getStore) => {
  function coreRefreshing(
    refresh: NonNullable<SourceRefreshFn>,
    config: { refreshDeadlineSeconds?: number } = {},
  ) {
    const ports = portsOf(getStore());
    const model = scriptedModel();
    model.script({ content: "Nothing on your calendar today." });
    const logger = recordingLogger();
    const core = composeCore({
      ports: { ...ports, sources: { ...ports.sources, refresh } },
      model,
      clock: fixedClock(START),
      config,
      logger,
    });
    return { ...core, model, logger };
  }

  it("asks for fresh sources before any receipt or model request, with the configured deadline, and reports each as an event", async () => {
    const user = await createTestUser(getStore(), LONDON);
    const deadlines: Date[] = [];
    let modelRequestsAtRefresh = -1;
    const { assistant, model } = coreRefreshing(
      async (_user, deadline, onStart) => {
        deadlines.push(deadline);
        modelRequestsAtRefresh = model.requests.length;
        onStart?.(["weather", "calendar"]);
        return [
          {
            source: "weather",
            status: "failed",
            detail: "could not refresh (HTTP 503); using the forecast as of 05:40",
          },
          { source: "calendar", status: "refreshed" },
          { source: "feeds", status: "fresh" },
        ];
      },
      { refreshDeadlineSeconds: 3 },
    );
    const events: BriefingEvent[] = [];
    const outcome = await assistant.brief(user.id, {
      slot: "morning",
      onEvent: (event) => events.push(event),
    });
    expect(deadlines).toEqual([new Date(new Date(START).getTime() + 3000)]);
    expect(modelRequestsAtRefresh).toBe(0);
    // Refresh events come before the runner's receipts.
    expect(events.slice(0, 4)).toEqual([
      { type: "refresh-start", sources: ["weather", "calendar"] },
      {
        type: "refresh-end",
        source: "weather",
        status: "failed",
        detail: "could not refresh (HTTP 503); using the forecast as of 05:40",
      },
      { type: "refresh-end", source: "calendar", status: "refreshed" },
      { type: "refresh-end", source: "feeds", status: "fresh" },
    ]);
    expect(events[4]).toMatchObject({ type: "tool-result", by: "runner" });
    expect(outcome.mode).toBe("agentic");
    expect(outcome.timings.refreshMs).toBeGreaterThanOrEqual(0);
  });

  it("goes ahead with what is cached when the refresh throws, with a warning", async () => {
    const user = await createTestUser(getStore(), LONDON);
    const { assistant, logger } = coreRefreshing(async () => {
      throw new Error("feed host unreachable");
    });
    const outcome = await assistant.brief(user.id, { slot: "morning" });
    expect(outcome.mode).toBe("agentic");
    expect(logger.warnings.map((warning) => warning.message)).toContain(
      "could not refresh sources; the briefing reads what is cached",
    );
  });
});
