/**
 * The refresh step: when `Sources` can refresh (issue 11 adds it), a briefing asks it first, with a
 * deadline, reports what happened as events, and never fails because of it.
 */
import { expect, it } from "vitest";
import { createDbPorts } from "../../../db/stores/index.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { composeCore } from "../../../src/core/compose.ts";
import type { BriefingEvent } from "../../../src/core/events.ts";
import type { SourceRefresh } from "../../../src/core/ports.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import { scriptedModel } from "../../helpers/scripted-model.ts";
import { LONDON, MORNING_CALLS, recordingLogger, START } from "../fixture.ts";

describeEachDatabase("the refresh step", (getDb) => {
  function coreRefreshing(refresh: (deadline: Date) => Promise<SourceRefresh[]>) {
    const ports = createDbPorts(getDb());
    const model = scriptedModel();
    model.script({ toolCalls: MORNING_CALLS }, { content: "Nothing on your calendar today." });
    const logger = recordingLogger();
    const core = composeCore({
      ports: { ...ports, sources: { ...ports.sources, refresh: (_user, deadline) => refresh(deadline) } },
      model,
      clock: fixedClock(START),
      config: {},
      logger,
    });
    return { ...core, model, logger };
  }

  it("asks for fresh sources before the model looks, with a deadline, and reports each as an event", async () => {
    const user = await createTestUser(getDb(), LONDON);
    const deadlines: Date[] = [];
    const { assistant, model } = coreRefreshing(async (deadline) => {
      deadlines.push(deadline);
      expect(model.requests).toHaveLength(0);
      return [
        { source: "calendar", status: "refreshed" },
        { source: "weather", status: "failed", detail: "HTTP 503" },
      ];
    });
    const events: BriefingEvent[] = [];
    const outcome = await assistant.brief(user.id, {
      slot: "morning",
      onEvent: (event) => events.push(event),
    });
    expect(deadlines).toHaveLength(1);
    expect(deadlines[0]!.getTime()).toBeGreaterThan(new Date(START).getTime());
    expect(events.filter((event) => event.type === "refresh")).toEqual([
      { type: "refresh", source: "calendar", status: "refreshed" },
      { type: "refresh", source: "weather", status: "failed", detail: "HTTP 503" },
    ]);
    expect(outcome.mode).toBe("agentic");
  });

  it("goes ahead with what is cached when the refresh throws, with a warning", async () => {
    const user = await createTestUser(getDb(), LONDON);
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
